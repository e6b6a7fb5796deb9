import type { SessionManager } from '@agent-bridge/bridge';
import { status } from '@grpc/grpc-js';
import type { Logger } from 'pino';
import type { ServiceContext } from '../service-context.js';
import { toServiceError } from '../status-map.js';
import { callRecorder } from './call-audit.js';
import { type PeerCall, type PeerIdentity, peerIdentity } from './peer-identity.js';

/** What every call wrapper (unary and stream) shares, made once per service. */
export interface CallKit {
  ctx: ServiceContext;
  /** Writes the one audit record of a call (see callRecorder). */
  record: ReturnType<typeof callRecorder>;
  /** The caller's connection identity, as the listener worked it out, else from the call itself. */
  peerOf(call: PeerCall): PeerIdentity;
  /** Tells the call observer (metrics) how a call ended and how long it took. */
  timed(method: string, started: bigint, code: status): void;
  /** The status a failed call ends with (status-map.ts); unexpected errors are logged. */
  fail(method: string, err: unknown): ReturnType<typeof toServiceError>;
}

export function callKit(ctx: ServiceContext): CallKit {
  const record = callRecorder(ctx.audit, ctx.logger);
  const observe = ctx.observeCall;
  return {
    ctx,
    record,
    peerOf: (call) => ctx.connections?.get(call.getPeer()) ?? peerIdentity(call),
    timed: (method, started, code) =>
      observe?.(
        method,
        status[code] ?? String(code),
        Number(process.hrtime.bigint() - started) / 1e9,
      ),
    fail: (method, err) => fail(ctx.logger, method, err, ctx.manager.redact),
  };
}

function fail(logger: Logger, method: string, err: unknown, redact: SessionManager['redact']) {
  const e = toServiceError(err, redact);
  if (e.code === 13 /* INTERNAL */) logger.error({ err, method }, 'internal error');
  return e;
}
