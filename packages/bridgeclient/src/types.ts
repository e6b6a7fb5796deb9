import type * as Proto from '@agent-bridge/proto';

/**
 * Plain types of the client, derived from the generated contract. Seqs
 * are `number`s: the daemon numbers each session's events from 1 without
 * gaps, so they stay far below Number.MAX_SAFE_INTEGER (2^53 - 1); the
 * client converts them to and from the wire's uint64 and refuses a seq
 * that is not a safe non-negative integer. Times are `Date`s.
 */

/** The names of a generated enum's values, without their prefix and the unspecified one. */
type Names<E, Prefix extends string> = Exclude<
  keyof E extends infer K ? (K extends `${Prefix}${infer Name}` ? Name : never) : never,
  'UNSPECIFIED'
>;

/** Where a session is in its life: "STARTING", "RUNNING", "STOPPING", "STOPPED" or "FAILED". */
export type SessionStatus = Names<typeof Proto.SessionStatus, 'SESSION_STATUS_'>;

/** What an event records: the contract's EVENT_TYPE_* names without the prefix. */
export type EventType = Names<typeof Proto.EventType, 'EVENT_TYPE_'>;

/** One recorded event of a session (the contract's SessionEvent, with plain types). */
export type SessionEvent = Omit<Proto.SessionEvent, 'seq' | 'timestamp' | 'type' | 'data'> & {
  /** Per session, from 1, no gaps. For BUFFER_OVERFLOW, the last missing seq. */
  seq: number;
  timestamp: Date;
  type: EventType;
  /** Structured payload; its keys depend on `type`. */
  data: Record<string, unknown> | undefined;
  /** For BUFFER_OVERFLOW: the seqs that were evicted before this reader got them. */
  missing?: { first: number; last: number };
};

/** True for the event that ends a session's stream. */
export const isTerminal = (e: Pick<SessionEvent, 'type'>): boolean =>
  e.type === 'SESSION_STOPPED' || e.type === 'SESSION_FAILED';

export interface StartedSession {
  sessionId: string;
  /** RUNNING, or FAILED when the agent died or timed out during start-up. */
  status: SessionStatus;
  createdAt: Date;
}

/** A session as GetSession and ListSessions describe it (the contract's GetSessionResponse, with plain types). */
export type SessionInfo = Omit<
  Proto.GetSessionResponse,
  'status' | 'createdAt' | 'oldestSeq' | 'lastSeq'
> & {
  status: SessionStatus;
  createdAt: Date;
  /** Oldest seq still held by the daemon; 0 when none. */
  oldestSeq: number;
  /** Seq of the newest event; 0 when none. */
  lastSeq: number;
};

export interface SessionPage {
  sessions: SessionInfo[];
  /** Empty on the last page. */
  nextPageToken: string;
}

export interface SentInput {
  /** Seq of the INPUT_RECEIVED event that records the input. */
  seq: number;
  /** The key the input was sent with (generated when none was given): resending with it is safe. */
  idempotencyKey: string;
}

export interface InterruptResult {
  /** True only when the turn ended because of this interrupt. */
  interrupted: boolean;
  /** The turn the interrupt was for; empty when none was running. */
  turnId: string;
}

/**
 * How fresh a provider's health is: "PENDING" (a probe has not answered
 * yet; the provider counts as available), "CURRENT", or "STALE" (a re-check
 * was cut short; the earlier answer is shown, see `confirmedAt`).
 */
export type ProbeState = Names<typeof Proto.ProbeState, 'PROBE_STATE_'>;

/** One provider in Health (the contract's ProviderHealth, with plain types). */
export type ProviderHealth = Omit<Proto.ProviderHealth, 'probeState'> & { probeState: ProbeState };

/** What the daemon says of itself (the contract's HealthResponse), with the room it has left. */
export type Health = Omit<Proto.HealthResponse, 'providers'> & {
  providers: ProviderHealth[];
  /** Room for more sessions of this client's project: the smaller of what either limit leaves. */
  freeCapacity: number;
};

/** What the provider's free authentication probe said. */
export type ProviderAuthState = Names<typeof Proto.ProviderAuthState, 'PROVIDER_AUTH_STATE_'>;

/**
 * Where a provider's version stands against the versions of its CLI the
 * contract tests cover: "TESTED", "NEWER", "OLDER" (served all the same,
 * with a `warning`), or "UNKNOWN" (no version yet, or no tested range).
 */
export type VersionCoverage = Names<typeof Proto.VersionCoverage, 'VERSION_COVERAGE_'>;

/** A configured provider (the contract's ProviderInfo, with plain types). */
export type ProviderInfo = Omit<
  Proto.ProviderInfo,
  'capabilities' | 'authState' | 'permissionPolicy' | 'probeState' | 'versionCoverage'
> & {
  capabilities: Proto.ProviderCapabilities;
  authState: ProviderAuthState;
  probeState: ProbeState;
  versionCoverage: VersionCoverage;
  /** How its sessions' permission requests are decided; mode "ask" waits for respondPermission. */
  permissionPolicy: {
    mode: 'deny' | 'allow' | 'ask';
    /** With "ask": how long a request waits. */
    timeoutMs: number;
    /** The decision nobody gave. */
    defaultDecision: 'deny' | 'allow';
    /** Tools allowed without asking. */
    autoAllow: string[];
  };
};
