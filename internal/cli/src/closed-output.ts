import { scope } from '@agent-bridge/scope';

/**
 * The end of a CLI's output: `bridgectl events … | head` closes the pipe
 * while the CLI still writes, and the next write fails with EPIPE, an
 * 'error' event that, unhandled, ends the process with a stack trace.
 * Here such an error is taken as the reader having had enough: the stream
 * is left alone from then on, and a signal tells the command to stop.
 */

/** One watch per stream, however many programs run in this process. */
const watched = new WeakMap<NodeJS.EventEmitter, AbortSignal>();

/** The signal of `stream`'s reader going away, watching it from the first call on. */
function closedSignal(stream: NodeJS.EventEmitter): AbortSignal {
  const known = watched.get(stream);
  if (known) return known;
  const closed = scope();
  watched.set(stream, closed.signal);
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (closed.signal.aborted) return;
    if (err.code !== 'EPIPE') throw err;
    closed.end(new DOMException('output closed', 'AbortError'));
  });
  return closed.signal;
}

/**
 * A signal aborted (with an AbortError "output closed") once the reader
 * of one of `streams` has gone: a write failed with EPIPE. Later errors of
 * that stream (writes to it after the close) are dropped; any other error
 * is thrown as an unhandled one would be.
 */
export function outputClosed(
  streams: readonly NodeJS.EventEmitter[] = [process.stdout, process.stderr],
): AbortSignal {
  return AbortSignal.any(streams.map(closedSignal));
}

/** True for the reason `outputClosed`'s signal aborts with. */
export const isOutputClosed = (reason: unknown): boolean =>
  reason instanceof DOMException &&
  reason.name === 'AbortError' &&
  reason.message === 'output closed';
