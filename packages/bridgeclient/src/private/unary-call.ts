import type { BridgeServiceClient } from '@agent-bridge/proto';
import { type CallOptions as GrpcCallOptions, Metadata, type ServiceError } from '@grpc/grpc-js';
import { BridgeError, type CallContext, fromServiceError } from '../errors.js';
import type { CallOptions } from '../options.js';
import { type Backoff, backoffDelay, isTransient, pause } from './backoff.js';
import type { DaemonChannel } from './daemon-channel.js';

/** The unary RPCs, by their method name on the generated client. */
type UnaryName =
  | 'startSession'
  | 'stopSession'
  | 'getSession'
  | 'listSessions'
  | 'sendInput'
  | 'interruptTurn'
  | 'respondPermission'
  | 'ackEvents'
  | 'health'
  | 'listProviders'
  | 'postContext'
  | 'readContext'
  | 'ackContext'
  | 'sendMessage'
  | 'listMessages';
/** The generated signature (request, metadata, options, callback) of a unary RPC. */
type Signature<M extends UnaryName> = Parameters<BridgeServiceClient[M]>;
type RequestOf<M extends UnaryName> = Signature<M>[0];
type ResponseOf<M extends UnaryName> = Parameters<Signature<M>[3]>[1];
type Invoke = (
  req: unknown,
  md: Metadata,
  opts: Partial<GrpcCallOptions>,
  cb: (err: ServiceError | null, res: unknown) => void,
) => { cancel(): void };

/** What a client's unary calls go through, and how long and how often they may try. */
interface UnaryContext {
  channel: DaemonChannel;
  backoff: Backoff;
  /** The deadline of a call that gives none. */
  callMs: number;
  /** Aborted when the client is closed: every later call fails CANCELLED. */
  clientClosed: AbortSignal;
}

/**
 * One RPC: a deadline for all attempts together, cancelled by `signal`,
 * and transient failures retried with backoff when `retry` allows.
 */
export type Unary = <M extends UnaryName>(
  method: M,
  req: RequestOf<M>,
  opts: CallOptions,
  retry?: boolean,
  /** Carried by the call's errors (see BridgeError.sessionId and idempotencyKey). */
  context?: CallContext,
) => Promise<ResponseOf<M>>;

/** The unary calls of a client, through `ctx`. */
export function unaryCalls(ctx: UnaryContext): Unary {
  return async function unary<M extends UnaryName>(
    method: M,
    req: RequestOf<M>,
    opts: CallOptions,
    retry = true,
    context: CallContext = {},
  ): Promise<ResponseOf<M>> {
    const deadline = Date.now() + (opts.timeoutMs ?? ctx.callMs);
    const rpc = method[0]!.toUpperCase() + method.slice(1);
    for (let attempt = 0; ; attempt++) {
      opts.signal?.throwIfAborted();
      if (ctx.clientClosed.aborted) {
        throw new BridgeError('CANCELLED', 'the client is closed', { ...context, method: rpc });
      }
      // The channel of this attempt: a stuck one is replaced between attempts.
      const raw = ctx.channel.raw;
      const invoke = (raw[method] as unknown as Invoke).bind(raw);
      try {
        return (await once(rpc, invoke, req, deadline, opts.signal, context)) as ResponseOf<M>;
      } catch (err) {
        if (!retry || !isTransient(err) || attempt + 1 >= ctx.backoff.maxAttempts) throw err;
        const wait = Math.max(err.retryAfterMs ?? 0, backoffDelay(ctx.backoff, attempt));
        if (Date.now() + wait >= deadline) throw err;
        await pause(wait, opts.signal);
      }
    }
  };
}

/** One attempt of a unary call. An abort cancels it and rejects with the signal's reason. */
function once(
  method: string,
  invoke: Invoke,
  req: unknown,
  deadline: number,
  signal: AbortSignal | undefined,
  context: CallContext,
): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const onAbort = () => call.cancel();
    // The token comes from the channel's call credentials, not this metadata.
    const call = invoke(req, new Metadata(), { deadline: new Date(deadline) }, (err, res) => {
      signal?.removeEventListener('abort', onAbort);
      if (signal?.aborted) reject(signal.reason);
      else if (err) reject(fromServiceError(err, method, context));
      else resolve(res);
    });
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
