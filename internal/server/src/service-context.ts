import type { JwtVerifier } from '@agent-bridge/auth';
import type { Audit, LostSessions, SessionManager } from '@agent-bridge/bridge';
import type { GetRevocationListsResponse } from '@agent-bridge/proto';
import type { Logger } from 'pino';
import type { CallLimits } from './private/call-limits.js';
import type { ConnectionIdentities } from './private/connection-identities.js';

/** What the BridgeService handlers are given: the core and the daemon's parts they answer with. */
export interface ServiceContext {
  manager: SessionManager;
  verifier: JwtVerifier;
  logger: Logger;
  audit: Audit;
  limits: CallLimits;
  version: string;
  instanceId: string;
  startedAt: Date;
  /** The CRLs the TLS listener enforces now (GetRevocationLists). */
  revocationLists(): GetRevocationListsResponse;
  /** Identities of the live connections, worked out when each was accepted. */
  connections?: ConnectionIdentities;
  /**
   * The server's scope: ended (ScopeEnded "shutdown") when a shutdown's
   * grace for open calls runs out, so every stream still open ends with
   * UNAVAILABLE instead of being cut.
   */
  lifetime?: AbortSignal;
  observeCall?: CallObserver;
  /** The fleet's sessions whose daemon is gone, served read-only (none outside a fleet). */
  lost?: LostSessions;
}

/**
 * Told of each finished call: unary calls when answered, streams once open
 * (code OK) or refused. `code` is the status name ("OK", "NOT_FOUND").
 */
export type CallObserver = (method: string, code: string, seconds: number) => void;
