import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  call,
  codeOf,
  expectPermission,
  groupMembers,
  isAlive,
  listedOnceProbed,
  ofType,
  REPO_ROOT,
  requestIdOf,
  sessionClient,
  status,
  type TestDaemon,
  useDaemon,
  waitFor,
} from '@agent-bridge/harness';
import {
  type BridgeServiceClient,
  EventType,
  ProviderAuthState,
  type SessionEvent,
  SessionStatus,
} from '@agent-bridge/proto';
import type { Metadata } from '@grpc/grpc-js';
import { beforeAll, describe, expect, it } from 'vitest';
import { gateCases } from './gate-cases.js';

// The codex adapter end to end: the real daemon over mTLS + JWT, driving
// tests/fixtures/fake-codex.mjs (the app-server protocol of codex 0.169).

const FAKE_CODEX = join(REPO_ROOT, 'tests/fixtures/fake-codex.mjs');
const T = EventType;

const codex = (extra: Record<string, unknown> = {}, env: Record<string, string> = {}) => ({
  adapter: 'codex',
  binary: FAKE_CODEX,
  ...extra,
  env,
});

// The fake records what it was sent (thread/start parameters) in logs under the scratch directory.
const bridge = useDaemon((logs) => ({
  config: {
    sessions: { max_per_project: 20, max_global: 20 },
    providers: {
      codex: codex({}, { FAKE_CODEX_LOG: join(logs, 'codex.log') }),
      codex_allow: codex({ permissions: 'allow' }),
      codex_ask: codex({ permissions: 'ask' }, { FAKE_CODEX_LOG: join(logs, 'ask.log') }),
      codex_ask_timeout: codex(
        { permissions: 'ask', permission_timeout: '1s' },
        { FAKE_CODEX_LOG: join(logs, 'ask-timeout.log') },
      ),
      codex_auto: codex({ permissions: 'ask', auto_allow: ['commandExecution'] }),
      codex_login: codex({}, { FAKE_CODEX_LOGGED_IN: '1' }),
      codex_auth: codex({}, { FAKE_CODEX_SCENARIO: 'auth-failure' }),
      codex_storm: codex({ turn_timeout: '2s' }, { FAKE_CODEX_SCENARIO: 'retry-storm' }),
      codex_crash: codex({}, { FAKE_CODEX_SCENARIO: 'crash-mid-turn' }),
      codex_stubborn: codex({}, { FAKE_CODEX_SCENARIO: 'ignore-sigterm' }),
      codex_noise: codex({}, { FAKE_CODEX_SCENARIO: 'malformed' }),
      codex_helper: codex({}, { FAKE_CODEX_SCENARIO: 'grandchild' }),
      codex_flood: codex({}, { FAKE_CODEX_SCENARIO: 'flood', FAKE_CODEX_FLOOD: '3000' }),
      codex_opts: codex({}, { FAKE_CODEX_LOG: join(logs, 'opts.log') }),
      codex_full: codex(
        { default_opts: { sandbox: 'danger-full-access', approval_policy: 'never' } },
        { FAKE_CODEX_LOG: join(logs, 'full.log') },
      ),
    },
  },
}));
let client: BridgeServiceClient;
let md: Metadata;
let daemon: TestDaemon;
let logDir: string;
beforeAll(() => {
  ({ client, md, daemon, scratch: logDir } = bridge);
});

const sessions = () => sessionClient(client, md, { projectId: 'alpha', repoPath: daemon.repo });
const start = (provider: string, agentOpts: Record<string, string> = {}) =>
  sessions().start(provider, agentOpts);
const send = (id: string, text: string) => sessions().session(id).send(text);
const interrupt = (id: string) => sessions().session(id).interrupt();
const stop = (id: string, force = false) => sessions().session(id).stop(force);
const get = (id: string) => sessions().session(id).get();
const eventsUntil = (id: string, until?: (all: SessionEvent[]) => boolean) =>
  sessions().session(id).events(until);
const count = (type: EventType) => (all: SessionEvent[]) =>
  all.filter((e) => e.type === type).length;
const completedTurns = (n: number) => (all: SessionEvent[]) =>
  count(T.EVENT_TYPE_TURN_COMPLETED)(all) >= n;
const readLog = (name: string) =>
  readFileSync(join(logDir, name), 'utf8')
    .trim()
    .split('\n')
    .map(
      (l) =>
        JSON.parse(l) as {
          method?: string;
          params?: Record<string, unknown>;
          result?: Record<string, unknown>;
        },
    );
/** The decision of the last approval answer the fake codex read (its log `name`). */
const lastDecision = (name: string) =>
  readLog(name)
    .filter((m) => typeof m.result?.decision === 'string')
    .at(-1)?.result?.decision;
/** What codex's command approval of a USE_TOOL turn carries in PERMISSION_REQUESTED. */
const CODEX_COMMAND = {
  request_id: expect.stringMatching(/^perm-\d+$/),
  tool: 'commandExecution',
  summary: "/bin/bash -lc 'touch codex_created.txt'",
  input: { command: "/bin/bash -lc 'touch codex_created.txt'", cwd: expect.any(String) },
  options: ['allow_once', 'allow_session', 'deny'],
  tool_call_id: expect.stringMatching(/^call_/),
  approval_request: 'item/commandExecution/requestApproval',
};

describe('codex adapter through the daemon', () => {
  it('ListProviders shows the version, capabilities and the login-status auth state', async () => {
    // Probes run in the background: wait until both providers' have answered.
    const providers = await listedOnceProbed(
      () => call(client, (c) => c.listProviders, {}, md),
      ['codex', 'codex_login'],
    );
    const plain = providers.find((p) => p.id === 'codex');
    expect(plain).toMatchObject({
      available: true,
      version: '0.169.0',
      binaryPath: FAKE_CODEX,
      authState: ProviderAuthState.PROVIDER_AUTH_STATE_UNAUTHENTICATED,
      capabilities: {
        structuredEvents: true,
        multiTurn: true,
        interrupt: true,
        permissionRequests: true,
      },
    });
    expect(plain?.authDetail).toContain('not logged in');
    expect(providers.find((p) => p.id === 'codex_login')).toMatchObject({
      authState: ProviderAuthState.PROVIDER_AUTH_STATE_AUTHENTICATED,
      authDetail: 'logged in using an API key',
    });
  });

  it('streams a text turn as deltas and a message, then a second turn on the same thread', async () => {
    const { sessionId } = await start('codex');
    const thread = readLog('codex.log').find((m) => m.method === 'thread/start');
    expect(thread?.params).toEqual({
      cwd: daemon.repo,
      approvalPolicy: 'untrusted',
      sandbox: 'read-only',
    });

    await send(sessionId, 'hello there');
    const first = await eventsUntil(sessionId, completedTurns(1));
    const turnId = ofType(first, T.EVENT_TYPE_TURN_STARTED)[0]?.turnId ?? '';
    expect(turnId).toMatch(/^[0-9a-f]{8}-/);
    const turn = first.filter((e) => e.turnId === turnId);
    expect(turn.map((e) => e.type)).toEqual([
      T.EVENT_TYPE_TURN_STARTED,
      ...ofType(first, T.EVENT_TYPE_AGENT_MESSAGE_DELTA).map(
        () => T.EVENT_TYPE_AGENT_MESSAGE_DELTA,
      ),
      T.EVENT_TYPE_AGENT_MESSAGE,
      T.EVENT_TYPE_TURN_COMPLETED,
    ]);
    const deltas = ofType(turn, T.EVENT_TYPE_AGENT_MESSAGE_DELTA);
    expect(deltas.length).toBeGreaterThan(3);
    const message = ofType(turn, T.EVENT_TYPE_AGENT_MESSAGE)[0];
    expect(message?.text).toBe('Hello from fake codex. You said: hello there');
    expect(deltas.map((e) => e.text).join('')).toBe(message?.text);
    const input = ofType(first, T.EVENT_TYPE_INPUT_RECEIVED)[0];
    expect(Number(input?.seq)).toBeLessThan(Number(turn[0]?.seq));
    expect(turn.at(-1)).toMatchObject({
      text: 'completed',
      done: true,
      data: {
        status: 'completed',
        interrupted: false,
        usage: { total_tokens: 16, input_tokens: 11, output_tokens: 5 },
        thread_usage: { total_tokens: 16 },
        context_window: 258400,
      },
    });

    await send(sessionId, 'and again');
    const both = await eventsUntil(sessionId, completedTurns(2));
    const second = ofType(both, T.EVENT_TYPE_TURN_STARTED)[1]?.turnId;
    expect(second).toBeTruthy();
    expect(second).not.toBe(turnId);
    expect(
      both.find((e) => e.type === T.EVENT_TYPE_AGENT_MESSAGE && e.turnId === second)?.text,
    ).toBe('Hello from fake codex. You said: and again');
    expect(ofType(both, T.EVENT_TYPE_TURN_COMPLETED)[1]?.data).toMatchObject({
      usage: { total_tokens: 16 },
      thread_usage: { total_tokens: 32 },
    });
    expect(readLog('codex.log').filter((m) => m.method === 'turn/start')).toHaveLength(2);
    await stop(sessionId);
  });

  it('permissions deny (the default): the policy refuses the command approval (cancel) and nothing runs', async () => {
    const { sessionId } = await start('codex');
    const mark = daemon.audit.mark();
    await send(sessionId, 'please USE_TOOL');
    const all = await eventsUntil(sessionId, completedTurns(1));
    const calls = ofType(all, T.EVENT_TYPE_TOOL_CALL);
    expect(calls.map((e) => e.data)).toEqual([
      expect.objectContaining({ name: 'commandExecution', tool_call_id: expect.any(String) }),
    ]);
    const { requested } = expectPermission(
      all,
      { ...CODEX_COMMAND, mode: 'deny', tool_call_id: calls[0]?.data?.tool_call_id },
      { decision: 'deny', decided_by: 'policy' },
    );
    expect(requested.data?.expires_at).toBeUndefined();
    // 0.169 offers no "decline" for a command: the refusal is "cancel", which ends the turn.
    expect(lastDecision('codex.log')).toBe('cancel');
    expect(ofType(all, T.EVENT_TYPE_TOOL_RESULT)[0]?.data).toMatchObject({
      status: 'declined',
      is_error: true,
    });
    expect(ofType(all, T.EVENT_TYPE_TURN_COMPLETED)[0]?.data).toMatchObject({
      status: 'interrupted',
    });
    expect(existsSync(join(daemon.repo, 'codex_created.txt'))).toBe(false);
    const [record] = await daemon.audit.waitFor(
      'the policy denial',
      (r) => r.kind === 'permission' && r.session_id === sessionId,
      mark,
    );
    expect(record).toMatchObject({ outcome: 'deny', reason: 'permission_deny', sub: 'tester' });
    expect(record?.detail).toBe(`commandExecution ${requestIdOf(requested)}: deny by policy`);

    // A file change can be declined without ending the turn.
    await send(sessionId, 'EDIT_FILE please');
    const more = await eventsUntil(sessionId, completedTurns(2));
    expectPermission(
      more,
      {
        tool: 'fileChange',
        summary: 'apply a file change',
        approval_request: 'item/fileChange/requestApproval',
        mode: 'deny',
      },
      { decision: 'deny', decided_by: 'policy' },
      1,
    );
    expect(lastDecision('codex.log')).toBe('decline');
    expect(ofType(more, T.EVENT_TYPE_AGENT_MESSAGE).at(-1)?.text).toBe('The edit was declined.');
    expect(ofType(more, T.EVENT_TYPE_TURN_COMPLETED).at(-1)?.data).toMatchObject({
      status: 'completed',
    });
    expect(existsSync(join(daemon.repo, 'notes.txt'))).toBe(false);
    await stop(sessionId);
  });

  it('permissions allow: the policy accepts the command, it runs and reports its exit code', async () => {
    const { sessionId } = await start('codex_allow');
    const mark = daemon.audit.mark();
    await send(sessionId, 'please USE_TOOL');
    const all = await eventsUntil(sessionId, completedTurns(1));
    expect(ofType(all, T.EVENT_TYPE_TOOL_CALL)).toHaveLength(1);
    expectPermission(
      all,
      { ...CODEX_COMMAND, mode: 'allow' },
      { decision: 'allow_once', decided_by: 'policy' },
    );
    const result = ofType(all, T.EVENT_TYPE_TOOL_RESULT)[0];
    expect(result?.data).toMatchObject({
      name: 'commandExecution',
      status: 'completed',
      exit_code: 0,
      is_error: false,
    });
    expect(result?.data?.tool_call_id).toBe(
      ofType(all, T.EVENT_TYPE_TOOL_CALL)[0]?.data?.tool_call_id,
    );
    expect(ofType(all, T.EVENT_TYPE_AGENT_MESSAGE)[0]?.text).toBe('Tool ran fine.');
    expect(existsSync(join(daemon.repo, 'codex_created.txt'))).toBe(true);
    await daemon.audit.waitFor(
      'the policy allow',
      (r) =>
        r.kind === 'permission' && r.session_id === sessionId && r.reason === 'permission_allow',
      mark,
    );
    await stop(sessionId);
  });

  it('interrupts a turn mid-stream; the session lives on and the next turn works', async () => {
    const { sessionId } = await start('codex');
    await send(sessionId, 'HANG here');
    const early = await eventsUntil(
      sessionId,
      (all) => count(T.EVENT_TYPE_AGENT_MESSAGE_DELTA)(all) >= 1,
    );
    const turnId = ofType(early, T.EVENT_TYPE_TURN_STARTED)[0]?.turnId;
    const res = await interrupt(sessionId);
    expect(res).toEqual({ interrupted: true, turnId });
    const after = await eventsUntil(sessionId, completedTurns(1));
    expect(ofType(after, T.EVENT_TYPE_TURN_COMPLETED)[0]).toMatchObject({
      turnId,
      data: { status: 'interrupted', interrupted: true },
    });
    expect(await interrupt(sessionId)).toEqual({ interrupted: false, turnId: '' });
    expect((await get(sessionId)).status).toBe(SessionStatus.SESSION_STATUS_RUNNING);

    await send(sessionId, 'next');
    const next = await eventsUntil(sessionId, completedTurns(2));
    expect(ofType(next, T.EVENT_TYPE_TURN_COMPLETED)[1]?.data).toMatchObject({
      status: 'completed',
    });
    await stop(sessionId);
  });

  it('an auth failure is AGENT_ERROR with the 401 message and a failed turn; the session survives', async () => {
    const { sessionId } = await start('codex_auth');
    await send(sessionId, 'hi');
    const all = await eventsUntil(sessionId, completedTurns(1));
    const errors = ofType(all, T.EVENT_TYPE_AGENT_ERROR);
    expect(errors.map((e) => e.data?.will_retry)).toEqual([true, true, false, undefined]);
    expect(errors[2]?.error).toMatch(/^unexpected status 401 Unauthorized/);
    expect(errors[3]?.text).toMatch(/^codex turn failed: unexpected status 401 Unauthorized/);
    expect(ofType(all, T.EVENT_TYPE_TURN_COMPLETED)[0]).toMatchObject({
      error: expect.stringMatching(/^unexpected status 401/),
      data: { status: 'failed' },
    });
    expect((await get(sessionId)).status).toBe(SessionStatus.SESSION_STATUS_RUNNING);
    await stop(sessionId);
  });

  it('a retry storm hits turn_timeout: AGENT_ERROR, then the turn is interrupted', async () => {
    const { sessionId } = await start('codex_storm');
    await send(sessionId, 'hi');
    const all = await eventsUntil(sessionId, completedTurns(1));
    const retries = ofType(all, T.EVENT_TYPE_AGENT_ERROR).filter((e) => e.data?.will_retry);
    expect(retries.length).toBeGreaterThan(3);
    expect(retries[0]?.text).toMatch(/^codex: Reconnecting\.\.\. 1\/5/);
    const timeout = ofType(all, T.EVENT_TYPE_AGENT_ERROR).find(
      (e) => e.data?.reason === 'turn_timeout',
    );
    expect(timeout?.error).toBe('turn timeout');
    const done = ofType(all, T.EVENT_TYPE_TURN_COMPLETED)[0];
    expect(done).toMatchObject({ turnId: timeout?.turnId, data: { status: 'interrupted' } });
    expect(Number(done?.seq)).toBeGreaterThan(Number(timeout?.seq));
    expect((await get(sessionId)).status).toBe(SessionStatus.SESSION_STATUS_RUNNING);
    await stop(sessionId);
  });

  it('a crash mid-turn fails the session with the exit code and the stderr tail', async () => {
    const { sessionId } = await start('codex_crash');
    await send(sessionId, 'hi');
    const all = await eventsUntil(sessionId);
    const last = all.at(-1);
    expect(last?.type).toBe(T.EVENT_TYPE_SESSION_FAILED);
    expect(last?.data).toMatchObject({ exit_code: 101, reason: 'crashed' });
    expect(String(last?.data?.stderr_tail)).toContain('fake codex crashed mid-turn');
    expect(ofType(all, T.EVENT_TYPE_AGENT_MESSAGE_DELTA).length).toBeGreaterThan(0);
  });

  it('stops an agent that ignores SIGTERM and EOF: the whole group is killed', async () => {
    const { sessionId } = await start('codex_stubborn');
    const { pid } = await get(sessionId);
    expect(pid).toBeGreaterThan(1);
    const early = await eventsUntil(sessionId, (all) => all.some((e) => /helper \d+/.test(e.text)));
    const helper = Number(/helper (\d+)/.exec(early.map((e) => e.text).join('\n'))?.[1]);
    expect(isAlive(helper)).toBe(true);
    expect((await stop(sessionId)).status).toBe(SessionStatus.SESSION_STATUS_STOPPED);
    await waitFor(`process group ${pid} to be gone`, () => groupMembers(pid).length === 0, 5000);
    expect(isAlive(helper)).toBe(false);
    expect((await eventsUntil(sessionId)).at(-1)?.data).toMatchObject({ signal: 'SIGKILL' });
  });

  it('stops gracefully by closing stdin; a helper the agent left behind is killed with the group', async () => {
    const { sessionId } = await start('codex_helper');
    const early = await eventsUntil(sessionId, (all) => all.some((e) => /helper \d+/.test(e.text)));
    const helper = Number(/helper (\d+)/.exec(early.map((e) => e.text).join('\n'))?.[1]);
    expect(isAlive(helper)).toBe(true);
    await stop(sessionId);
    expect((await eventsUntil(sessionId)).at(-1)?.data).toMatchObject({
      reason: 'stop_requested',
      exit_code: 0,
    });
    await waitFor(`helper ${helper} to be killed`, () => !isAlive(helper), 3000);
  });

  it('keeps malformed, stray and unterminated lines as STDOUT and loses nothing', async () => {
    const { sessionId } = await start('codex_noise');
    await send(sessionId, 'hi');
    await eventsUntil(sessionId, completedTurns(1));
    await stop(sessionId);
    const all = await eventsUntil(sessionId);
    expect(
      ofType(all, T.EVENT_TYPE_STDOUT)
        .filter((e) => e.stream === 'stdout')
        .map((e) => e.text),
    ).toEqual([
      'fake codex banner: not JSON at all',
      '{"method":"item/agentMessage/delta","params":{"threadId":',
      '["a JSON array is not a message"]',
      'last words without a newline',
    ]);
    // The line split across writes is one delta, stored word by word (the
    // redactor holds a word until it is complete, or its message ends).
    expect(ofType(all, T.EVENT_TYPE_AGENT_MESSAGE_DELTA).map((e) => e.text)).toEqual([
      'joined across ',
      'writes',
      'After ',
      'the ',
      'noise.',
    ]);
    expect(ofType(all, T.EVENT_TYPE_AGENT_MESSAGE)[0]?.text).toBe('After the noise.');
    expect(all.at(-1)?.type).toBe(T.EVENT_TYPE_SESSION_STOPPED);
  });

  it('a flood of deltas arrives complete and in order', async () => {
    const { sessionId } = await start('codex_flood');
    await send(sessionId, 'go');
    const all = await eventsUntil(sessionId, completedTurns(1));
    const deltas = ofType(all, T.EVENT_TYPE_AGENT_MESSAGE_DELTA).map((e) => e.text);
    expect(deltas).toHaveLength(3000);
    expect(deltas.slice(0, 3)).toEqual(['0 ', '1 ', '2 ']);
    expect(deltas.join('')).toBe(ofType(all, T.EVENT_TYPE_AGENT_MESSAGE)[0]?.text);
    await stop(sessionId);
  });

  it('agent_opts: unknown keys and dangerous values are PERMISSION_DENIED, malformed values INVALID_ARGUMENT, with nothing spawned', async () => {
    const refused: [Record<string, string>, status][] = [
      [{ profile: 'x' }, status.PERMISSION_DENIED],
      [{ sandbox: 'danger-full-access' }, status.PERMISSION_DENIED],
      [{ approval_policy: 'never' }, status.PERMISSION_DENIED],
      [{ sandbox: '--dangerously-bypass-approvals-and-sandbox' }, status.INVALID_ARGUMENT],
    ];
    for (const [opts, code] of refused) {
      expect(await codeOf(start('codex_opts', opts))).toBe(code);
    }
    expect(existsSync(join(logDir, 'opts.log'))).toBe(false);

    const { sessionId } = await start('codex_opts', {
      sandbox: 'workspace-write',
      approval_policy: 'on-request',
      model: 'gpt-5.1-codex',
    });
    expect(readLog('opts.log').find((m) => m.method === 'thread/start')?.params).toEqual({
      cwd: daemon.repo,
      sandbox: 'workspace-write',
      approvalPolicy: 'on-request',
      model: 'gpt-5.1-codex',
    });
    await stop(sessionId);
  });

  it('config default_opts may choose the dangerous modes, and they reach thread/start', async () => {
    const { sessionId } = await start('codex_full');
    expect(readLog('full.log').find((m) => m.method === 'thread/start')?.params).toEqual({
      cwd: daemon.repo,
      sandbox: 'danger-full-access',
      approvalPolicy: 'never',
    });
    await stop(sessionId);
  });
});

describe('codex adapter behind the approval gate (permissions: ask)', () => {
  gateCases({
    bridge,
    providers: { ask: 'codex_ask', timeout: 'codex_ask_timeout', auto: 'codex_auto' },
    input: 'please USE_TOOL',
    requested: CODEX_COMMAND,
    ran: (repo) => existsSync(join(repo, 'codex_created.txt')),
    ranReported: (all) => {
      expect(ofType(all, T.EVENT_TYPE_TOOL_RESULT)[0]?.data).toMatchObject({
        status: 'completed',
        exit_code: 0,
        is_error: false,
      });
      expect(ofType(all, T.EVENT_TYPE_AGENT_MESSAGE).at(-1)?.text).toBe('Tool ran fine.');
    },
    // codex's approval answer carries no message: it gets "cancel" (no
    // "decline" offered for a command), and the command is reported declined.
    refused: (all) => {
      const refusedBy = ofType(all, T.EVENT_TYPE_PERMISSION_RESOLVED)[0]?.data?.decided_by;
      expect(lastDecision(refusedBy === 'timeout' ? 'ask-timeout.log' : 'ask.log')).toBe('cancel');
      expect(ofType(all, T.EVENT_TYPE_TOOL_RESULT)[0]?.data).toMatchObject({
        status: 'declined',
        is_error: true,
      });
      expect(ofType(all, T.EVENT_TYPE_TURN_COMPLETED)[0]?.data).toMatchObject({
        status: 'interrupted',
      });
    },
  });
});
