import {
  type BridgeServiceClient,
  EventType,
  PermissionDecision,
  type SessionEvent,
} from '@agent-bridge/proto';
import type { Metadata } from '@grpc/grpc-js';
import { expect } from 'vitest';
import { call, showEvents } from './client.js';

const REQUESTED = EventType.EVENT_TYPE_PERMISSION_REQUESTED;
const RESOLVED = EventType.EVENT_TYPE_PERMISSION_RESOLVED;

/** The proto decision for each of the bridge's decision words. */
export const DECISION = {
  allow_once: PermissionDecision.PERMISSION_DECISION_ALLOW_ONCE,
  allow_session: PermissionDecision.PERMISSION_DECISION_ALLOW_SESSION,
  deny: PermissionDecision.PERMISSION_DECISION_DENY,
} as const;

/** What the test client is, as PERMISSION_RESOLVED names a caller (token sub and iss, certificate). */
export const TEST_CALLER = { subject: 'tester', issuer: 'control', certificate: 'control-plane' };

/** The PERMISSION_REQUESTED events of `all`. */
export const requestsOf = (all: SessionEvent[]) => all.filter((e) => e.type === REQUESTED);

/** The request id of a PERMISSION_REQUESTED (or PERMISSION_RESOLVED) event. */
export const requestIdOf = (e: SessionEvent | undefined): string => {
  const id = e?.data?.request_id;
  if (typeof id !== 'string' || id === '') {
    throw new Error(`not a permission event: ${e ? showEvents([e]) : 'none'}`);
  }
  return id;
};

/** True once `n` permission requests were recorded, or the session ended (so a failure does not hang). */
export const asked =
  (n = 1) =>
  (all: SessionEvent[]) =>
    requestsOf(all).length >= n ||
    all.some(
      (e) =>
        e.type === EventType.EVENT_TYPE_SESSION_FAILED ||
        e.type === EventType.EVENT_TYPE_SESSION_STOPPED,
    );

/** True once the permission request `requestId` is resolved. */
export const resolvedOf = (requestId: string) => (all: SessionEvent[]) =>
  all.some((e) => e.type === RESOLVED && e.data?.request_id === requestId);

/**
 * The `nth` (from 0) permission request of `all` and its resolution: the
 * request matches `requested`, exactly one PERMISSION_RESOLVED with the same
 * request id and tool follows it in the same turn and matches `resolved`.
 */
export function expectPermission(
  all: SessionEvent[],
  requested: Record<string, unknown>,
  resolved: Record<string, unknown>,
  nth = 0,
): { requested: SessionEvent; resolved: SessionEvent } {
  const why = showEvents(all);
  const req = requestsOf(all)[nth];
  expect(req, `permission request #${nth}:\n${why}`).toBeDefined();
  const id = requestIdOf(req);
  const answers = all.filter((e) => e.type === RESOLVED && e.data?.request_id === id);
  expect(answers, `one PERMISSION_RESOLVED for ${id}:\n${why}`).toHaveLength(1);
  const res = answers[0]!;
  expect(Number(res.seq), why).toBeGreaterThan(Number(req!.seq));
  expect(req!.data, why).toMatchObject(requested);
  expect(res.data, why).toMatchObject({ request_id: id, tool: req!.data?.tool, ...resolved });
  expect(res.turnId, why).toBe(req!.turnId);
  return { requested: req!, resolved: res };
}

/** Every PERMISSION_REQUESTED of `all` has exactly one PERMISSION_RESOLVED after it, and nothing else is resolved. */
export function expectEveryRequestResolved(all: SessionEvent[]): void {
  const why = showEvents(all);
  const asked = requestsOf(all).map((e) => requestIdOf(e));
  const resolved = all.filter((e) => e.type === RESOLVED).map((e) => requestIdOf(e));
  expect(resolved.sort(), why).toEqual([...asked].sort());
}

/** RespondPermission on `client`; resolves with the seq of PERMISSION_RESOLVED. */
export async function respondPermission(
  client: BridgeServiceClient,
  md: Metadata,
  sessionId: string,
  requestId: string,
  decision: keyof typeof DECISION,
  reason = '',
): Promise<bigint> {
  const res = await call(
    client,
    (c) => c.respondPermission,
    { sessionId, requestId, decision: DECISION[decision], reason },
    md,
  );
  return res.seq;
}
