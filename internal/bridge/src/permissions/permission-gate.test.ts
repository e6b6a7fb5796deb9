import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PermissionAsk, PermissionVerdict } from '@agent-bridge/providers';
import { afterAll, describe, expect, it } from 'vitest';
import { BridgeError } from '../errors.js';
import type { BridgeEvent } from '../events/event.js';
import { gateFixture } from '../testing/gate-fixture.js';
import type { Caller } from '../types.js';
import type { PermissionPolicy } from './permission-policy.js';

const root = realpathSync(mkdtempSync(join(tmpdir(), 'gate-')));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const alice: Caller = {
  projectId: 'alpha',
  subject: 'alice',
  identity: { sub: 'alice', iss: 'cp', certIdentity: 'cp-alpha', peer: '127.0.0.1:1' },
};
const bob: Caller = { projectId: 'beta', subject: 'bob' };
const TIMEOUT_MS = 60_000;

const bash: PermissionAsk = {
  tool: 'Bash',
  summary: 'rm -rf build',
  input: { command: 'rm -rf build' },
  options: ['allow_once', 'allow_session', 'deny'],
  toolCallId: 'toolu_1',
  turnId: 'turn-1',
};

function setup(policy: Partial<PermissionPolicy> = {}) {
  const { clock, manager, audit, start } = gateFixture({
    root,
    caller: alice,
    timeoutMs: TIMEOUT_MS,
    policy,
  });
  const respond = (
    caller: Caller,
    sessionId: string,
    requestId: string,
    decision: string,
    reason = '',
  ) =>
    manager.respondPermission(caller, {
      sessionId,
      requestId,
      decision: decision as PermissionVerdict['decision'],
      reason,
    });
  return { clock, manager, audit, start, respond };
}

const ofType = (events: BridgeEvent[], type: BridgeEvent['type']) =>
  events.filter((e) => e.type === type);

async function errorOf(fn: () => unknown): Promise<BridgeError> {
  try {
    await fn();
  } catch (err) {
    if (err instanceof BridgeError) return err;
    throw err;
  }
  throw new Error('expected a BridgeError, the call succeeded');
}

describe('PermissionGate: mode ask', () => {
  it('records the request, waits, and gives the agent the first answer, recorded with who gave it', async () => {
    const { start, respond, audit } = setup();
    const s = await start();
    let verdict: PermissionVerdict | undefined;
    const answered = s.agent.ask(bash).then((v) => {
      verdict = v;
      return v;
    });
    const [requested] = ofType(await s.sofar(), 'PERMISSION_REQUESTED');
    expect(requested).toMatchObject({
      text: 'Bash: rm -rf build',
      turnId: 'turn-1',
      data: {
        request_id: 'perm-1',
        tool: 'Bash',
        summary: 'rm -rf build',
        input: { command: 'rm -rf build' },
        options: ['allow_once', 'allow_session', 'deny'],
        tool_call_id: 'toolu_1',
        mode: 'ask',
        default: 'deny',
        expires_at: new Date(Date.UTC(2025, 0, 1) + TIMEOUT_MS).toISOString(),
      },
    });
    // Reading the events above took several turns of the loop: still no answer.
    expect(verdict).toBeUndefined();

    const seq = respond(alice, s.id, 'perm-1', 'deny', 'not in CI');
    expect(await answered).toEqual({ decision: 'deny', decidedBy: 'caller', reason: 'not in CI' });
    const resolved = ofType(await s.sofar(), 'PERMISSION_RESOLVED');
    expect(resolved).toHaveLength(1);
    expect(resolved[0]).toMatchObject({
      seq,
      turnId: 'turn-1',
      data: {
        request_id: 'perm-1',
        decision: 'deny',
        tool: 'Bash',
        decided_by: 'caller',
        reason: 'not in CI',
        caller: { subject: 'alice', issuer: 'cp', certificate: 'cp-alpha' },
      },
    });
    expect(audit.filter((r) => r.kind === 'permission')).toEqual([
      expect.objectContaining({
        outcome: 'deny',
        reason: 'permission_deny',
        sessionId: s.id,
        identity: alice.identity,
      }),
    ]);
  });

  it('answers a second response FAILED_PRECONDITION, an unknown id NOT_FOUND, another project NOT_FOUND, changing nothing', async () => {
    const { start, respond } = setup();
    const s = await start();
    void s.agent.ask(bash);
    const other = await errorOf(() => respond(bob, s.id, 'perm-1', 'allow_once'));
    expect(other.kind).toBe('not_found');
    expect(other.message).toBe(`session ${s.id} not found`);
    const unknown = await errorOf(() => respond(alice, s.id, 'perm-9', 'allow_once'));
    expect(unknown.kind).toBe('not_found');
    expect(unknown.message).toBe(`permission request perm-9 not found in session ${s.id}`);
    const before = (await s.sofar()).length;

    respond(alice, s.id, 'perm-1', 'allow_once');
    const second = await errorOf(() => respond(alice, s.id, 'perm-1', 'deny'));
    expect(second.kind).toBe('failed_precondition');
    expect(second.message).toBe(
      'permission request perm-1 is already resolved: allow_once (decided by caller)',
    );
    const after = await s.sofar();
    expect(after).toHaveLength(before + 1);
    expect(ofType(after, 'PERMISSION_RESOLVED').map((e) => e.data?.decision)).toEqual([
      'allow_once',
    ]);
  });

  it('refuses malformed answers as invalid_argument before looking anything up', async () => {
    const { start, respond } = setup();
    const s = await start();
    void s.agent.ask(bash);
    const cases: [string, string, string, string][] = [
      ['', 'deny', '', 'request_id must be 1-128 bytes'],
      ['x'.repeat(129), 'deny', '', 'request_id must be 1-128 bytes'],
      ['perm-1', '', '', 'decision must be one of allow_once, allow_session, deny, got ""'],
      [
        'perm-1',
        'allow',
        '',
        'decision must be one of allow_once, allow_session, deny, got "allow"',
      ],
      ['perm-1', 'deny', 'r'.repeat(1025), 'reason is 1025 bytes; the limit is 1024'],
    ];
    for (const [requestId, decision, reason, message] of cases) {
      const err = await errorOf(() => respond(alice, s.id, requestId, decision, reason));
      expect(err.kind, message).toBe('invalid_argument');
      expect(err.message).toContain(message);
    }
    expect(ofType(await s.sofar(), 'PERMISSION_RESOLVED')).toHaveLength(0);
  });

  it('refuses a decision the agent does not offer, and the request stays open', async () => {
    const { start, respond } = setup();
    const s = await start();
    const answered = s.agent.ask({ ...bash, options: ['deny'] });
    const err = await errorOf(() => respond(alice, s.id, 'perm-1', 'allow_once'));
    expect(err.kind).toBe('failed_precondition');
    expect(err.message).toBe(
      'the agent does not offer allow_once for permission request perm-1 (it offers deny)',
    );
    respond(alice, s.id, 'perm-1', 'deny');
    expect((await answered).decision).toBe('deny');
  });

  it('falls to permission_default after permission_timeout, recorded as "timeout"', async () => {
    for (const fallback of ['deny', 'allow'] as const) {
      const { clock, start, respond } = setup({ fallback });
      const s = await start();
      const answered = s.agent.ask(bash);
      clock.advance(TIMEOUT_MS - 1);
      expect(ofType(await s.sofar(), 'PERMISSION_RESOLVED')).toHaveLength(0);
      clock.advance(1);
      const decision = fallback === 'allow' ? 'allow_once' : 'deny';
      expect(await answered).toEqual({ decision, decidedBy: 'timeout', reason: '' });
      expect(ofType(await s.sofar(), 'PERMISSION_RESOLVED')[0]?.data).toMatchObject({
        decision,
        decided_by: 'timeout',
      });
      const late = await errorOf(() => respond(alice, s.id, 'perm-1', 'allow_once'));
      expect(late.message).toBe(
        `permission request perm-1 is already resolved: ${decision} (decided by timeout)`,
      );
    }
  });

  it('an allow default is never widened: deny when the agent offers no allow', async () => {
    const { clock, start } = setup({ fallback: 'allow' });
    const s = await start();
    const answered = s.agent.ask({ ...bash, options: ['deny'] });
    clock.advance(TIMEOUT_MS);
    expect((await answered).decision).toBe('deny');
  });

  it('allow_session answers later requests of the same tool, each still recorded', async () => {
    const { start, respond } = setup();
    const s = await start();
    const first = s.agent.ask(bash);
    respond(alice, s.id, 'perm-1', 'allow_session');
    expect((await first).decision).toBe('allow_session');
    expect(await s.agent.ask(bash)).toEqual({
      decision: 'allow_once',
      decidedBy: 'session_grant',
      reason: '',
    });
    const other = s.agent.ask({ ...bash, tool: 'Write' });
    const events = await s.sofar();
    expect(ofType(events, 'PERMISSION_REQUESTED').map((e) => e.data?.request_id)).toEqual([
      'perm-1',
      'perm-2',
      'perm-3',
    ]);
    expect(ofType(events, 'PERMISSION_RESOLVED').map((e) => e.data?.decided_by)).toEqual([
      'caller',
      'session_grant',
    ]);
    respond(alice, s.id, 'perm-3', 'deny');
    expect((await other).decision).toBe('deny');
  });
});

describe('PermissionGate: nothing is left hanging', () => {
  it('an interrupt refuses waiting requests, even with an allow default, and what its turn asks later; the next turn asks as usual', async () => {
    const { manager, start } = setup({ fallback: 'allow' });
    const s = await start();
    const answered = s.agent.ask(bash);
    await manager.interrupt(alice, s.id);
    expect(await answered).toMatchObject({ decision: 'deny', decidedBy: 'interrupt' });
    // The turn is being cancelled: nothing more is granted in it.
    expect(await s.agent.ask(bash)).toMatchObject({ decision: 'deny', decidedBy: 'interrupt' });
    const next = s.agent.ask({ ...bash, turnId: 'turn-2' });
    expect(ofType(await s.sofar(), 'PERMISSION_REQUESTED').at(-1)?.data?.default).toBe(
      'allow_once',
    );
    void next;
  });

  it("a turn that ends refuses its own waiting requests before its TURN_COMPLETED, not another turn's", async () => {
    const { start } = setup({ fallback: 'allow' });
    const s = await start();
    const mine = s.agent.ask(bash);
    const other = s.agent.ask({ ...bash, turnId: 'turn-2' });
    s.agent.completeTurn('turn-1', true);
    expect(await mine).toMatchObject({ decision: 'deny', decidedBy: 'interrupt' });
    s.agent.completeTurn('turn-2');
    expect(await other).toMatchObject({ decision: 'deny', decidedBy: 'turn_end' });
    const types = (await s.sofar()).map((e) => `${e.type}:${e.turnId}`);
    expect(types.slice(-4)).toEqual([
      'PERMISSION_RESOLVED:turn-1',
      'TURN_COMPLETED:turn-1',
      'PERMISSION_RESOLVED:turn-2',
      'TURN_COMPLETED:turn-2',
    ]);
  });

  it('a stop resolves waiting requests ("stop") before the terminal event', async () => {
    const { manager, start } = setup();
    const s = await start();
    const answered = s.agent.ask(bash);
    await manager.stop(alice, s.id, false);
    expect(await answered).toMatchObject({ decision: 'deny', decidedBy: 'stop' });
    const events = await s.history();
    const types = events.map((e) => e.type);
    expect(types.indexOf('PERMISSION_RESOLVED')).toBeLessThan(types.indexOf('SESSION_STOPPED'));
  });

  it('shutdown resolves them as "shutdown"', async () => {
    const { manager, start } = setup();
    const s = await start();
    const answered = s.agent.ask(bash);
    await manager.shutdown();
    expect(await answered).toMatchObject({ decision: 'deny', decidedBy: 'shutdown' });
  });

  it('the agent exiting resolves them as "exit", recorded before the terminal event', async () => {
    const { start } = setup({ fallback: 'allow' });
    const s = await start();
    const answered = s.agent.ask(bash);
    s.agent.exit({ exitCode: 1, signal: null });
    expect(await answered).toMatchObject({ decision: 'allow_once', decidedBy: 'exit' });
    const types = (await s.history()).map((e) => e.type);
    expect(types.slice(-2)).toEqual(['PERMISSION_RESOLVED', 'SESSION_FAILED']);
  });
});

describe('PermissionGate: decided without asking', () => {
  it('permissions: allow and deny answer at once, recorded as "policy"', async () => {
    for (const [mode, decision] of [
      ['allow', 'allow_once'],
      ['deny', 'deny'],
    ] as const) {
      const { start } = setup({ mode });
      const s = await start();
      expect(await s.agent.ask(bash)).toEqual({ decision, decidedBy: 'policy', reason: '' });
      const events = await s.sofar();
      const requested = ofType(events, 'PERMISSION_REQUESTED')[0];
      expect(requested?.data).toMatchObject({ mode });
      expect(requested?.data).not.toHaveProperty('expires_at');
      expect(ofType(events, 'PERMISSION_RESOLVED')[0]?.data).toMatchObject({
        decision,
        decided_by: 'policy',
      });
    }
  });

  it('auto_allow matches names and * patterns, in every mode', async () => {
    for (const mode of ['ask', 'deny'] as const) {
      const { start } = setup({ mode, autoAllow: ['Read', 'mcp__docs__*'] });
      const s = await start();
      for (const tool of ['Read', 'mcp__docs__search']) {
        expect(await s.agent.ask({ ...bash, tool })).toMatchObject({
          decision: 'allow_once',
          decidedBy: 'auto_allow',
        });
      }
      // Not a prefix match: "ReadAll" is another tool.
      const other = s.agent.ask({ ...bash, tool: 'ReadAll' });
      if (mode === 'deny') expect((await other).decision).toBe('deny');
      else expect(ofType(await s.sofar(), 'PERMISSION_RESOLVED')).toHaveLength(2);
    }
  });
});
