/**
 * F16: every pending permission request is resolved one way or another in
 * every fault case. A mock agent behind `permissions: ask` waits on a
 * request when the turn is interrupted, the session is stopped, the agent
 * is killed with SIGKILL, the daemon gets SIGTERM, or the request's
 * `permission_timeout` passes: each time the request is resolved by
 * `permission_default` (deny, or allow where configured) with the cause as
 * `decided_by`, before the event that ends the turn or the session; the
 * PERMISSION_REQUESTED/RESOLVED pair is complete, the decision is audited,
 * a late answer is refused, and no process is left.
 */

import {
  asked,
  type Bridge,
  codeOf,
  type EventWatch,
  expectEveryRequestResolved,
  expectPermission,
  leftoverGroups,
  ofType,
  requestIdOf,
  requestsOf,
  respondPermission,
  showEvents,
  showGroups,
  startBridge,
  status,
  useDaemon,
  waitFor,
  watchEvents,
  within,
} from '@agent-bridge/harness';
import { EventType, type SessionEvent, SessionStatus } from '@agent-bridge/proto';
import { describe, expect, it } from 'vitest';

const T = EventType;
const ask = { adapter: 'mock', permissions: 'ask' };
/** Each fault with the default permission_default (deny) and with permission_default: allow. */
const PROVIDERS = {
  mock_ask: ask,
  mock_ask_allow: { ...ask, permission_default: 'allow' },
  mock_ask_1s: { ...ask, permission_timeout: '1s' },
  mock_ask_1s_allow: { ...ask, permission_timeout: '1s', permission_default: 'allow' },
};
/** [the decision permission_default gives, the provider with `permission_timeout` 5m, the one with 1s]. */
const DEFAULTS = [
  ['deny', 'mock_ask', 'mock_ask_1s'],
  ['allow_once', 'mock_ask_allow', 'mock_ask_1s_allow'],
] as const;
type Decision = (typeof DEFAULTS)[number][0];

const bridge = useDaemon({ config: { providers: PROVIDERS } });

const isTerminal = (e: SessionEvent) =>
  e.type === T.EVENT_TYPE_SESSION_STOPPED || e.type === T.EVENT_TYPE_SESSION_FAILED;

/**
 * A session of `provider` whose agent waits on a permission request (its
 * "/tool Bash ls" turn), with a subscriber streaming its events from the start.
 */
async function pending(b: Pick<Bridge, 'sessions' | 'stream' | 'daemon'>, provider: string) {
  const s = await b.sessions().start(provider);
  const watch = watchEvents(b.stream({ sessionId: s.sessionId, afterSeq: 0n }));
  const started = await watch.until('SESSION_STARTED', (all) =>
    all.some((e) => e.type === T.EVENT_TYPE_SESSION_STARTED),
  );
  const pid = Number(ofType(started, T.EVENT_TYPE_SESSION_STARTED)[0]?.data?.pid);
  expect(pid).toBeGreaterThan(1);
  const mark = b.daemon.audit.mark();
  await s.send('/tool Bash ls -la');
  const all = await watch.until('the permission request', asked(1));
  const request = requestsOf(all)[0];
  const requestId = requestIdOf(request);
  expect(request?.data).toMatchObject({ tool: 'Bash', mode: 'ask', summary: 'ls -la' });
  return { s, watch, pid, mark, requestId, decision: request?.data?.default as Decision };
}

/**
 * The request was resolved by `decision` with `decidedBy` before the event
 * `before` matches; every request of the session is resolved once; the
 * decision is in the audit log, named for the session's starter.
 */
async function expectSettled(
  b: Pick<Bridge, 'daemon'>,
  p: Awaited<ReturnType<typeof pending>>,
  all: SessionEvent[],
  decision: Decision,
  decidedBy: string,
  before: (e: SessionEvent) => boolean,
  /** The default the request announced: `decision` unless the cause overrides it. */
  announced: Decision = decision,
): Promise<void> {
  expect(p.decision).toBe(announced);
  const { resolved } = expectPermission(
    all,
    { request_id: p.requestId, default: announced },
    { decision, decided_by: decidedBy },
  );
  expect(resolved.data?.caller).toBeUndefined();
  expectEveryRequestResolved(all);
  const end = all.findIndex(before);
  expect(end, showEvents(all)).toBeGreaterThan(all.indexOf(resolved));
  const [record] = await b.daemon.audit.waitFor(
    `the ${decidedBy} decision of ${p.requestId}`,
    (r) => r.kind === 'permission' && r.session_id === p.s.sessionId,
    p.mark,
  );
  expect(record).toMatchObject({
    outcome: decision === 'deny' ? 'deny' : 'allow',
    reason: decision === 'deny' ? 'permission_deny' : 'permission_allow',
    sub: 'tester',
    cert_identity: 'control-plane',
    detail: `Bash ${p.requestId}: ${decision} by ${decidedBy}`,
  });
}

/** A late answer is refused (FAILED_PRECONDITION, saying how it was resolved). */
async function expectLateAnswerRefused(
  b: Pick<Bridge, 'client' | 'md'>,
  p: Awaited<ReturnType<typeof pending>>,
  decision: Decision,
  decidedBy: string,
): Promise<void> {
  const late = respondPermission(b.client, b.md, p.s.sessionId, p.requestId, 'allow_once');
  expect(await codeOf(late)).toBe(status.FAILED_PRECONDITION);
  expect(await late.catch((e: Error) => e.message)).toContain(
    `permission request ${p.requestId} is already resolved: ${decision} (decided by ${decidedBy})`,
  );
}

/** The agent's process group is gone. */
const expectNoProcess = (pid: number) =>
  waitFor(
    () => `agent group ${pid} to be gone (${showGroups(leftoverGroups([pid]))})`,
    () => leftoverGroups([pid]).size === 0,
  );

/** Stops a session still running and checks its process goes. */
async function stopAndCheck(p: Awaited<ReturnType<typeof pending>>, watch: EventWatch) {
  await p.s.stop();
  const { events } = await watch.ended();
  expect(events.at(-1)?.type).toBe(T.EVENT_TYPE_SESSION_STOPPED);
  await expectNoProcess(p.pid);
}

/** What the mock says of its tool once answered: it quotes a refusal, it notes an allow. */
const toolNote = (decision: Decision, decidedBy: string) =>
  decision === 'deny'
    ? `Bash was denied (denied by the bridge (${decidedBy}))`
    : 'Bash was allowed';

describe('F16 a pending permission request is always resolved', () => {
  it.each(DEFAULTS)(
    'F16a InterruptTurn → denied by interrupt whatever the default (permission_default %s), the turn ends interrupted',
    async (announced, provider) => {
      // A cancelled turn's requests are refused, never allowed by the default.
      const decision = 'deny';
      const p = await pending(bridge, provider);
      const res = await bridge.call((c) => c.interruptTurn, { sessionId: p.s.sessionId });
      expect(res.interrupted).toBe(true);
      const all = await p.watch.until('the turn to end', (a) =>
        a.some((e) => e.type === T.EVENT_TYPE_TURN_COMPLETED),
      );
      const done = ofType(all, T.EVENT_TYPE_TURN_COMPLETED)[0];
      expect(done).toMatchObject({ turnId: res.turnId, data: { status: 'interrupted' } });
      await expectSettled(bridge, p, all, decision, 'interrupt', (e) => e === done, announced);
      expect(ofType(all, T.EVENT_TYPE_PERMISSION_RESOLVED)[0]?.turnId).toBe(res.turnId);
      await expectLateAnswerRefused(bridge, p, decision, 'interrupt');
      // The session lives on and takes the next turn.
      expect((await p.s.get()).status).toBe(SessionStatus.SESSION_STATUS_RUNNING);
      await stopAndCheck(p, p.watch);
    },
  );

  it.each(DEFAULTS)(
    'F16b StopSession → decided_by stop (permission_default %s), recorded before SESSION_STOPPED',
    async (decision, provider) => {
      const p = await pending(bridge, provider);
      await p.s.stop();
      const { events, error } = await p.watch.ended();
      expect(error).toBeUndefined();
      const last = events.at(-1)!;
      expect(last).toMatchObject({
        type: T.EVENT_TYPE_SESSION_STOPPED,
        data: { reason: 'stop_requested' },
      });
      await expectSettled(bridge, p, events, decision, 'stop', (e) => e === last);
      await expectLateAnswerRefused(bridge, p, decision, 'stop');
      await expectNoProcess(p.pid);
    },
  );

  it.each(DEFAULTS)(
    'F16c the agent killed with SIGKILL → decided_by exit (permission_default %s), recorded before SESSION_FAILED',
    async (decision, provider) => {
      const p = await pending(bridge, provider);
      process.kill(p.pid, 'SIGKILL');
      const { events, error } = await p.watch.ended();
      expect(error).toBeUndefined();
      const last = events.at(-1)!;
      expect(last).toMatchObject({
        type: T.EVENT_TYPE_SESSION_FAILED,
        data: { signal: 'SIGKILL' },
      });
      await expectSettled(bridge, p, events, decision, 'exit', (e) => e === last);
      await expectLateAnswerRefused(bridge, p, decision, 'exit');
      await expectNoProcess(p.pid);
    },
  );

  it.each(DEFAULTS)(
    'F16e permission_timeout 1s elapsed → decided_by timeout (permission_default %s); the agent gets it and the turn goes on',
    async (decision, _provider, provider) => {
      const p = await pending(bridge, provider);
      const all = await p.watch.until('the turn to end', (a) =>
        a.some((e) => e.type === T.EVENT_TYPE_TURN_COMPLETED),
      );
      const done = ofType(all, T.EVENT_TYPE_TURN_COMPLETED)[0];
      expect(done?.data).toMatchObject({ status: 'completed' });
      await expectSettled(bridge, p, all, decision, 'timeout', (e) => e === done);
      const expires = Date.parse(String(requestsOf(all)[0]?.data?.expires_at));
      expect(done?.timestamp?.getTime()).toBeGreaterThanOrEqual(expires);
      // What the agent was told, in its own reply.
      expect(ofType(all, T.EVENT_TYPE_AGENT_MESSAGE).at(-1)?.text).toContain(
        toolNote(decision, 'timeout'),
      );
      await expectLateAnswerRefused(bridge, p, decision, 'timeout');
      await stopAndCheck(p, p.watch);
    },
  );
});

describe('F16d daemon SIGTERM with requests pending', () => {
  it('F16d each streaming subscriber gets PERMISSION_RESOLVED "shutdown" (permission_default deny and allow) before SESSION_STOPPED; the daemon exits 0, nothing left', async () => {
    // On memory: nothing to resume, so SIGTERM stops the sessions (on the
    // durable store they would be left live: native-resume.test.ts).
    const b = await startBridge({
      config: { providers: PROVIDERS, storage: { backend: 'memory' } },
    });
    try {
      const waiting = [];
      for (const [decision, provider] of DEFAULTS) {
        waiting.push({ decision, p: await pending(b, provider) });
      }
      b.daemon.proc.kill('SIGTERM');
      for (const { decision, p } of waiting) {
        const { events, error } = await p.watch.ended();
        expect(error).toBeUndefined();
        const last = events.at(-1)!;
        expect(isTerminal(last), showEvents(events)).toBe(true);
        expect(last).toMatchObject({
          type: T.EVENT_TYPE_SESSION_STOPPED,
          data: { reason: 'shutdown' },
        });
        await expectSettled(b, p, events, decision, 'shutdown', (e) => e === last);
      }
      const { code } = await within('the daemon to exit', b.daemon.exited, 20_000);
      expect(code).toBe(0);
      for (const { p } of waiting) await expectNoProcess(p.pid);
    } finally {
      await b.close();
    }
  });
});
