import type {
  BridgeEvent,
  PermissionPolicy,
  SessionSnapshot,
  SessionStatus,
} from '@agent-bridge/bridge';
import {
  EventType,
  type GetSessionResponse,
  PermissionDecision,
  type PermissionPolicy as ProtoPermissionPolicy,
  ProbeState as ProtoProbeState,
  SessionStatus as ProtoStatus,
  VersionCoverage as ProtoVersionCoverage,
  ProviderAuthState,
  type SessionEvent,
} from '@agent-bridge/proto';
import type {
  AuthState,
  EventType as CoreEventType,
  PermissionDecision as CorePermissionDecision,
  ProbeState,
  ProviderStatus,
  VersionCoverage,
} from '@agent-bridge/providers';

const EVENT_TYPES: Record<CoreEventType, EventType> = {
  SESSION_STARTED: EventType.EVENT_TYPE_SESSION_STARTED,
  SESSION_STOPPED: EventType.EVENT_TYPE_SESSION_STOPPED,
  SESSION_FAILED: EventType.EVENT_TYPE_SESSION_FAILED,
  STDOUT: EventType.EVENT_TYPE_STDOUT,
  STDERR: EventType.EVENT_TYPE_STDERR,
  INPUT_RECEIVED: EventType.EVENT_TYPE_INPUT_RECEIVED,
  BUFFER_OVERFLOW: EventType.EVENT_TYPE_BUFFER_OVERFLOW,
  TURN_STARTED: EventType.EVENT_TYPE_TURN_STARTED,
  AGENT_MESSAGE_DELTA: EventType.EVENT_TYPE_AGENT_MESSAGE_DELTA,
  AGENT_MESSAGE: EventType.EVENT_TYPE_AGENT_MESSAGE,
  TOOL_CALL: EventType.EVENT_TYPE_TOOL_CALL,
  TOOL_RESULT: EventType.EVENT_TYPE_TOOL_RESULT,
  TURN_COMPLETED: EventType.EVENT_TYPE_TURN_COMPLETED,
  AGENT_ERROR: EventType.EVENT_TYPE_AGENT_ERROR,
  PERMISSION_REQUESTED: EventType.EVENT_TYPE_PERMISSION_REQUESTED,
  PERMISSION_RESOLVED: EventType.EVENT_TYPE_PERMISSION_RESOLVED,
  SESSION_RESUMED: EventType.EVENT_TYPE_SESSION_RESUMED,
  CONTEXT_POSTED: EventType.EVENT_TYPE_CONTEXT_POSTED,
  MESSAGE_SENT: EventType.EVENT_TYPE_MESSAGE_SENT,
  MESSAGE_RECEIVED: EventType.EVENT_TYPE_MESSAGE_RECEIVED,
};

/** A table of core names to proto values, read the other way. */
function reversed<K extends string, V>(table: Record<K, V>): Map<V, K> {
  return new Map((Object.entries(table) as [K, V][]).map(([k, v]) => [v, k]));
}

const CORE_EVENT_TYPES = reversed(EVENT_TYPES);

const STATUSES: Record<SessionStatus, ProtoStatus> = {
  STARTING: ProtoStatus.SESSION_STATUS_STARTING,
  RUNNING: ProtoStatus.SESSION_STATUS_RUNNING,
  STOPPING: ProtoStatus.SESSION_STATUS_STOPPING,
  STOPPED: ProtoStatus.SESSION_STATUS_STOPPED,
  FAILED: ProtoStatus.SESSION_STATUS_FAILED,
};

const STATUS_NAMES = reversed(STATUSES);

const AUTH_STATES: Record<AuthState, ProviderAuthState> = {
  unknown: ProviderAuthState.PROVIDER_AUTH_STATE_UNKNOWN,
  authenticated: ProviderAuthState.PROVIDER_AUTH_STATE_AUTHENTICATED,
  unauthenticated: ProviderAuthState.PROVIDER_AUTH_STATE_UNAUTHENTICATED,
  not_required: ProviderAuthState.PROVIDER_AUTH_STATE_NOT_REQUIRED,
};

export const toProtoEventType = (t: CoreEventType): EventType => EVENT_TYPES[t];

export function toProtoEvent(e: BridgeEvent): SessionEvent {
  return {
    seq: BigInt(e.seq),
    timestamp: new Date(e.timestamp),
    sessionId: e.sessionId,
    projectId: e.projectId,
    provider: e.provider,
    type: EVENT_TYPES[e.type],
    stream: e.stream,
    text: e.text,
    done: e.done,
    error: e.error,
    turnId: e.turnId,
    data: e.data,
  };
}

/** A decoded SessionEvent back into the core's shape (seq beyond 2^53 clamps, see seqFromWire). */
export function fromProtoEvent(e: SessionEvent): BridgeEvent {
  const type = CORE_EVENT_TYPES.get(e.type);
  if (!type) throw new Error(`event type ${e.type} has no core equivalent`);
  return {
    seq: seqFromWire(e.seq),
    timestamp: e.timestamp?.getTime() ?? 0,
    sessionId: e.sessionId,
    projectId: e.projectId,
    provider: e.provider,
    type,
    stream: e.stream as BridgeEvent['stream'],
    text: e.text,
    done: e.done,
    error: e.error,
    turnId: e.turnId,
    data: e.data as BridgeEvent['data'],
  };
}

export const toProtoStatus = (s: SessionStatus): ProtoStatus => STATUSES[s];

/** Proto status → core status; undefined for UNSPECIFIED or unknown numbers. */
export const fromProtoStatus = (s: ProtoStatus): SessionStatus | undefined => STATUS_NAMES.get(s);

export const toProtoAuthState = (a: AuthState): ProviderAuthState => AUTH_STATES[a];

export function toProtoSession(s: SessionSnapshot): GetSessionResponse {
  return {
    sessionId: s.sessionId,
    projectId: s.projectId,
    provider: s.provider,
    status: STATUSES[s.status],
    createdAt: s.createdAt,
    stoppedAt: s.stoppedAt,
    error: s.error,
    pid: s.pid,
    exitCode: s.exitCode,
    exitSignal: s.exitSignal,
    repoPath: s.repoPath,
    oldestSeq: BigInt(s.oldestSeq),
    lastSeq: BigInt(s.lastSeq),
    subscriberCount: s.subscriberCount,
    name: s.name,
    role: s.role,
  };
}

/** uint64 from the wire → number; values beyond 2^53 clamp (they exceed any real seq). */
function seqFromWire(v: bigint): number {
  return v > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(v);
}

export function providerHealthError(st: ProviderStatus): string {
  return st.available ? '' : st.error;
}

const PROBE_STATES: Record<ProbeState, ProtoProbeState> = {
  pending: ProtoProbeState.PROBE_STATE_PENDING,
  current: ProtoProbeState.PROBE_STATE_CURRENT,
  stale: ProtoProbeState.PROBE_STATE_STALE,
};

/** How fresh a provider's health is, as both Health and ListProviders report it. */
export function toProtoFreshness(st: ProviderStatus): {
  probeState: ProtoProbeState;
  confirmedAt: Date | undefined;
  probeDetail: string;
} {
  return {
    probeState: PROBE_STATES[st.probeState],
    confirmedAt: st.confirmedAt,
    probeDetail: st.probeDetail,
  };
}

const COVERAGE: Record<VersionCoverage, ProtoVersionCoverage> = {
  unknown: ProtoVersionCoverage.VERSION_COVERAGE_UNKNOWN,
  tested: ProtoVersionCoverage.VERSION_COVERAGE_TESTED,
  newer: ProtoVersionCoverage.VERSION_COVERAGE_NEWER,
  older: ProtoVersionCoverage.VERSION_COVERAGE_OLDER,
};

/** A provider's version against the tested range, as ListProviders reports it. */
export function toProtoVersionCoverage(st: ProviderStatus): {
  versionCoverage: ProtoVersionCoverage;
  testedVersions: string;
  warning: string;
} {
  return {
    versionCoverage: COVERAGE[st.versionCoverage],
    testedVersions: st.testedVersions,
    warning: st.warning,
  };
}

const DECISIONS = new Map<PermissionDecision, CorePermissionDecision>([
  [PermissionDecision.PERMISSION_DECISION_ALLOW_ONCE, 'allow_once'],
  [PermissionDecision.PERMISSION_DECISION_ALLOW_SESSION, 'allow_session'],
  [PermissionDecision.PERMISSION_DECISION_DENY, 'deny'],
]);

/**
 * The core's decision for a RespondPermission's; "" for UNSPECIFIED or an
 * unknown number, which the core refuses as INVALID_ARGUMENT.
 */
export function fromProtoDecision(d: PermissionDecision): CorePermissionDecision {
  return DECISIONS.get(d) ?? ('' as CorePermissionDecision);
}

/** A provider's permission settings as ListProviders shows them. */
export function toProtoPermissionPolicy(p: PermissionPolicy): ProtoPermissionPolicy {
  return {
    mode: p.mode,
    timeoutMs: BigInt(p.timeoutMs),
    defaultDecision: p.fallback,
    autoAllow: [...p.autoAllow],
  };
}
