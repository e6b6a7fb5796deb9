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
  /** Releases what the source holds; called once the call is over. */
  close(): void;
}

/**
 * Opens the stream for `caller`, or throws the refusal (the call then ends
 * with its status before anything is sent). `signal` ends with the call.
 */
export type StreamHandler<Req, T> = (
  caller: Caller,
  req: Req,
  signal: AbortSignal,
) => OpenedStream<T>;

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
    // The call's scope: ended by the client (cancel, close) or with the daemon's.
    const lifetime = scope(ctx.lifetime ?? []);
    const gone = () => lifetime.end(new ScopeEnded('stop'));
    call.on('cancelled', gone);
    call.on('close', gone);
    const peer = kit.peerOf(call);
    let caller: Caller | undefined;
    let opened: OpenedStream<T> | undefined;
    // Inside the call's: no longer than the token that opened the stream.
    let open: Scope | undefined;
    (async () => {
      const auth = await authenticate(ctx.verifier, ctx.limits, call.metadata, peer);
      caller = auth.caller;
      open = scope(lifetime.signal, {
        timeoutMs: Math.max(0, auth.validUntil - Date.now()),
        timeoutReason: () => new TokenExpiredDuringStream(),
      });
      const req = call.request;
      opened = handler(caller, req, open.signal);
      call.sendMetadata(opened.headers);
      record(method, req, peer, caller, undefined);
      timed(method, started, status.OK);
      if (await sendStream(call, opened.source, opened.encode, open.signal)) {
        call.end();
        return;
      }
      const why = open.signal.reason;
      if (why instanceof TokenExpiredDuringStream) throw why;
      if (endCause(open.signal) === 'shutdown') {
        throw unavailable('the daemon is shutting down', 'shutting_down');
      }
    })()
      .catch((err) => {
        if (err instanceof TokenExpiredDuringStream) {
          record(method, call.request, peer, caller, err);
          call.emit('error', err.status());
          return;
        }
        const refused = opened === undefined;
        const shutdown = err instanceof BridgeError && err.reason === 'shutting_down';
        const e =
          refused || shutdown || !lifetime.signal.aborted ? kit.fail(method, err) : undefined;
        if (refused) {
          record(method, call.request, peer, caller, err);
          if (e) timed(method, started, e.code);
        }
        // grpc-js turns an 'error' event on a server stream into the call's status.
        if (e && (shutdown || !lifetime.signal.aborted)) call.emit('error', e);
      })
      .finally(() => {
        open?.end();
        lifetime.end();
        opened?.close();
      });
  };
}
