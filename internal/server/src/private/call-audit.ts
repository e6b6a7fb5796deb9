import { AuthError } from '@agent-bridge/auth';
import { type Audit, BridgeError, type Caller } from '@agent-bridge/bridge';
import type { Logger } from 'pino';
import type { PeerIdentity } from './peer-identity.js';
import { TokenExpiredDuringStream } from './token-expired.js';

/**
 * Writes the one audit record of a call: allowed, or refused with the
 * stable reason of the refusal (the audit log may know more than the
 * caller was told: another project's session is "not found" to the caller
 * and `session_of_other_project` here). Unexpected failures are `error`.
 * At debug level the call is also logged.
 */
export function callRecorder(audit: Audit, logger: Logger) {
  return (
    method: string,
    req: unknown,
    peer: PeerIdentity,
    caller: Caller | undefined,
    err: unknown,
  ): void => {
    const sessionId = field(req, 'sessionId');
    const projectId = caller?.projectId ?? field(req, 'projectId');
    const result = err === undefined ? { outcome: 'allow' as const, reason: 'ok' } : refusal(err);
    audit({
      kind: 'call',
      method,
      ...result,
      ...(sessionId ? { sessionId } : {}),
      ...(projectId ? { projectId } : {}),
      identity: caller?.identity ?? {
        ...peer.audit,
        // A token verified but refused for this certificate still says who it was.
        ...(err instanceof AuthError && err.claims ? err.claims : {}),
      },
    });
    logger.debug({ method, sessionId, projectId, ...result }, 'call');
  };
}

function refusal(err: unknown): { outcome: 'deny' | 'error'; reason: string } {
  if (err instanceof AuthError || err instanceof BridgeError) {
    return { outcome: 'deny', reason: err.reason };
  }
  if (err instanceof TokenExpiredDuringStream) return { outcome: 'deny', reason: 'token_expired' };
  return { outcome: 'error', reason: 'internal' };
}

/** A request value as the caller sent it: the audit writer redacts it first and bounds it after. */
function field(req: unknown, name: string): string | undefined {
  const v = (req as Record<string, unknown> | undefined)?.[name];
  return typeof v === 'string' && v !== '' ? v : undefined;
}
