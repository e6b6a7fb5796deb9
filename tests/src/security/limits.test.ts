/**
 * Catalogue rows D1 and R1 at configured limits: session limits under
 * concurrency, and the config keys that bound abuse:
 * `sessions.max_per_project`, `sessions.max_global` and
 * `input.max_size_bytes` are honoured exactly, each refusal audited.
 */
import { randomUUID } from 'node:crypto';
import { collect, descendants, status, useDaemon, waitFor } from '@agent-bridge/harness';
import { EventType, SessionStatus } from '@agent-bridge/proto';
import type { Metadata } from '@grpc/grpc-js';
import { beforeAll, describe, expect, it } from 'vitest';
import { outcome } from './helpers.js';

const PER_PROJECT = 3;
const GLOBAL = 5;
const MAX_INPUT = 1024;

const bridge = useDaemon({
  config: {
    sessions: { max_per_project: PER_PROJECT, max_global: GLOBAL },
    input: { max_size_bytes: MAX_INPUT },
  },
});
const md: Record<string, Metadata> = {};
let baseChildren: number;
const live: { p1: string[]; p2: string[] } = { p1: [], p2: [] };

beforeAll(async () => {
  for (const p of ['p1', 'p2', 'p3']) md[p] = await bridge.bearerFor(p);
  baseChildren = descendants(bridge.daemon.pid).length;
});

const startFor = (project: string, sessionId: string = randomUUID()) =>
  outcome(
    bridge.call(
      (c) => c.startSession,
      {
        projectId: project,
        sessionId,
        repoPath: bridge.daemon.repo,
        provider: 'mock',
        agentOpts: {},
      },
      md[project]!,
    ),
  ).then((r) => ({ ...r, sessionId }));

const children = () => descendants(bridge.daemon.pid).length - baseChildren;

async function listIds(project: string, running = true): Promise<string[]> {
  const list = await bridge.call(
    (c) => c.listSessions,
    {
      projectId: '',
      statuses: running ? [SessionStatus.SESSION_STATUS_RUNNING] : [],
      pageSize: 1000,
      pageToken: '',
    },
    md[project]!,
  );
  return list.sessions.map((s) => s.sessionId).sort();
}

describe('session limits under concurrency', () => {
  it(`D1 100 concurrent starts for one project: exactly ${PER_PROJECT} succeed, the rest RESOURCE_EXHAUSTED`, async () => {
    const mark = bridge.daemon.audit.mark();
    const results = await Promise.all(Array.from({ length: 100 }, () => startFor('p1')));
    const ok = results.filter((r) => r.code === 'ok');
    const exhausted = results.filter((r) => r.code === status.RESOURCE_EXHAUSTED);
    expect(ok).toHaveLength(PER_PROJECT);
    expect(exhausted).toHaveLength(100 - PER_PROJECT);
    for (const r of exhausted) expect(r.details).toMatch(/limit 3/);
    const calls = bridge.daemon.audit.since(mark).filter((r) => r.kind === 'call');
    expect(calls.filter((r) => r.outcome === 'allow')).toHaveLength(PER_PROJECT);
    const denied = calls.filter((r) => r.outcome === 'deny');
    expect(denied).toHaveLength(100 - PER_PROJECT);
    expect(new Set(denied.map((r) => r.reason))).toEqual(new Set(['project_session_limit']));
    live.p1 = ok.map((r) => r.sessionId).sort();
    expect(await listIds('p1')).toEqual(live.p1);
    expect(await listIds('p1', false)).toEqual(live.p1); // no half-made sessions retained
    expect(children()).toBe(PER_PROJECT);
  });

  it('D1 20 concurrent identical retries at the limit return the existing session and spawn nothing', async () => {
    const id = live.p1[0]!;
    const results = await Promise.all(Array.from({ length: 20 }, () => startFor('p1', id)));
    expect(results.map((r) => r.code)).toEqual(Array(20).fill('ok'));
    expect(children()).toBe(PER_PROJECT);
    expect(await listIds('p1')).toEqual(live.p1);
  });

  it(`D1 another project starts ${GLOBAL - PER_PROJECT} more, then the global limit hits everyone`, async () => {
    const results = await Promise.all(Array.from({ length: 30 }, () => startFor('p2')));
    const ok = results.filter((r) => r.code === 'ok');
    expect(ok).toHaveLength(GLOBAL - PER_PROJECT);
    const rest = results.filter((r) => r.code !== 'ok');
    expect(rest.every((r) => r.code === status.RESOURCE_EXHAUSTED)).toBe(true);
    live.p2 = ok.map((r) => r.sessionId).sort();
    expect(children()).toBe(GLOBAL);

    const p2again = await startFor('p2');
    const mark = bridge.daemon.audit.mark();
    const p3 = await startFor('p3');
    expect(p2again.code).toBe(status.RESOURCE_EXHAUSTED);
    expect(p3.code).toBe(status.RESOURCE_EXHAUSTED);
    expect(bridge.daemon.audit.since(mark)).toMatchObject([
      { kind: 'call', method: 'StartSession', outcome: 'deny', reason: 'global_session_limit' },
    ]);
    expect(p3.details).toMatch(/limit 5/);
    expect(await listIds('p3', false)).toEqual([]);
    expect(children()).toBe(GLOBAL);
  });

  it('D1 stopping one session frees exactly one slot', async () => {
    const victim = live.p1.pop()!;
    await bridge.call((c) => c.stopSession, { sessionId: victim, force: false }, md.p1!);
    await waitFor(`${GLOBAL - 1} agents`, () => children() === GLOBAL - 1);

    const results = await Promise.all([startFor('p3'), startFor('p3'), startFor('p3')]);
    expect(results.filter((r) => r.code === 'ok')).toHaveLength(1);
    expect(results.filter((r) => r.code === status.RESOURCE_EXHAUSTED)).toHaveLength(2);
    expect(children()).toBe(GLOBAL);
    // The stopped session is retained (readable) but does not hold a slot.
    const stopped = await bridge.call((c) => c.getSession, { sessionId: victim }, md.p1!);
    expect(stopped.status).toBe(SessionStatus.SESSION_STATUS_STOPPED);
  });
});

describe('R1 input.max_size_bytes is honoured (1024 here)', () => {
  const cases: [string, string, boolean][] = [
    ['1024 × "a"', 'a'.repeat(1024), true],
    ['1025 × "a"', 'a'.repeat(1025), false],
    ['341 × "€" + "a" = 1024 B', `${'€'.repeat(341)}a`, true],
    ['341 × "€" + "é" = 1025 B', `${'€'.repeat(341)}é`, false],
    ['2000 × "a" (under the default, over the configured limit)', 'a'.repeat(2000), false],
  ];
  it.each(cases)('R1 %s', async (_name, text, ok) => {
    const sessionId = live.p1[0]!;
    const seq0 = (await bridge.call((c) => c.getSession, { sessionId }, md.p1!)).lastSeq;
    const mark = bridge.daemon.audit.mark();
    const r = await outcome(
      bridge.call((c) => c.sendInput, { sessionId, text, idempotencyKey: '' }, md.p1!),
    );
    const record = bridge.daemon.audit.since(mark);
    const seq1 = (await bridge.call((c) => c.getSession, { sessionId }, md.p1!)).lastSeq;
    if (ok) {
      expect(r.code).toBe('ok');
      expect(seq1).toBeGreaterThan(seq0);
      // Let the mock finish answering, so the next case starts from a quiet ring.
      await collect(
        bridge.stream({ sessionId, afterSeq: seq0 }, md.p1!),
        (e) => e.type === EventType.EVENT_TYPE_TURN_COMPLETED,
      );
    } else {
      expect(r.code).toBe(status.INVALID_ARGUMENT);
      expect(r.details).toMatch(/1024/);
      expect(record).toMatchObject([
        { kind: 'call', method: 'SendInput', outcome: 'deny', reason: 'input_too_large' },
      ]);
      expect(seq1).toBe(seq0);
    }
  });
});
