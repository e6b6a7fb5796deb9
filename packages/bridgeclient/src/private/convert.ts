import {
  eventTypeToJSON,
  type GetSessionResponse,
  type HealthResponse,
  PermissionDecision as ProtoDecision,
  type SessionEvent as ProtoEvent,
  type ProbeState as ProtoProbeState,
  type ProviderInfo as ProtoProvider,
  SessionStatus as ProtoStatus,
  probeStateToJSON,
  providerAuthStateToJSON,
  sessionStatusToJSON,
  versionCoverageToJSON,
} from '@agent-bridge/proto';
import type { PermissionDecision } from '../permissions.js';
import type {
  EventType,
  Health,
  ProbeState,
  ProviderAuthState,
  ProviderInfo,
  SessionEvent,
  SessionInfo,
  SessionStatus,
  VersionCoverage,
} from '../types.js';

const stripPrefix = (prefix: string, name: string) =>
  name.startsWith(prefix) ? name.slice(prefix.length) : name;

/** uint64 from the wire → number. */
export function seqFromWire(v: bigint): number {
  if (v > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new RangeError(`seq ${v} is beyond Number.MAX_SAFE_INTEGER`);
  }
  return Number(v);
}

/** number → uint64 for the wire. */
export function seqToWire(v: number, what: string): bigint {
  if (!Number.isSafeInteger(v) || v < 0) {
    throw new TypeError(`${what} must be a non-negative safe integer, got ${v}`);
  }
  return BigInt(v);
}

export const statusFromWire = (s: ProtoStatus): SessionStatus =>
  stripPrefix('SESSION_STATUS_', sessionStatusToJSON(s)) as SessionStatus;

export function statusToWire(s: SessionStatus): ProtoStatus {
  const v = ProtoStatus[`SESSION_STATUS_${s}` as keyof typeof ProtoStatus];
  if (typeof v !== 'number' || s === ('UNSPECIFIED' as SessionStatus)) {
    throw new TypeError(`unknown session status ${JSON.stringify(s)}`);
  }
  return v;
}

const DECISIONS_TO_WIRE: Record<PermissionDecision, ProtoDecision> = {
  allow_once: ProtoDecision.PERMISSION_DECISION_ALLOW_ONCE,
  allow_session: ProtoDecision.PERMISSION_DECISION_ALLOW_SESSION,
  deny: ProtoDecision.PERMISSION_DECISION_DENY,
};

/** A decision for the wire; refuses anything else before it is sent. */
export function decisionToWire(d: PermissionDecision): ProtoDecision {
  const v = DECISIONS_TO_WIRE[d];
  if (v === undefined || !Object.hasOwn(DECISIONS_TO_WIRE, d)) {
    throw new TypeError(
      `decision must be "allow_once", "allow_session" or "deny", got ${JSON.stringify(d)}`,
    );
  }
  return v;
}

export function eventFromWire(e: ProtoEvent): SessionEvent {
  const type = stripPrefix('EVENT_TYPE_', eventTypeToJSON(e.type)) as EventType;
  const out: SessionEvent = {
    ...e,
    seq: seqFromWire(e.seq),
    timestamp: e.timestamp ?? new Date(0),
    type,
  };
  if (type === 'BUFFER_OVERFLOW') {
    out.missing = { first: Number(e.data?.first_missing), last: Number(e.data?.last_missing) };
  }
  return out;
}

export function sessionFromWire(s: GetSessionResponse): SessionInfo {
  return {
    ...s,
    status: statusFromWire(s.status),
    createdAt: s.createdAt ?? new Date(0),
    oldestSeq: seqFromWire(s.oldestSeq),
    lastSeq: seqFromWire(s.lastSeq),
  };
}

export function healthFromWire(h: HealthResponse): Health {
  return {
    ...h,
    providers: h.providers.map((p) => ({ ...p, probeState: probeStateFromWire(p.probeState) })),
    freeCapacity: Math.max(
      0,
      Math.min(h.sessionLimit - h.activeSessions, h.projectSessionLimit - h.projectActiveSessions),
    ),
  };
}

export function providerFromWire(p: ProtoProvider): ProviderInfo {
  return {
    ...p,
    capabilities: {
      structuredEvents: p.capabilities?.structuredEvents ?? false,
      multiTurn: p.capabilities?.multiTurn ?? false,
      interrupt: p.capabilities?.interrupt ?? false,
      permissionRequests: p.capabilities?.permissionRequests ?? false,
      resume: p.capabilities?.resume ?? false,
    },
    permissionPolicy: {
      mode: (p.permissionPolicy?.mode || 'deny') as ProviderInfo['permissionPolicy']['mode'],
      timeoutMs: Number(p.permissionPolicy?.timeoutMs ?? 0n),
      defaultDecision: (p.permissionPolicy?.defaultDecision ||
        'deny') as ProviderInfo['permissionPolicy']['defaultDecision'],
      autoAllow: p.permissionPolicy?.autoAllow ?? [],
    },
    authState: stripPrefix(
      'PROVIDER_AUTH_STATE_',
      providerAuthStateToJSON(p.authState),
    ) as ProviderAuthState,
    probeState: probeStateFromWire(p.probeState),
    versionCoverage: versionCoverageFromWire(p.versionCoverage),
  };
}

/** An unknown or unset value (an older daemon) reads as UNKNOWN. */
function versionCoverageFromWire(c: ProtoProvider['versionCoverage']): VersionCoverage {
  const name = stripPrefix('VERSION_COVERAGE_', versionCoverageToJSON(c));
  return name === 'TESTED' || name === 'NEWER' || name === 'OLDER' ? name : 'UNKNOWN';
}

/** An unknown or unset state (an older daemon) reads as CURRENT: it said nothing of staleness. */
function probeStateFromWire(s: ProtoProbeState): ProbeState {
  const name = stripPrefix('PROBE_STATE_', probeStateToJSON(s));
  return name === 'PENDING' || name === 'STALE' ? name : 'CURRENT';
}
