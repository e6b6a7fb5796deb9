import { EventType, type SessionEvent, type SessionEventBatch } from '@agent-bridge/proto';
import { type ClientReadableStream, type ServiceError, status } from '@grpc/grpc-js';

/** A stream being read until `done` holds for an event; the same code reads daemon and reference. */
export interface StreamRead {
  /** Resolves when the first message arrives (the subscription is attached). */
  readonly first: Promise<void>;
  /** Resolves with the monotonic time (ns) at which `done` held; the stream is then cancelled. */
  readonly done: Promise<bigint>;
}

/**
 * Reads `stream` (single events or batches). A BUFFER_OVERFLOW would make
 * any number meaningless, so it fails the read, as does the stream ending
 * before `done` holds or `timeoutMs` passing.
 */
export function readUntil(
  what: string,
  stream: ClientReadableStream<SessionEvent | SessionEventBatch>,
  done: (e: SessionEvent) => boolean,
  timeoutMs: number,
): StreamRead {
  let firstSeen: () => void = () => undefined;
  const first = new Promise<void>((resolve) => {
    firstSeen = resolve;
  });
  const finished = new Promise<bigint>((resolve, reject) => {
    let over = false;
    const fail = (err: Error) => {
      if (over) return;
      over = true;
      clearTimeout(timer);
      stream.cancel();
      reject(err);
    };
    const timer = setTimeout(
      () => fail(new Error(`timed out after ${timeoutMs} ms reading ${what}`)),
      timeoutMs,
    );
    const onEvent = (e: SessionEvent) => {
      if (over) return;
      if (e.type === EventType.EVENT_TYPE_BUFFER_OVERFLOW) {
        fail(new Error(`${what}: the reader overflowed at seq ${e.seq}; the ring is too small`));
      } else if (done(e)) {
        const at = process.hrtime.bigint();
        over = true;
        clearTimeout(timer);
        stream.cancel();
        resolve(at);
      }
    };
    stream.on('data', (m: SessionEvent | SessionEventBatch) => {
      firstSeen();
      if ('events' in m) for (const e of m.events) onEvent(e);
      else onEvent(m);
    });
    stream.on('error', (e: ServiceError) => {
      if (e.code !== status.CANCELLED || !over) fail(new Error(`${what}: ${e.message}`));
    });
    stream.on('end', () => fail(new Error(`${what}: the stream ended before its last event`)));
  });
  return { first, done: finished };
}

/** Counts events of type STDOUT until `n` have arrived. */
export function stdoutCount(n: number): (e: SessionEvent) => boolean {
  let seen = 0;
  return (e) => e.type === EventType.EVENT_TYPE_STDOUT && ++seen >= n;
}
