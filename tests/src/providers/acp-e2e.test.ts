import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  asked,
  call,
  codeOf,
  collect,
  descendants,
  expectPermission,
  groupMembers,
  listedOnceProbed,
  REPO_ROOT,
  requestIdOf,
  requestsOf,
  respondPermission,
  status,
  streamEvents,
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

// The acp adapter end to end: the real daemon over mTLS + JWT, driving the
// fake ACP agent as opencode (`acp`) and as gemini (`--acp`).
const FLAVOURS = {
  opencode: {
    binary: join(REPO_ROOT, 'tests/fixtures/fake-opencode.mjs'),
    args: ['acp'],
    version: '1.18.33',
    model: 'opencode/big-pickle',
    toolFile: 'created.txt',
    /** The options it offers for a tool, allow once first, and the reject one. */
    allowOnce: 'once',
    reject: 'reject',
    /** Its tool call's input, as its permission request gives it. */
    toolInput: { command: 'touch created.txt' },
    authError: 'Internal error: invalid x-api-key',
  },
  gemini: {
    binary: join(REPO_ROOT, 'tests/fixtures/fake-gemini.mjs'),
    args: ['--acp'],
    version: '0.61.0',
    model: 'gemini-2.5-flash',
    toolFile: 'gemini_created.txt',
    allowOnce: 'proceed_once',
    reject: 'cancel',
    toolInput: null,
    authError: '[API Error: API key not valid. Please pass a valid API key.]',
  },
} as const;
type Flavour = keyof typeof FLAVOURS;

const T = EventType;

/** The providers under test; `agentHome` is their HOME. */
function providers(agentHome: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [f, def] of Object.entries(FLAVOURS)) {
    // Fresh arrays: the YAML writer would turn shared ones into aliases.
    const base = () => ({ adapter: 'acp', binary: def.binary, args: [...def.args] });
    const env = (extra: Record<string, string> = {}) => ({ HOME: agentHome, ...extra });
    const key: Record<string, string> = f === 'gemini' ? { GEMINI_API_KEY: 'test-key' } : {};
    out[f] = { ...base(), env: env(key) };
    out[`${f}-allow`] = { ...base(), env: env(key), permissions: 'allow' };
    // Behind the gate: what the fake reads goes to <agentHome>/<id>.log.
    const log = (id: string) => ({ FAKE_ACP_LOG: join(agentHome, `${id}.log`) });
    out[`${f}-ask`] = { ...base(), env: env({ ...key, ...log(`${f}-ask`) }), permissions: 'ask' };
    out[`${f}-ask-timeout`] = {
      ...base(),
      env: env({ ...key, ...log(`${f}-ask-timeout`) }),
      permissions: 'ask',
      permission_timeout: '1s',
    };
    out[`${f}-auto`] = { ...base(), env: env(key), permissions: 'ask', auto_allow: ['execute'] };
    out[`${f}-opts`] = {
      ...base(),
      env: env(key),
      allowed_opts: { model: ['*'], mode: ['plan', 'default'] },
    };
    out[`${f}-timeout`] = { ...base(), env: env(key), turn_timeout: '1s' };
    for (const scenario of [
      'auth-failure',
      'crash-mid-turn',
      'ignore-sigterm',
      'malformed',
      'flood',
    ]) {
      out[`${f}-${scenario}`] = { ...base(), env: env({ ...key, FAKE_ACP_SCENARIO: scenario }) };
    }
  }
  out['gemini-no-auth'] = {
    adapter: 'acp',
    binary: FLAVOURS.gemini.binary,
    args: ['--acp'],
    env: { HOME: agentHome, FAKE_ACP_SCENARIO: 'no-auth' },
  };
  out['gemini-untrusted'] = {
    adapter: 'acp',
    binary: FLAVOURS.gemini.binary,
    args: ['--acp'],
    env: { HOME: agentHome, GEMINI_API_KEY: 'k', FAKE_ACP_SCENARIO: 'untrusted' },
  };
  return out;
}

// An empty HOME for the agents (the scratch directory), so the auth probes
// see no stored logins of this machine.
const bridge = useDaemon((agentHome) => ({
  config: {
    sessions: { stop_grace_period: '1s', max_per_project: 50, max_global: 50 },
    providers: providers(agentHome),
  },
}));
let client: BridgeServiceClient;
let md: Metadata;
let daemon: TestDaemon;
beforeAll(() => {
  ({ client, md, daemon } = bridge);
});

/** A fresh repository under the allowed path, so tool side effects never mix between tests. */
function freshRepo(): string {
  const dir = join(daemon.repo, '..', randomUUID());
  mkdirSync(dir);
  return dir;
}

async function start(provider: string, agentOpts: Record<string, string> = {}, repo = freshRepo()) {
  const sessionId = randomUUID();
  const res = await call(
    client,
    (c) => c.startSession,
    { projectId: 'alpha', sessionId, repoPath: repo, provider, agentOpts },
    md,
  );
  return { sessionId, res, repo };
}

const send = (sessionId: string, text: string) =>
  call(client, (c) => c.sendInput, { sessionId, text, idempotencyKey: '' }, md);

/** Every event of the session from the start, until `done` says the wanted ones are there. */
const until = (sessionId: string, done: (all: SessionEvent[]) => boolean) =>
  collect(streamEvents(client, { sessionId, afterSeq: 0n }, md), (_e, all) => done(all)).then(
    (r) => r.events,
  );
const count = (events: SessionEvent[], type: EventType) =>
  events.filter((e) => e.type === type).length;
const turnsDone = (n: number) => (all: SessionEvent[]) =>
  count(all, T.EVENT_TYPE_TURN_COMPLETED) >= n;
const ended = (all: SessionEvent[]) =>
  all.some(
    (e) => e.type === T.EVENT_TYPE_SESSION_FAILED || e.type === T.EVENT_TYPE_SESSION_STOPPED,
  );
const agentEvents = (events: SessionEvent[]) =>
  events.filter((e) => e.type >= T.EVENT_TYPE_TURN_STARTED && e.type <= T.EVENT_TYPE_AGENT_ERROR);
const stop = (sessionId: string, force = false) =>
  call(client, (c) => c.stopSession, { sessionId, force }, md);
const get = (sessionId: string) => call(client, (c) => c.getSession, { sessionId }, md);

describe.each(Object.keys(FLAVOURS) as Flavour[])('acp adapter as %s', (flavour) => {
  const def = FLAVOURS[flavour];

  it('streams a text turn: input, TURN_STARTED, deltas, the message, TURN_COMPLETED with usage', async () => {
    const { sessionId, res } = await start(flavour);
    expect(res.status).toBe(SessionStatus.SESSION_STATUS_RUNNING);
    const sent = await send(sessionId, 'hello');
    const events = await until(sessionId, turnsDone(1));
    const input = events.find((e) => e.type === T.EVENT_TYPE_INPUT_RECEIVED)!;
    expect(input.seq).toBe(sent.seq);
    const turn = agentEvents(events);
    expect(turn.map((e) => [e.type, e.text])).toEqual([
      [T.EVENT_TYPE_TURN_STARTED, ''],
      // The model's 'Hello', ' from', ' fake', ' model.' as the redactor
      // settles them: each word once it is complete.
      [T.EVENT_TYPE_AGENT_MESSAGE_DELTA, 'Hello '],
      [T.EVENT_TYPE_AGENT_MESSAGE_DELTA, 'from '],
      [T.EVENT_TYPE_AGENT_MESSAGE_DELTA, 'fake model.'],
      [T.EVENT_TYPE_AGENT_MESSAGE, 'Hello from fake model.'],
      [T.EVENT_TYPE_TURN_COMPLETED, 'end_turn'],
    ]);
    expect(Number(turn[0]!.seq)).toBeGreaterThan(Number(sent.seq));
    expect(new Set(turn.map((e) => e.turnId))).toEqual(new Set(['turn-1']));
    expect(turn[0]!.data).toMatchObject({
      agent: flavour === 'gemini' ? 'gemini-cli' : 'OpenCode',
    });
    const completed = turn.at(-1)!;
    expect(completed.done).toBe(true);
    expect(completed.data).toMatchObject({
      stop_reason: 'end_turn',
      interrupted: false,
      usage:
        flavour === 'gemini'
          ? { input_tokens: 26, output_tokens: 12 }
          : { input_tokens: 12, output_tokens: 7, total_tokens: 19 },
    });
    await stop(sessionId);
    const after = await until(sessionId, ended);
    expect(after.at(-1)).toMatchObject({ type: T.EVENT_TYPE_SESSION_STOPPED });
    expect(after.at(-1)!.data).toMatchObject({ exit_code: 0 });
  });

  /** What its USE_TOOL request carries in PERMISSION_REQUESTED. */
  const requested = {
    request_id: expect.stringMatching(/^perm-\d+$/),
    tool: 'execute',
    summary: `touch ${def.toolFile}`,
    input: def.toolInput,
    options: ['allow_once', 'allow_session', 'deny'],
    tool_call_id: expect.any(String),
    title: `touch ${def.toolFile}`,
  };
  /** The outcome of the last permission answer the fake read (its log `id`). */
  const lastOutcome = (id: string) =>
    readFileSync(join(bridge.scratch, `${id}.log`), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { result?: { outcome?: unknown } })
      .filter((m) => m.result?.outcome !== undefined)
      .at(-1)?.result?.outcome;

  it('denies a tool by default: the policy refuses the request (reject_once), the refused tool is recorded, nothing runs', async () => {
    const { sessionId, repo } = await start(flavour);
    const mark = daemon.audit.mark();
    await send(sessionId, 'please USE_TOOL');
    const events = await until(sessionId, turnsDone(1));
    const { requested: req } = expectPermission(
      events,
      { ...requested, mode: 'deny' },
      { decision: 'deny', decided_by: 'policy' },
    );
    expect(req.data?.expires_at).toBeUndefined();
    // The tool call itself is still announced, as a plain TOOL_CALL with no permission in it.
    const call = events.find(
      (e) => e.type === T.EVENT_TYPE_TOOL_CALL && e.data?.tool_call_id === req.data?.tool_call_id,
    );
    expect(call?.data).toMatchObject({ kind: 'execute' });
    expect(events.some((e) => e.type === T.EVENT_TYPE_TOOL_CALL && e.data?.permission)).toBe(false);
    const result = events.find((e) => e.type === T.EVENT_TYPE_TOOL_RESULT);
    expect(result?.data).toMatchObject({ status: 'failed', is_error: true });
    expect(Number(result?.seq)).toBeGreaterThan(Number(req.seq));
    expect(
      events.find((e) => e.type === T.EVENT_TYPE_AGENT_MESSAGE && e.text.includes('Tool'))?.text,
    ).toBe('Tool was rejected.');
    expect(existsSync(join(repo, def.toolFile))).toBe(false);
    const [record] = await daemon.audit.waitFor(
      'the policy denial',
      (r) => r.kind === 'permission' && r.session_id === sessionId,
      mark,
    );
    expect(record).toMatchObject({ outcome: 'deny', reason: 'permission_deny', sub: 'tester' });
    await stop(sessionId);
  });

  it('allows a tool when the provider says so: the policy allows it (allow_once), it runs and its result is recorded', async () => {
    const { sessionId, repo } = await start(`${flavour}-allow`);
    const mark = daemon.audit.mark();
    await send(sessionId, 'please USE_TOOL');
    const events = await until(sessionId, turnsDone(1));
    const types = agentEvents(events).map((e) => e.type);
    expect(types.indexOf(T.EVENT_TYPE_TOOL_CALL)).toBeLessThan(
      types.indexOf(T.EVENT_TYPE_TOOL_RESULT),
    );
    const { resolved } = expectPermission(
      events,
      { ...requested, mode: 'allow' },
      { decision: 'allow_once', decided_by: 'policy' },
    );
    const result = events.find((e) => e.type === T.EVENT_TYPE_TOOL_RESULT);
    expect(result?.data).toMatchObject({ status: 'completed', is_error: false });
    expect(Number(result?.seq)).toBeGreaterThan(Number(resolved.seq));
    expect(events.filter((e) => e.type === T.EVENT_TYPE_AGENT_MESSAGE).at(-1)?.text).toBe(
      'Tool ran fine.',
    );
    expect(existsSync(join(repo, def.toolFile))).toBe(true);
    await daemon.audit.waitFor(
      'the policy allow',
      (r) =>
        r.kind === 'permission' && r.session_id === sessionId && r.reason === 'permission_allow',
      mark,
    );
    await stop(sessionId);
  });

  describe('behind the approval gate (permissions: ask)', () => {
    gateCases({
      bridge,
      providers: {
        ask: `${flavour}-ask`,
        timeout: `${flavour}-ask-timeout`,
        auto: `${flavour}-auto`,
      },
      input: 'please USE_TOOL',
      requested,
      ran: (repo) => existsSync(join(repo, def.toolFile)),
      ranReported: (all) => {
        expect(all.find((e) => e.type === T.EVENT_TYPE_TOOL_RESULT)?.data).toMatchObject({
          status: 'completed',
          is_error: false,
        });
        expect(all.filter((e) => e.type === T.EVENT_TYPE_AGENT_MESSAGE).at(-1)?.text).toBe(
          'Tool ran fine.',
        );
      },
      // ACP's answer carries no message: the agent gets its reject option.
      refused: (all) => {
        const by = all.find((e) => e.type === T.EVENT_TYPE_PERMISSION_RESOLVED)?.data?.decided_by;
        expect(lastOutcome(by === 'timeout' ? `${flavour}-ask-timeout` : `${flavour}-ask`)).toEqual(
          { outcome: 'selected', optionId: def.reject },
        );
        expect(all.find((e) => e.type === T.EVENT_TYPE_TOOL_RESULT)?.data).toMatchObject({
          status: 'failed',
          is_error: true,
        });
        expect(all.filter((e) => e.type === T.EVENT_TYPE_AGENT_MESSAGE).at(-1)?.text).toBe(
          'Tool was rejected.',
        );
      },
    });

    it('an allow reaches the agent as its allow-once option, allow_session included (the gate keeps the grant)', async () => {
      const id = `${flavour}-ask`;
      const { sessionId } = await start(id);
      await send(sessionId, 'please USE_TOOL');
      const first = await until(sessionId, asked(1));
      await respondPermission(
        client,
        md,
        sessionId,
        requestIdOf(requestsOf(first)[0]),
        'allow_session',
      );
      await until(sessionId, turnsDone(1));
      expect(lastOutcome(id)).toEqual({ outcome: 'selected', optionId: def.allowOnce });
      await send(sessionId, 'please USE_TOOL');
      await until(sessionId, turnsDone(2));
      expect(lastOutcome(id)).toEqual({ outcome: 'selected', optionId: def.allowOnce });
      await stop(sessionId);
    });
  });

  it('runs inputs sent during a turn as the next turns, in order', async () => {
    const { sessionId } = await start(flavour);
    await send(sessionId, 'first');
    await send(sessionId, 'WHICH');
    const events = await until(sessionId, turnsDone(2));
    const completed = events.filter((e) => e.type === T.EVENT_TYPE_TURN_COMPLETED);
    expect(completed.map((e) => e.turnId)).toEqual(['turn-1', 'turn-2']);
    const second = agentEvents(events).filter((e) => e.turnId === 'turn-2');
    expect(second[0]).toMatchObject({ type: T.EVENT_TYPE_TURN_STARTED });
    expect(Number(second[0]!.seq)).toBeGreaterThan(Number(completed[0]!.seq));
    expect(second.find((e) => e.type === T.EVENT_TYPE_AGENT_MESSAGE)?.text).toMatch(/^model=/);
    await stop(sessionId);
  });

  it('interrupts a running turn with session/cancel; the session takes the next input', async () => {
    const { sessionId } = await start(flavour);
    await send(sessionId, 'HANG');
    await until(sessionId, (all) => all.some((e) => e.text === 'thinking...'));
    const r = await call(client, (c) => c.interruptTurn, { sessionId }, md);
    expect(r).toEqual({ interrupted: true, turnId: 'turn-1' });
    expect(await call(client, (c) => c.interruptTurn, { sessionId }, md)).toEqual({
      interrupted: false,
      turnId: '',
    });
    await send(sessionId, 'hello again');
    const events = await until(sessionId, turnsDone(2));
    const completed = events.filter((e) => e.type === T.EVENT_TYPE_TURN_COMPLETED);
    expect(completed[0]!.data).toMatchObject({ stop_reason: 'cancelled', interrupted: true });
    expect(completed[1]!.data).toMatchObject({ stop_reason: 'end_turn' });
    expect((await get(sessionId)).status).toBe(SessionStatus.SESSION_STATUS_RUNNING);
    await stop(sessionId);
  });

  it('an API/auth failure at prompt time is a clear AGENT_ERROR and a failed turn; the session lives', async () => {
    const { sessionId } = await start(`${flavour}-auth-failure`);
    await send(sessionId, 'hello');
    const events = await until(sessionId, turnsDone(1));
    const err = events.find((e) => e.type === T.EVENT_TYPE_AGENT_ERROR)!;
    expect(err.error).toBe(def.authError);
    expect(err.turnId).toBe('turn-1');
    expect(err.data).toMatchObject({ reason: 'prompt_error', code: -32603 });
    expect(events.at(-1)).toMatchObject({ type: T.EVENT_TYPE_TURN_COMPLETED, done: true });
    expect(events.at(-1)!.data).toMatchObject({ stop_reason: 'error' });
    expect((await get(sessionId)).status).toBe(SessionStatus.SESSION_STATUS_RUNNING);
    await stop(sessionId);
  });

  it('a turn past turn_timeout gets an AGENT_ERROR and is cancelled; the session lives', async () => {
    const { sessionId } = await start(`${flavour}-timeout`);
    await send(sessionId, 'HANG');
    const events = await until(sessionId, turnsDone(1));
    const err = events.find((e) => e.type === T.EVENT_TYPE_AGENT_ERROR)!;
    expect(err).toMatchObject({ error: 'turn timeout', turnId: 'turn-1' });
    expect(err.data).toMatchObject({ reason: 'turn_timeout', timeout_ms: 1000 });
    expect(events.at(-1)!.data).toMatchObject({ stop_reason: 'cancelled', interrupted: true });
    expect((await get(sessionId)).status).toBe(SessionStatus.SESSION_STATUS_RUNNING);
    await stop(sessionId);
  });

  it('a crash mid-turn is SESSION_FAILED with the exit code and the tail of stderr', async () => {
    const { sessionId } = await start(`${flavour}-crash-mid-turn`);
    await send(sessionId, 'hello');
    const events = await until(sessionId, ended);
    const last = events.at(-1)!;
    expect(last.type).toBe(T.EVENT_TYPE_SESSION_FAILED);
    expect(last.error).toBe('agent exited with code 3');
    expect(last.data).toMatchObject({ exit_code: 3, reason: 'crashed' });
    expect(String(last.data?.stderr_tail)).toContain('fatal: the fake agent crashed mid-turn');
    expect(
      events.some((e) => e.type === T.EVENT_TYPE_AGENT_MESSAGE_DELTA && e.text === 'Working'),
    ).toBe(true);
    expect(count(events, T.EVENT_TYPE_TURN_COMPLETED)).toBe(0);
  });

  it('stops an agent that ignores EOF and SIGTERM: SIGKILL to the group, grandchild included', async () => {
    const { sessionId } = await start(`${flavour}-ignore-sigterm`);
    const { pid } = await get(sessionId);
    await waitFor('the agent and its grandchild in its group', () => groupMembers(pid).length >= 2);
    const stopped = await stop(sessionId);
    expect(stopped.status).toBe(SessionStatus.SESSION_STATUS_STOPPED);
    await waitFor(`process group ${pid} to be gone`, () => groupMembers(pid).length === 0, 5000);
    const events = await until(sessionId, ended);
    expect(events.some((e) => e.text === 'ignoring SIGTERM')).toBe(true);
    expect(events.at(-1)!.data).toMatchObject({ reason: 'stop_requested', signal: 'SIGKILL' });
  });

  it('keeps banners, stray text and malformed JSON as STDOUT, joins split lines, loses nothing', async () => {
    const { sessionId } = await start(`${flavour}-malformed`);
    await send(sessionId, 'hello');
    await until(sessionId, turnsDone(1));
    await stop(sessionId);
    const events = await until(sessionId, ended);
    expect(events.filter((e) => e.type === T.EVENT_TYPE_STDOUT).map((e) => e.text)).toEqual([
      'fake agent banner: starting up',
      'stray text inside a turn',
      '{"jsonrpc":"2.0","method":',
      'goodbye without a newline',
    ]);
    // The split protocol line is one delta, stored word by word.
    expect(
      events
        .filter((e) => e.type === T.EVENT_TYPE_AGENT_MESSAGE_DELTA)
        .slice(0, 2)
        .map((e) => e.text),
    ).toEqual(['split ', 'line']);
    expect(events.at(-1)).toMatchObject({ type: T.EVENT_TYPE_SESSION_STOPPED });
  });

  it('keeps every delta of a flood in order, and protocol lines of megabytes whole', async () => {
    const { sessionId } = await start(`${flavour}-flood`);
    await send(sessionId, 'go');
    const events = await until(sessionId, turnsDone(1));
    const deltas = events
      .filter((e) => e.type === T.EVENT_TYPE_AGENT_MESSAGE_DELTA)
      .map((e) => e.text);
    expect(deltas).toHaveLength(2001);
    expect(deltas.slice(0, 2000)).toEqual(Array.from({ length: 2000 }, (_, i) => `c${i} `));
    expect(deltas[2000] === 'B'.repeat(2 * 1024 * 1024)).toBe(true);
    const message = events.find((e) => e.type === T.EVENT_TYPE_AGENT_MESSAGE)!;
    // The complete message is capped at 1 MiB characters; the deltas carry everything.
    const all = deltas.join('');
    expect(message.text.length).toBe(1024 * 1024);
    expect(all.startsWith(message.text)).toBe(true);
    expect(message.data).toMatchObject({ truncated: true });
    const seqs = events.map((e) => Number(e.seq));
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    await stop(sessionId, true);
  });

  it('applies agent_opts model and mode, each the way the agent takes it', async () => {
    const { sessionId, res } = await start(`${flavour}-opts`, { model: def.model, mode: 'plan' });
    expect(res.status).toBe(SessionStatus.SESSION_STATUS_RUNNING);
    await send(sessionId, 'WHICH');
    const events = await until(sessionId, turnsDone(1));
    expect(events.find((e) => e.type === T.EVENT_TYPE_AGENT_MESSAGE)?.text).toBe(
      `model=${def.model} mode=plan`,
    );
    await stop(sessionId);
  });

  it('refuses agent_opts outside the policy with PERMISSION_DENIED, malformed ones with INVALID_ARGUMENT, and spawns nothing', async () => {
    const before = descendants(daemon.pid).length;
    const cases: [string, Record<string, string>, status][] = [
      [`${flavour}-opts`, { mode: 'yolo' }, status.PERMISSION_DENIED],
      [`${flavour}-opts`, { mode: 'autoEdit' }, status.PERMISSION_DENIED],
      [flavour, { mode: 'autoEdit' }, status.PERMISSION_DENIED],
      [flavour, { sandbox: 'x' }, status.PERMISSION_DENIED],
      [flavour, { model: '--dangerously' }, status.INVALID_ARGUMENT],
      [flavour, { model: 'a b' }, status.INVALID_ARGUMENT],
    ];
    for (const [provider, agentOpts, code] of cases) {
      const sessionId = randomUUID();
      const p = call(
        client,
        (c) => c.startSession,
        { projectId: 'alpha', sessionId, repoPath: daemon.repo, provider, agentOpts },
        md,
      );
      expect(await codeOf(p)).toBe(code);
      expect(await codeOf(get(sessionId))).toBe(status.NOT_FOUND);
    }
    expect(descendants(daemon.pid).length).toBe(before);
  });

  it('refuses the agent`s file system and terminal requests', async () => {
    const { sessionId } = await start(flavour);
    await send(sessionId, 'READ_FILE');
    const events = await until(sessionId, turnsDone(1));
    expect(events.find((e) => e.type === T.EVENT_TYPE_AGENT_MESSAGE)?.text).toBe(
      'fs error -32601: fs/read_text_file is not supported: this client offers no file system or terminal access',
    );
    await stop(sessionId);
  });
});

describe('acp providers at start-up and in ListProviders', () => {
  it('gemini without credentials exits 41 at start: the session fails with its message', async () => {
    const { sessionId, res } = await start('gemini-no-auth');
    expect(res.status).toBe(SessionStatus.SESSION_STATUS_FAILED);
    const s = await get(sessionId);
    expect(s.error).toContain('code 41');
    expect(s.error).toContain('Please set an Auth method');
    const events = await until(sessionId, ended);
    expect(events.at(-1)?.type).toBe(T.EVENT_TYPE_SESSION_FAILED);
  });

  it('an untrusted-directory exit (55) fails the start with its code', async () => {
    const { sessionId, res } = await start('gemini-untrusted');
    expect(res.status).toBe(SessionStatus.SESSION_STATUS_FAILED);
    const { error } = await get(sessionId);
    expect(error).toContain('code 55');
    expect(error).toContain('Gemini CLI is not running in a trusted directory');
    const events = await until(sessionId, ended);
    expect(String(events.at(-1)?.data?.stderr_tail)).toContain(
      'not running in a trusted directory',
    );
  });

  it('reports version, capabilities and the free auth probe of each flavour', async () => {
    const providers = await listedOnceProbed(
      () => call(client, (c) => c.listProviders, {}, md),
      Object.keys(FLAVOURS),
    );
    const byId = new Map(providers.map((p) => [p.id, p]));
    for (const f of Object.keys(FLAVOURS) as Flavour[]) {
      expect(byId.get(f)).toMatchObject({
        available: true,
        version: FLAVOURS[f].version,
        binaryPath: FLAVOURS[f].binary,
        capabilities: {
          structuredEvents: true,
          multiTurn: true,
          interrupt: true,
          permissionRequests: true,
        },
      });
    }
    expect(byId.get('opencode')).toMatchObject({
      authState: ProviderAuthState.PROVIDER_AUTH_STATE_UNAUTHENTICATED,
      authDetail: 'opencode providers list: 0 credentials, and no provider key in the environment',
    });
    expect(byId.get('gemini')).toMatchObject({
      authState: ProviderAuthState.PROVIDER_AUTH_STATE_AUTHENTICATED,
      authDetail: 'GEMINI_API_KEY set (not validated)',
    });
    expect(byId.get('gemini-no-auth')?.authState).toBe(
      ProviderAuthState.PROVIDER_AUTH_STATE_UNAUTHENTICATED,
    );
  });
});
