import type { Caller, TokenBuckets } from '@agent-bridge/bridge';
import { type ServerUnaryCall, type sendUnaryData, status } from '@grpc/grpc-js';
import { authenticate } from './authenticate.js';
import type { CallKit } from './call-kit.js';
import { spend } from './call-limits.js';

/**
 * A unary RPC as the core answers it: the call authenticated first, then
 * its rate-limit token spent (`limit`), then `fn`; one audit record and one
 * observation either way, and a failure answered with its status.
 */
export function unaryCall<Req, Res>(
  kit: CallKit,
  method: string,
  fn: (caller: Caller, req: Req) => Promise<Res> | Res,
  limit?: TokenBuckets,
): (call: ServerUnaryCall<Req, Res>, cb: sendUnaryData<Res>) => void {
  const { ctx, record, timed } = kit;
  return (call, cb) => {
    const started = process.hrtime.bigint();
    const peer = kit.peerOf(call);
    let caller: Caller | undefined;
    authenticate(ctx.verifier, ctx.limits, call.metadata, peer)
      .then((auth) => {
        caller = auth.caller;
        if (limit) spend(limit, method, caller);
        return fn(caller, call.request);
      })
      .then(
        (res) => {
          record(method, call.request, peer, caller, undefined);
          cb(null, res);
          timed(method, started, status.OK);
        },
        (err) => {
          record(method, call.request, peer, caller, err);
          const e = kit.fail(method, err);
          cb(e);
          timed(method, started, e.code);
        },
      );
  };
}
