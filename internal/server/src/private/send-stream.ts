import type { ServerWritableStream } from '@grpc/grpc-js';

/**
 * Sends what a streaming handler returns: each item of `source` as the
 * messages `encode` makes of it (a batch of work becomes its messages
 * without an extra step per message). Waits whenever grpc-js asks it to
 * (backpressure), stops at once when `signal` aborts (the call's scope:
 * cancelled by the client, closed, its token expired, the daemon going),
 * and closes the iterator either way, so what the handler holds is
 * released. Resolves true when the source ran out (the caller then ends
 * the call with OK), false when it stopped on the signal; rejects with the
 * source's error.
 */
export async function sendStream<T>(
  call: ServerWritableStream<unknown, Buffer>,
  source: AsyncIterable<T>,
  encode: (item: T) => readonly Buffer[],
  signal: AbortSignal,
): Promise<boolean> {
  const it = source[Symbol.asyncIterator]();
  try {
    for (;;) {
      if (signal.aborted) return false;
      const next = await it.next();
      // A source ends when the signal aborts too: that is a stop, not the end.
      if (signal.aborted) return false;
      if (next.done) return true;
      let ok = true;
      for (const m of encode(next.value)) ok = call.write(m);
      if (!ok) await drained(call, signal);
    }
  } finally {
    await it.return?.();
  }
}

/** Waits for the stream to accept more data (grpc-js write backpressure) or for cancellation. */
function drained(call: ServerWritableStream<unknown, unknown>, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      call.off('drain', done);
      signal.removeEventListener('abort', done);
      resolve();
    };
    call.on('drain', done);
    signal.addEventListener('abort', done, { once: true });
  });
}
