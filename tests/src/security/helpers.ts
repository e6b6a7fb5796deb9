/**
 * Shared oracle for the security tests: every rejected input gets its exact
 * gRPC code, a message that never echoes the token, and no state change
 * (session list, agent processes, ring seq, daemon alive).
 */
import { randomUUID } from 'node:crypto';
import {
  type AuditLine,
  type BridgeOptions,
  call,
  type DaemonFixture,
  descendants,
  isAlive,
  useDaemon,
} from '@agent-bridge/harness';
import type { Metadata, ServiceError } from '@grpc/grpc-js';
import { beforeAll, expect } from 'vitest';

export interface World extends DaemonFixture {
  /** A running mock session of the default project, used to watch its ring seq. */
  readonly ref: string;
}

/**
 * `useDaemon` plus one reference session: a `beforeAll` starts a running
 * mock session of the default project after the daemon is up.
 */
export function useWorld(opts: BridgeOptions | ((scratch: string) => BridgeOptions) = {}): World {
  const d = useDaemon(opts);
  const ref = randomUUID();
  beforeAll(async () => {
    await d.call((c) => c.startSession, {
      projectId: d.project,
      sessionId: ref,
      repoPath: d.daemon.repo,
      provider: 'mock',
      agentOpts: {},
    });
  });
  return Object.defineProperty(d, 'ref', { value: ref, enumerable: true }) as World;
}

export interface State {
  sessions: string[];
  children: number;
  refLastSeq: bigint;
  daemonAlive: boolean;
}

/** What must not change when a request is rejected. */
export async function snapshot(w: World, md: Metadata = w.md): Promise<State> {
  const list = await call(
    w.client,
    (c) => c.listSessions,
    { projectId: '', statuses: [], pageSize: 1000, pageToken: '' },
    md,
  );
  const ref = await call(w.client, (c) => c.getSession, { sessionId: w.ref }, w.md);
  return {
    sessions: list.sessions.map((s) => `${s.sessionId}:${s.status}`).sort(),
    children: descendants(w.daemon.pid).length,
    refLastSeq: ref.lastSeq,
    daemonAlive: isAlive(w.daemon.pid),
  };
}

export async function expectUnchanged(w: World, before: State): Promise<void> {
  const after = await snapshot(w);
  expect(after).toEqual(before);
  expect(after.daemonAlive).toBe(true);
}

export interface Rejection {
  code: number | 'ok';
  details: string;
  message: string;
}

/** Settles a call: its code and messages, or 'ok'. */
export async function outcome(p: Promise<unknown>): Promise<Rejection> {
  try {
    await p;
    return { code: 'ok', details: '', message: '' };
  } catch (err) {
    const e = err as ServiceError;
    return { code: e.code, details: e.details ?? '', message: e.message ?? '' };
  }
}

/** Fails when `text` contains the token or any substantial part of it. */
export function expectNoSecret(text: string, secrets: readonly string[]): void {
  for (const s of secrets) {
    for (const part of [s, ...s.split('.')]) {
      if (part.length >= 12) expect(text).not.toContain(part);
    }
  }
}

/**
 * The audit records written since `mark` are exactly one: the refusal of
 * a `method` call with `reason`. Returns it for further checks.
 */
export function expectCallDenied(
  w: DaemonFixture,
  mark: number,
  method: string,
  reason: string,
): AuditLine {
  const records = w.daemon.audit.since(mark);
  expect(records).toMatchObject([{ kind: 'call', method, outcome: 'deny', reason }]);
  return records[0]!;
}
