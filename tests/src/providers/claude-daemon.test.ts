import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  call,
  claudeOfVersion,
  codeOf,
  expectPermission,
  FAKE_CLAUDE,
  groupMembers,
  isAlive,
  listedOnceProbed,
  ofType,
  requestIdOf,
  sessionClient,
  status,
  type TestDaemon,
  turnsDone,
  useDaemon,
  waitFor,
} from '@agent-bridge/harness';
import {
  type BridgeServiceClient,
  EventType,
  ProviderAuthState,
  type SessionEvent,
  SessionStatus,
  VersionCoverage,
} from '@agent-bridge/proto';
import { MOCK_AGENT_PATH } from '@agent-bridge/providers/host';
import type { Metadata } from '@grpc/grpc-js';
import { beforeAll, describe, expect, it } from 'vitest';
import { gateCases } from './gate-cases.js';

// The claude adapter end to end: the real daemon over mTLS + JWT, driving
// tests/fixtures/fake-claude.mjs (claude -p stream-json of Claude Code 2.1.197),
// and the built-in mock, which speaks the same protocol.

const T = EventType;

const claude = (extra: Record<string, unknown> = {}, env: Record<string, string> = {}) => ({
  adapter: 'claude',
  binary: FAKE_CLAUDE,
  ...extra,
  env,
});

// The fake records each argv it was started with in logs under the scratch directory.
const bridge = useDaemon((logs) => ({
  config: {
    sessions: { max_per_project: 20, max_global: 20 },
    providers: {
      claude: claude({}, { FAKE_CLAUDE_LOG: join(logs, 'claude.log') }),
      claude_key: claude({ permissions: 'allow' }, { ANTHROPIC_API_KEY: 'sk-test-key' }),
      claude_solo: claude({ collaboration: 'off' }, { FAKE_CLAUDE_LOG: join(logs, 'solo.log') }),
      claude_ask: claude({ permissions: 'ask' }),
      claude_ask_timeout: claude({ permissions: 'ask', permission_timeout: '1s' }),
      claude_auto: claude({ permissions: 'ask', auto_allow: ['Bash'] }),
      claude_auth: claude({}, { FAKE_CLAUDE_SCENARIO: 'auth-failure' }),
      claude_bad_key: claude(
        {},
        { FAKE_CLAUDE_SCENARIO: 'auth-failure', ANTHROPIC_API_KEY: 'sk-bad' },
      ),
      claude_raw: claude({ emit_raw: true }),
      claude_storm: claude({ turn_timeout: '2s' }, { FAKE_CLAUDE_SCENARIO: 'retry-storm' }),
      claude_crash: claude({}, { FAKE_CLAUDE_SCENARIO: 'crash-mid-turn' }),
      claude_segv: claude({}, { FAKE_CLAUDE_SCENARIO: 'segv-mid-turn' }),
      claude_stubborn: claude({}, { FAKE_CLAUDE_SCENARIO: 'ignore-sigterm' }),
      claude_helper: claude({}, { FAKE_CLAUDE_SCENARIO: 'grandchild' }),
      claude_opts: claude({}, { FAKE_CLAUDE_LOG: join(logs, 'opts.log') }),
      claude_next: { ...claude(), binary: claudeOfVersion(logs, '2.1.400') },
      claude_bypass: claude(
        { default_opts: { permission_mode: 'bypassPermissions' } },
        { FAKE_CLAUDE_LOG: join(logs, 'bypass.log') },
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
const stop = (id: string) => sessions().session(id).stop();
const get = (id: string) => sessions().session(id).get();
const eventsUntil = (id: string, until?: (all: SessionEvent[]) => boolean) =>
  sessions().session(id).events(until);
const completedTurns = turnsDone;
/** What claude's Bash request of a USE_TOOL turn carries in PERMISSION_REQUESTED. */
const CLAUDE_BASH = {
  request_id: expect.stringMatching(/^perm-\d+$/),
  tool: 'Bash',
  summary: 'touch created.txt',
  input: { command: 'touch created.txt', description: 'create file' },
  options: ['allow_once', 'allow_session', 'deny'],
  tool_call_id: expect.stringMatching(/^toolu_\d+$/),
  blocked_path: expect.stringMatching(/\/created\.txt$/),
};
const argvLog = (name: string) =>
  readFileSync(join(logDir, name), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as string[]);

describe('claude adapter through the daemon', () => {
  it('ListProviders shows the version, capabilities and the auth status', async () => {
    const providers = await listedOnceProbed(
      () => call(client, (c) => c.listProviders, {}, md),
      ['claude', 'claude_key'],
    );
    expect(providers.find((p) => p.id === 'claude')).toMatchObject({
      available: true,
      version: '2.1.197',
      binaryPath: FAKE_CLAUDE,
      authState: ProviderAuthState.PROVIDER_AUTH_STATE_UNAUTHENTICATED,
      capabilities: {
        structuredEvents: true,
        multiTurn: true,
        interrupt: true,
        permissionRequests: true,
      },
    });
    expect(providers.find((p) => p.id === 'claude_key')).toMatchObject({
      authState: ProviderAuthState.PROVIDER_AUTH_STATE_AUTHENTICATED,
      authDetail: 'credentials configured (api_key); not validated',
    });
  });

  it('ListProviders and Health place each version against the tested range; a newer one is a warning, never a refusal', async () => {
    const providers = await listedOnceProbed(
      () => call(client, (c) => c.listProviders, {}, md),
      ['claude', 'claude_next'],
    );
    expect(providers.find((p) => p.id === 'claude')).toMatchObject({
      version: '2.1.197',
      versionCoverage: VersionCoverage.VERSION_COVERAGE_TESTED,
      testedVersions: '2.1.197 to 2.1.332',
      warning: '',
    });
    const warning =
      'claude-code 2.1.400 is newer than the versions the contract tests cover (2.1.197 to 2.1.332); it is served, but the adapter has not been proven against it';
    expect(providers.find((p) => p.id === 'claude_next')).toMatchObject({
      available: true,
      version: '2.1.400',
      versionCoverage: VersionCoverage.VERSION_COVERAGE_NEWER,
      testedVersions: '2.1.197 to 2.1.332',
      warning,
    });
    const health = await call(client, (c) => c.health, {}, md);
    expect(health.providers.find((p) => p.provider === 'claude_next')).toMatchObject({
      available: true,
      warning,
    });
    expect(health.providers.find((p) => p.provider === 'claude')?.warning).toBe('');
    const { sessionId } = await start('claude_next');
    await send(sessionId, 'hello');
    const events = await eventsUntil(sessionId, completedTurns(1));
    expect(ofType(events, T.EVENT_TYPE_AGENT_MESSAGE)[0]?.text).toBe('Hello from fake model.');
    await stop(sessionId);
  });

  it('streams a text turn, then a second turn in the same process', async () => {
    const { sessionId } = await start('claude');
    const argv = argvLog('claude.log').at(-1);
    expect(argv).toEqual([
      '-p',
      '--input-format',
      'stream-json',
      '--output-format',
      'stream-json',
      '--verbose',
      '--include-partial-messages',
      '--permission-prompt-tool',
      'stdio',
      '--session-id',
      sessionId,
      '--mcp-config',
      expect.any(String),
      '--allowedTools',
      'mcp__bridge',
    ]);
    // The bridge's tool server: bridge mcp with the capability in a file, never in argv.
    const mcp = JSON.parse(argv![argv!.indexOf('--mcp-config') + 1]!).mcpServers.bridge;
    expect(mcp).toMatchObject({ type: 'stdio', command: process.execPath });
    expect(mcp.args.slice(-5)).toEqual([
      'mcp',
      '--socket',
      expect.stringMatching(/\/tools-\d+\/tools\.sock$/),
      '--capability-file',
      expect.stringMatching(new RegExp(`/tools-\\d+/${sessionId}\\.cap$`)),
    ]);
    await send(sessionId, 'hello');
    const first = await eventsUntil(sessionId, completedTurns(1));
    const turnId = ofType(first, T.EVENT_TYPE_TURN_STARTED)[0]?.turnId;
    expect(turnId).toBe('turn-1');
    const turn = first.filter((e) => e.turnId === turnId);
    // The model's four deltas ('Hello', ' from', ' fake', ' model.') are
    // stored as the redactor settles them: a word once it is complete.
    expect(turn.map((e) => e.type)).toEqual([
      T.EVENT_TYPE_TURN_STARTED,
      T.EVENT_TYPE_AGENT_MESSAGE_DELTA,
      T.EVENT_TYPE_AGENT_MESSAGE_DELTA,
      T.EVENT_TYPE_AGENT_MESSAGE_DELTA,
      T.EVENT_TYPE_AGENT_MESSAGE,
      T.EVENT_TYPE_TURN_COMPLETED,
    ]);
    expect(ofType(turn, T.EVENT_TYPE_AGENT_MESSAGE_DELTA).map((e) => e.text)).toEqual([
      'Hello ',
      'from ',
      'fake model.',
    ]);
    expect(ofType(turn, T.EVENT_TYPE_AGENT_MESSAGE)[0]?.text).toBe('Hello from fake model.');
    // The input that starts a turn is recorded before the turn's first event.
    expect(Number(ofType(first, T.EVENT_TYPE_INPUT_RECEIVED)[0]?.seq)).toBeLessThan(
      Number(turn[0]?.seq),
    );
    expect(turn.at(-1)).toMatchObject({
      text: 'completed',
      done: true,
      data: {
        status: 'completed',
        is_error: false,
        subtype: 'success',
        total_cost_usd: 0.000235,
        usage: {
          input_tokens: 12,
          output_tokens: 7,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
        },
        claude_code_version: '2.1.197',
        claude_session_id: sessionId,
      },
    });

    await send(sessionId, 'again');
    const both = await eventsUntil(sessionId, completedTurns(2));
    expect(ofType(both, T.EVENT_TYPE_TURN_COMPLETED)[1]).toMatchObject({
      turnId: 'turn-2',
      data: { status: 'completed' },
    });
    expect(argvLog('claude.log').filter((a) => a.includes(sessionId))).toHaveLength(1);
    await stop(sessionId);
  });

  it('permissions deny (the default): the request is recorded and refused by the policy, nothing runs', async () => {
    const { sessionId } = await start('claude');
    const mark = daemon.audit.mark();
    await send(sessionId, 'please USE_TOOL');
    const all = await eventsUntil(sessionId, completedTurns(1));
    // The tool call is announced once; the permission prompt is the gate's pair of events.
    expect(ofType(all, T.EVENT_TYPE_TOOL_CALL).map((e) => e.data)).toEqual([
      {
        tool_use_id: 'toolu_1',
        name: 'Bash',
        input: expect.objectContaining({ command: 'touch created.txt' }),
      },
    ]);
    const { requested } = expectPermission(
      all,
      { ...CLAUDE_BASH, mode: 'deny' },
      { decision: 'deny', decided_by: 'policy' },
    );
    // Decided at once: it never waited.
    expect(requested.data?.expires_at).toBeUndefined();
    expect(requested.turnId).toBe('turn-1');
    expect(ofType(all, T.EVENT_TYPE_TOOL_RESULT)[0]).toMatchObject({
      text: "denied by the bridge's policy",
      data: { tool_use_id: 'toolu_1', is_error: true },
    });
    expect(ofType(all, T.EVENT_TYPE_TURN_COMPLETED)[0]?.data?.permission_denials).toHaveLength(1);
    expect(existsSync(join(daemon.repo, 'created.txt'))).toBe(false);
    const [record] = await daemon.audit.waitFor(
      'the policy denial',
      (r) => r.kind === 'permission' && r.session_id === sessionId,
      mark,
    );
    expect(record).toMatchObject({
      outcome: 'deny',
      reason: 'permission_deny',
      project_id: 'alpha',
      sub: 'tester',
    });
    expect(record?.detail).toBe(`Bash ${requestIdOf(requested)}: deny by policy`);
    await stop(sessionId);
  });

  it('permissions allow: the policy allows the request, the tool runs and its result comes back', async () => {
    const { sessionId } = await start('claude_key');
    const mark = daemon.audit.mark();
    await send(sessionId, 'please USE_TOOL');
    const all = await eventsUntil(sessionId, completedTurns(1));
    expect(ofType(all, T.EVENT_TYPE_TOOL_CALL)).toHaveLength(1);
    expectPermission(
      all,
      { ...CLAUDE_BASH, mode: 'allow' },
      { decision: 'allow_once', decided_by: 'policy' },
    );
    expect(ofType(all, T.EVENT_TYPE_TOOL_RESULT)[0]?.data).toMatchObject({
      tool_use_id: 'toolu_1',
      is_error: false,
    });
    expect(ofType(all, T.EVENT_TYPE_AGENT_MESSAGE)[0]?.text).toBe('Tool ran fine.');
    expect(existsSync(join(daemon.repo, 'created.txt'))).toBe(true);
    await daemon.audit.waitFor(
      'the policy allow',
      (r) =>
        r.kind === 'permission' &&
        r.session_id === sessionId &&
        r.outcome === 'allow' &&
        r.reason === 'permission_allow',
      mark,
    );
    await stop(sessionId);
  });

  it('interrupts a turn mid-stream; the session lives on and the next turn works', async () => {
    const { sessionId } = await start('claude');
    await send(sessionId, 'HANG please');
    await eventsUntil(sessionId, (all) => ofType(all, T.EVENT_TYPE_AGENT_MESSAGE_DELTA).length > 0);
    expect(await interrupt(sessionId)).toEqual({ interrupted: true, turnId: 'turn-1' });
    const all = await eventsUntil(sessionId, completedTurns(1));
    expect(ofType(all, T.EVENT_TYPE_TURN_COMPLETED)[0]).toMatchObject({
      turnId: 'turn-1',
      data: { status: 'interrupted', interrupted: true, subtype: 'error_during_execution' },
    });
    // An interrupt the client asked for is not an agent error.
    expect(ofType(all, T.EVENT_TYPE_AGENT_ERROR)).toEqual([]);
    expect(await interrupt(sessionId)).toEqual({ interrupted: false, turnId: '' });
    await send(sessionId, 'next');
    const next = await eventsUntil(sessionId, completedTurns(2));
    expect(ofType(next, T.EVENT_TYPE_TURN_COMPLETED)[1]?.data).toMatchObject({
      status: 'completed',
    });
    expect((await get(sessionId)).status).toBe(SessionStatus.SESSION_STATUS_RUNNING);
    await stop(sessionId);
  });

  it('an auth failure (is_error with subtype "success") is one clear AGENT_ERROR and a failed turn', async () => {
    for (const [provider, message] of [
      ['claude_auth', 'Not logged in · Please run /login'],
      ['claude_bad_key', 'Invalid API key · Fix external API key'],
    ] as const) {
      const { sessionId } = await start(provider);
      await send(sessionId, 'hi');
      const all = await eventsUntil(sessionId, completedTurns(1));
      const errors = ofType(all, T.EVENT_TYPE_AGENT_ERROR);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatchObject({ text: message, error: 'authentication_failed' });
      expect(ofType(all, T.EVENT_TYPE_AGENT_MESSAGE)).toEqual([]);
      expect(ofType(all, T.EVENT_TYPE_TURN_COMPLETED)[0]).toMatchObject({
        error: message,
        data: { status: 'failed', is_error: true, subtype: 'success' },
      });
      // The session survives the failed turn; claude exits 1 when its input ends.
      expect((await get(sessionId)).status).toBe(SessionStatus.SESSION_STATUS_RUNNING);
      await stop(sessionId);
      expect((await eventsUntil(sessionId)).at(-1)).toMatchObject({
        type: T.EVENT_TYPE_SESSION_STOPPED,
        data: { exit_code: 1 },
      });
    }
  });

  it('a retry storm is reported and ended by turn_timeout, not left hanging', async () => {
    const { sessionId } = await start('claude_storm');
    await send(sessionId, 'hi');
    const all = await eventsUntil(sessionId, completedTurns(1));
    const retries = ofType(all, T.EVENT_TYPE_AGENT_ERROR).filter(
      (e) => e.data?.reason === 'api_retry',
    );
    expect(retries.length).toBeGreaterThan(2);
    expect(retries[0]?.text).toBe('claude API request failed: unknown; retry 1/10');
    const timeout = ofType(all, T.EVENT_TYPE_AGENT_ERROR).find(
      (e) => e.data?.reason === 'turn_timeout',
    );
    expect(timeout?.turnId).toBe('turn-1');
    const done = ofType(all, T.EVENT_TYPE_TURN_COMPLETED)[0];
    expect(done?.data).toMatchObject({ status: 'interrupted' });
    expect(Number(done?.seq)).toBeGreaterThan(Number(timeout?.seq));
    expect((await get(sessionId)).status).toBe(SessionStatus.SESSION_STATUS_RUNNING);
    await stop(sessionId);
  });

  it('a crash mid-turn fails the session with the exit code and the stderr tail', async () => {
    const { sessionId } = await start('claude_crash');
    await send(sessionId, 'hi');
    const all = await eventsUntil(sessionId);
    const last = all.at(-1);
    expect(last?.type).toBe(T.EVENT_TYPE_SESSION_FAILED);
    expect(last?.data).toMatchObject({ exit_code: 1 });
    expect(String(last?.data?.stderr_tail)).toContain('panic: fake crash in the middle of a turn');
    expect(ofType(all, T.EVENT_TYPE_AGENT_MESSAGE_DELTA)[0]?.text).toBe('Hel');

    const segv = await start('claude_segv');
    await send(segv.sessionId, 'hi');
    expect((await eventsUntil(segv.sessionId)).at(-1)).toMatchObject({
      type: T.EVENT_TYPE_SESSION_FAILED,
      data: { signal: 'SIGSEGV', stderr_tail: expect.stringContaining('panic: fake crash') },
    });
  });

  it('stops an agent that ignores SIGTERM and EOF, and a grandchild with it', async () => {
    const { sessionId } = await start('claude_stubborn');
    const { pid } = await get(sessionId);
    expect((await stop(sessionId)).status).toBe(SessionStatus.SESSION_STATUS_STOPPED);
    await waitFor(`process group ${pid} to be gone`, () => groupMembers(pid).length === 0, 5000);
    expect((await eventsUntil(sessionId)).at(-1)?.data).toMatchObject({ signal: 'SIGKILL' });

    const helper = await start('claude_helper');
    const early = await eventsUntil(helper.sessionId, (all) =>
      all.some((e) => /grandchild \d+/.test(e.text)),
    );
    const g = Number(/grandchild (\d+)/.exec(early.map((e) => e.text).join('\n'))?.[1]);
    expect(isAlive(g)).toBe(true);
    await stop(helper.sessionId);
    await waitFor(`grandchild ${g} to be killed`, () => !isAlive(g), 3000);
  });

  it('keeps malformed JSON and stray text as STDOUT and joins a line split across writes', async () => {
    const { sessionId } = await start('claude');
    await send(sessionId, 'MALFORMED output please');
    const all = await eventsUntil(sessionId, completedTurns(1));
    expect(
      ofType(all, T.EVENT_TYPE_STDOUT)
        .filter((e) => e.stream === 'stdout')
        .map((e) => e.text),
    ).toEqual(['{"type":"stream_event","event":{"type":', 'Warning: stray text on stdout']);
    // The deltas as the redactor stores them: each word once it is complete.
    expect(ofType(all, T.EVENT_TYPE_AGENT_MESSAGE_DELTA).map((e) => e.text)).toEqual([
      'split ',
      'Hello ',
      'from ',
      'fake model.',
    ]);
    await stop(sessionId);
  });

  it('a flood of deltas (and one of 1 MiB) arrives whole and in order', async () => {
    const { sessionId } = await start('claude');
    await send(sessionId, 'FLOOD');
    const all = await eventsUntil(sessionId, completedTurns(1));
    expect(ofType(all, T.EVENT_TYPE_BUFFER_OVERFLOW)).toEqual([]);
    const deltas = ofType(all, T.EVENT_TYPE_AGENT_MESSAGE_DELTA);
    expect(deltas).toHaveLength(3001);
    expect(deltas.slice(0, 3).map((e) => e.text)).toEqual(['w0 ', 'w1 ', 'w2 ']);
    expect(deltas.at(-1)?.text).toHaveLength(1024 * 1024);
    const message = ofType(all, T.EVENT_TYPE_AGENT_MESSAGE)[0]?.text;
    expect(deltas.map((e) => e.text).join('') === message).toBe(true);
    expect(ofType(all, T.EVENT_TYPE_TURN_COMPLETED)[0]?.data).toMatchObject({
      status: 'completed',
    });
    await stop(sessionId);
  });

  it('emit_raw: true keeps every protocol line as STDOUT beside the structured events', async () => {
    const { sessionId } = await start('claude_raw');
    await send(sessionId, 'hello');
    const all = await eventsUntil(sessionId, completedTurns(1));
    const raw = ofType(all, T.EVENT_TYPE_STDOUT).filter((e) => e.data?.raw === true);
    const types = raw.map((e) => (JSON.parse(e.text) as { type: string }).type);
    expect(types).toEqual(
      expect.arrayContaining(['control_response', 'system', 'stream_event', 'assistant', 'result']),
    );
    expect(ofType(all, T.EVENT_TYPE_AGENT_MESSAGE)[0]?.text).toBe('Hello from fake model.');
    // Each raw line comes before the event made from it.
    const result = raw.find((e) => e.text.startsWith('{"type":"result"'));
    expect(Number(result?.seq)).toBeLessThan(
      Number(ofType(all, T.EVENT_TYPE_TURN_COMPLETED)[0]?.seq),
    );
    await stop(sessionId);
  });

  it('agent_opts: unknown keys and bypassPermissions are PERMISSION_DENIED, malformed values INVALID_ARGUMENT, with nothing spawned', async () => {
    const refused: [Record<string, string>, status][] = [
      [{ temperature: '1' }, status.PERMISSION_DENIED],
      [{ permission_mode: 'bypassPermissions' }, status.PERMISSION_DENIED],
      [{ permission_mode: 'dontAsk' }, status.PERMISSION_DENIED],
      [{ model: '--dangerously-skip-permissions' }, status.INVALID_ARGUMENT],
    ];
    for (const [opts, code] of refused) {
      expect(await codeOf(start('claude_opts', opts))).toBe(code);
    }
    expect(existsSync(join(logDir, 'opts.log'))).toBe(false);
    const { sessionId } = await start('claude_opts', {
      model: 'claude-sonnet-4-5',
      permission_mode: 'plan',
    });
    const argv = argvLog('opts.log')[0] ?? [];
    expect(argv.slice(argv.indexOf('--model'), argv.indexOf('--model') + 4)).toEqual([
      '--model',
      'claude-sonnet-4-5',
      '--permission-mode',
      'plan',
    ]);
    await stop(sessionId);
  });

  it('collaboration: off gives the agent no tool server', async () => {
    const { sessionId } = await start('claude_solo');
    const argv = argvLog('solo.log')[0] ?? [];
    expect(argv).toContain('--session-id');
    expect(argv).not.toContain('--mcp-config');
    expect(argv).not.toContain('--allowedTools');
    await stop(sessionId);
  });

  it('config default_opts may choose bypassPermissions, and it reaches argv', async () => {
    const { sessionId } = await start('claude_bypass');
    const argv = argvLog('bypass.log')[0] ?? [];
    expect(
      argv.slice(argv.indexOf('--permission-mode'), argv.indexOf('--permission-mode') + 2),
    ).toEqual(['--permission-mode', 'bypassPermissions']);
    await stop(sessionId);
  });
});

describe('claude adapter behind the approval gate (permissions: ask)', () => {
  gateCases({
    bridge,
    providers: { ask: 'claude_ask', timeout: 'claude_ask_timeout', auto: 'claude_auto' },
    input: 'please USE_TOOL',
    requested: CLAUDE_BASH,
    ran: (repo) => existsSync(join(repo, 'created.txt')),
    ranReported: (all) => {
      expect(ofType(all, T.EVENT_TYPE_TOOL_RESULT)[0]?.data).toMatchObject({ is_error: false });
      expect(ofType(all, T.EVENT_TYPE_AGENT_MESSAGE).at(-1)?.text).toBe('Tool ran fine.');
    },
    // claude puts the denial's message in the tool_result it reports back.
    refused: (all, message) => {
      expect(ofType(all, T.EVENT_TYPE_TOOL_RESULT)[0]).toMatchObject({
        text: message,
        data: { tool_use_id: 'toolu_1', is_error: true },
      });
      expect(ofType(all, T.EVENT_TYPE_TURN_COMPLETED)[0]?.data).toMatchObject({
        status: 'completed',
        permission_denials: [expect.objectContaining({ tool_name: 'Bash' })],
      });
      expect(ofType(all, T.EVENT_TYPE_AGENT_MESSAGE).at(-1)?.text).toBe('I was not allowed.');
    },
  });
});

describe('the built-in mock (claude stream-json subset)', () => {
  it('is always available and needs no credentials', async () => {
    const { providers } = await call(client, (c) => c.listProviders, {}, md);
    expect(providers.find((p) => p.id === 'mock')).toMatchObject({
      available: true,
      version: `mock (node ${process.version})`,
      authState: ProviderAuthState.PROVIDER_AUTH_STATE_NOT_REQUIRED,
      capabilities: { structuredEvents: true, multiTurn: true, interrupt: true },
    });
  });

  it('answers with a structured turn and can be interrupted', async () => {
    const { sessionId } = await start('mock');
    await send(sessionId, 'a slow reply please');
    await eventsUntil(sessionId, (all) => ofType(all, T.EVENT_TYPE_AGENT_MESSAGE_DELTA).length > 0);
    expect(await interrupt(sessionId)).toEqual({ interrupted: true, turnId: 'turn-1' });
    await send(sessionId, 'quick');
    const all = await eventsUntil(sessionId, completedTurns(2));
    const done = ofType(all, T.EVENT_TYPE_TURN_COMPLETED);
    expect(done.map((e) => e.data?.status)).toEqual(['interrupted', 'completed']);
    expect(ofType(all, T.EVENT_TYPE_AGENT_MESSAGE).at(-1)?.text).toContain('received "quick"');
    await stop(sessionId);
  });

  it('is a real process: stop closes its input and it exits 0; SIGTERM ends it too', async () => {
    const { sessionId } = await start('mock');
    await stop(sessionId);
    expect((await eventsUntil(sessionId)).at(-1)).toMatchObject({
      type: T.EVENT_TYPE_SESSION_STOPPED,
      data: { exit_code: 0 },
    });
    expect((await eventsUntil(sessionId)).at(-1)?.data?.signal).toBeUndefined();

    const child = spawn(process.execPath, [MOCK_AGENT_PATH], { stdio: ['pipe', 'pipe', 'ignore'] });
    // Its answer to initialize shows the SIGTERM handler is installed.
    child.stdin.write(
      '{"type":"control_request","request_id":"r1","request":{"subtype":"initialize"}}\n',
    );
    await once(child.stdout, 'data');
    child.kill('SIGTERM');
    const [code, signal] = await once(child, 'exit');
    expect({ code, signal }).toEqual({ code: 0, signal: null });
  });
});
