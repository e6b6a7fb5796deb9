import {
  eventTypeToJSON,
  type GetSessionResponse,
  type HealthResponse,
  type SessionEvent as ProtoEvent,
  type ProviderInfo as ProtoProvider,
  SessionStatus as ProtoStatus,
  providerAuthStateToJSON,
  sessionStatusToJSON,
} from '@agent-bridge/proto';
import type {
  EventType,
  Health,
  ProviderAuthState,
  ProviderInfo,
  SessionEvent,
  SessionInfo,
  SessionStatus,
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

export function eventFromWire(e: ProtoEvent): SessionEvent {
  const type = stripPrefix('EVENT_TYPE_', eventTypeToJSON(e.type)) as EventType;
  const out: SessionEvent = {
    seq: seqFromWire(e.seq),
    timestamp: e.timestamp ?? new Date(0),
    sessionId: e.sessionId,
    projectId: e.projectId,
    provider: e.provider,
    type,
    stream: e.stream,
    text: e.text,
    done: e.done,
    error: e.error,
    turnId: e.turnId,
    data: e.data,
  };
  if (type === 'BUFFER_OVERFLOW') {
    out.missing = { first: Number(e.data?.first_missing), last: Number(e.data?.last_missing) };
  }
  return out;
}

export function sessionFromWire(s: GetSessionResponse): SessionInfo {
  return {
    sessionId: s.sessionId,
    projectId: s.projectId,
    provider: s.provider,
    status: statusFromWire(s.status),
    createdAt: s.createdAt ?? new Date(0),
    stoppedAt: s.stoppedAt,
    error: s.error,
    pid: s.pid,
    exitCode: s.exitCode,
    exitSignal: s.exitSignal,
    repoPath: s.repoPath,
    oldestSeq: seqFromWire(s.oldestSeq),
    lastSeq: seqFromWire(s.lastSeq),
    subscriberCount: s.subscriberCount,
  };
}

export function healthFromWire(h: HealthResponse): Health {
  return {
    status: h.status,
    version: h.version,
    serverInstanceId: h.serverInstanceId,
    startedAt: h.startedAt,
    providers: h.providers.map((p) => ({ ...p })),
    activeSessions: h.activeSessions,
    retainedSessions: h.retainedSessions,
    sessionLimit: h.sessionLimit,
    projectActiveSessions: h.projectActiveSessions,
    projectSessionLimit: h.projectSessionLimit,
    freeCapacity: Math.max(
      0,
      Math.min(h.sessionLimit - h.activeSessions, h.projectSessionLimit - h.projectActiveSessions),
    ),
  };
}

export function providerFromWire(p: ProtoProvider): ProviderInfo {
  return {
    id: p.id,
    binaryPath: p.binaryPath,
    version: p.version,
    available: p.available,
    error: p.error,
    capabilities: {
      structuredEvents: p.capabilities?.structuredEvents ?? false,
      multiTurn: p.capabilities?.multiTurn ?? false,
      interrupt: p.capabilities?.interrupt ?? false,
      permissionRequests: p.capabilities?.permissionRequests ?? false,
    },
    authState: stripPrefix(
      'PROVIDER_AUTH_STATE_',
      providerAuthStateToJSON(p.authState),
    ) as ProviderAuthState,
    authDetail: p.authDetail,
    checkedAt: p.checkedAt,
  };
}
