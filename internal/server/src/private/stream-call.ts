import { BridgeError, type Caller, unavailable } from '@agent-bridge/bridge';
import { endCause, type Scope, ScopeEnded, scope } from '@agent-bridge/scope';
import { type Metadata, type ServerWritableStream, status } from '@grpc/grpc-js';
import { authenticate } from './authenticate.js';
import type { CallKit } from './call-kit.js';
import { sendStream } from './send-stream.js';
import { TokenExpiredDuringStream } from './token-expired.js';

/** What a streaming handler opens for an authenticated caller. */
interface OpenedStream<T> {
  /** What to send: written by sendStream, with backpressure, until it ends or the call does. */
  source: AsyncIterable<T>;
  /** The response headers, sent before the first item. */
  headers: Metadata;
  /** The messages an item is sent as (already encoded: see event-wire.ts). */
  encode: (item: T) => readonly Buffer[];
  /** Releases what the source holds; called once the call is over, without its object (the rest is not kept). */
  close: () => void;
}

/**
 * Opens the stream for `caller`, or throws the refusal (the call then ends
 * with its status before anything is sent). `signal` ends with the call.
 */
export type StreamHandler<Req, T> = (
  caller: Caller,
  req: Req,
  signal: AbortSignal,
) => OpenedStream<T> | Promise<OpenedStream<T>>;

/**
 * After a stream stopped on its scope: the token's expiry and the daemon's
 * shutdown end the call with their status; the client's leaving, with none.
 */
function ended(signal: AbortSignal): void {
  const why = signal.reason;
  if (why instanceof TokenExpiredDuringStream) throw why;
  if (endCause(signal) === 'shutdown') {
    throw unavailable('the daemon is shutting down', 'shutting_down');
  }
}

/** Why a stream's scope ends at its token's expiry; one function for every call. */
const tokenExpired = () => new TokenExpiredDuringStream();

/**
 * A server-streaming RPC: the call authenticated first, then `handler`
 * opens what to send, and the generic writer (sendStream) sends it. The
 * call's scope ends when the client cancels or closes, or with the
 * server's (shutdown: UNAVAILABLE); inside it, no longer than the token
 * that opened the stream (UNAUTHENTICATED with the `bridge-auth-expired`
 * trailer). One audit record and one observation when the stream opens or
 * is refused.
 */
export function streamCall<Req, T>(
  kit: CallKit,
  method: string,
  handler: StreamHandler<Req, T>,
): (call: ServerWritableStream<Req, Buffer>) => void {
  const { ctx, record, timed } = kit;
  return (call) => {
    const started = process.hrtime.bigint();
    const peer = kit.peerOf(call);
    let caller: Caller | undefined;
    // What the call keeps of what the handler opened: the headers are sent and dropped.
    let release: (() => void) | undefined;
    // The call's scope, from the moment its caller is known: ended by the
    // client (cancel, close), with the daemon's, or when the token that
    // opened the stream expires. One scope a stream: a daemon holds tens of
    // thousands of them.
    let lifetime: Scope | undefined;
    const gone = () => lifetime?.end(new ScopeEnded('stop'));
    call.on('cancelled', gone);
    call.on('close', gone);
    (async () => {
      const auth = await authenticate(ctx.verifier, ctx.limits, call.metadata, peer);
      caller = auth.caller;
      const own = scope(ctx.lifetime ?? [], {
        timeoutMs: Math.max(0, auth.validUntil - Date.now()),
        timeoutReason: tokenExpired,
      });
      lifetime = own;
      const { signal } = own;
      // The client may have gone while the token was checked.
      if (call.cancelled || call.destroyed) gone();
      const req = call.request;
      const { source, headers, encode, close } = await handler(caller, req, signal);
      release = close;
      call.sendMetadata(headers);
      record(method, req, peer, caller, undefined);
      timed(method, started, status.OK);
      // Returned, not awaited: this frame is not kept for the stream's life.
      return sendStream(call, source, encode, signal).then((finished) =>
        finished ? call.end() : ended(signal),
      );
    })()
      .catch((err) => {
        if (err instanceof TokenExpiredDuringStream) {
          record(method, call.request, peer, caller, err);
          call.emit('error', err.status());
          return;
        }
        const refused = release === undefined;
        const shutdown = err instanceof BridgeError && err.reason === 'shutting_down';
        const ended = lifetime?.signal.aborted ?? call.cancelled;
        const e = refused || shutdown || !ended ? kit.fail(method, err) : undefined;
        if (refused) {
          record(method, call.request, peer, caller, err);
          if (e) timed(method, started, e.code);
        }
        // grpc-js turns an 'error' event on a server stream into the call's status.
        if (e && (shutdown || !ended)) call.emit('error', e);
      })
      .finally(() => {
        lifetime?.end();
        release?.();
      });
  };
}
