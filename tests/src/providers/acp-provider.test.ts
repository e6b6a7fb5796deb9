import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  healthOnceProbed,
  isAlive,
  noStartupClock,
  REPO_ROOT,
  testProbeHost,
  waitFor,
} from '@agent-bridge/harness';
import type { AgentEvent, AgentHandle, PermissionAsk, SessionSpec } from '@agent-bridge/providers';
import { AcpProvider, StartupGate, SupervisedProcess } from '@agent-bridge/providers/host';
import { afterAll, describe, expect, it } from 'vitest';

// The acp adapter on its own (no daemon), for what the daemon's config
// cannot reach: sub-second turn timeouts, an agent that ignores cancel, the
// env defaults and overrides, and processes left behind.
const FAKE_OPENCODE = join(REPO_ROOT, 'tests/fixtures/fake-opencode.mjs');
const FAKE_GEMINI = join(REPO_ROOT, 'tests/fixtures/fake-gemini.mjs');
const repo = realpathSync(mkdtempSync(join(tmpdir(), 'acp-provider-')));
afterAll(() => rmSync(repo, { recursive: true, force: true }));
const probes = testProbeHost();

function provider(
  binary: string,
  opts: Partial<ConstructorParameters<typeof AcpProvider>[0]> = {},
) {
  return new AcpProvider({
    id: 'acp-test',
    binary,
    args: binary === FAKE_GEMINI ? ['--acp'] : ['acp'],
    env: { HOME: repo },
    parentEnv: process.env,
    tempRoot: repo,
    spawn: SupervisedProcess.spawn,
    startupGate: new StartupGate(),
    probes,
    ...opts,
  });
}

/** Starts a session whose permission requests are all denied (as by the default policy); `asks` are what it got. */
async function start(
  p: AcpProvider,
  options: Record<string, string> = {},
  events: AgentEvent[] = [],
) {
  const asks: PermissionAsk[] = [];
  const handle = await p.start({
    projectId: 'p',
    sessionId: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
    repoPath: repo,
    cwd: repo,
    options,
    spawned: () => {},
    emit: (e) => events.push(e),
    signal: AbortSignal.timeout(10_000),
    startupClock: noStartupClock,
    lifetime: new AbortController().signal,
    askPermission: async (ask) => {
      asks.push(ask);
      return { decision: 'deny', decidedBy: 'policy', reason: '' };
    },
  } satisfies SessionSpec);
  return { handle, events, asks };
}

const seen = (events: AgentEvent[], pred: (e: AgentEvent) => boolean) =>
  waitFor(
    () =>
      `an event that ${pred}; events: ${events.map((e) => `${e.type} ${e.text.slice(0, 60)}`).join(' | ')}`,
    () => events.some(pred),
  );

const stop = (h: AgentHandle) => h.stop({ force: false, gracePeriodMs: 2000 });

describe('AcpProvider with the fake agent', () => {
  it('kills an agent that ignores the cancel of a timed-out turn', async () => {
    const p = provider(FAKE_OPENCODE, {
      turnTimeoutMs: 200,
      interruptWaitMs: 100,
      env: { HOME: repo, FAKE_ACP_SCENARIO: 'ignore-cancel' },
    });
    const { handle, events } = await start(p);
    handle.send('HANG', () => {});
    expect(await handle.exited).toEqual({ exitCode: null, signal: 'SIGKILL' });
    expect(events.find((e) => e.type === 'AGENT_ERROR')).toMatchObject({
      error: 'turn timeout',
      turnId: 'turn-1',
    });
    expect(events.some((e) => e.type === 'TURN_COMPLETED')).toBe(false);
  });

  it('gives gemini its trust and no-relaunch defaults, which config env can override', async () => {
    const ok = await start(provider(FAKE_GEMINI));
    expect(await stop(ok.handle)).toEqual({ exitCode: 0, signal: null });
    const distrusted = provider(FAKE_GEMINI, {
      env: { HOME: repo, GEMINI_CLI_TRUST_WORKSPACE: 'false' },
    });
    const events: AgentEvent[] = [];
    await expect(start(distrusted, {}, events)).rejects.toThrow(
      'agent exited during start-up (code 55)',
    );
    expect(events.filter((e) => e.type === 'STDERR').map((e) => e.text)).toContainEqual(
      expect.stringContaining('Gemini CLI is not running in a trusted directory'),
    );
  });

  it('makes opencode ask before every tool (its default is to allow all), unless config env says otherwise', async () => {
    const asking = await start(provider(FAKE_OPENCODE));
    asking.handle.send('USE_TOOL', () => {});
    await seen(asking.events, (e) => e.type === 'TURN_COMPLETED');
    expect(asking.asks).toEqual([
      expect.objectContaining({
        tool: 'execute',
        summary: 'touch created.txt',
        input: { command: 'touch created.txt' },
        options: ['allow_once', 'allow_session', 'deny'],
        turnId: 'turn-1',
      }),
    ]);
    expect(asking.events.find((e) => e.type === 'TOOL_RESULT')?.data).toMatchObject({
      status: 'failed',
    });
    expect(existsSync(join(repo, 'created.txt'))).toBe(false);
    await stop(asking.handle);

    // An operator who overrides OPENCODE_PERMISSION takes the decision back from the bridge.
    const open = await start(
      provider(FAKE_OPENCODE, { env: { HOME: repo, OPENCODE_PERMISSION: '{"*":"allow"}' } }),
    );
    open.handle.send('USE_TOOL', () => {});
    await seen(open.events, (e) => e.type === 'TURN_COMPLETED');
    expect(open.asks).toEqual([]);
    expect(existsSync(join(repo, 'created.txt'))).toBe(true);
    rmSync(join(repo, 'created.txt'));
    await stop(open.handle);
  });

  it('passes the model to gemini as -m and to opencode through its model config option', async () => {
    for (const [binary, model] of [
      [FAKE_GEMINI, 'gemini-2.5-flash'],
      [FAKE_OPENCODE, 'opencode/big-pickle'],
    ] as const) {
      const { handle, events } = await start(provider(binary), { model });
      handle.send('WHICH', () => {});
      await seen(events, (e) => e.type === 'TURN_COMPLETED');
      expect(events.find((e) => e.type === 'AGENT_MESSAGE')?.text).toMatch(`model=${model} `);
      await stop(handle);
    }
  });

  it('fails start-up when the agent rejects the model', async () => {
    await expect(start(provider(FAKE_OPENCODE), { model: 'nope/none' })).rejects.toThrow(
      'agent start-up failed: session/set_config_option: Model not found: nope/none',
    );
  });

  it('kills a grandchild the agent leaves behind when it exits', async () => {
    const p = provider(FAKE_OPENCODE, { env: { HOME: repo, FAKE_ACP_SCENARIO: 'grandchild' } });
    const { handle, events } = await start(p);
    await seen(events, (e) => /grandchild \d+/.test(e.text));
    const pid = Number(/grandchild (\d+)/.exec(events.map((e) => e.text).join('\n'))?.[1]);
    expect(isAlive(pid)).toBe(true);
    expect(await stop(handle)).toEqual({ exitCode: 0, signal: null });
    await waitFor(`grandchild ${pid} to be killed`, () => !isAlive(pid), 3000);
  });

  it('reports health without model calls: version and the flavour`s auth probe', async () => {
    expect(await healthOnceProbed(provider(FAKE_OPENCODE))).toMatchObject({
      available: true,
      version: '1.18.33',
      authState: 'unauthenticated',
    });
    expect(
      await healthOnceProbed(
        provider(FAKE_OPENCODE, { env: { HOME: repo, FAKE_OPENCODE_CREDENTIALS: '1' } }),
      ),
    ).toMatchObject({ authState: 'authenticated', authDetail: '1 stored credential' });
    expect(await healthOnceProbed(provider(FAKE_GEMINI))).toMatchObject({
      version: '0.61.0',
      authState: 'unauthenticated',
    });
  });

  it('drives any other ACP agent generically; its auth is unknown until a prompt says otherwise', async () => {
    const p = provider(process.execPath, {
      args: [join(REPO_ROOT, 'tests/fixtures/fake-acp.mjs'), 'acp'],
      env: { HOME: repo, FAKE_ACP_FLAVOUR: 'opencode' },
    });
    expect(p.flavour).toBe('generic');
    expect(await healthOnceProbed(p)).toMatchObject({ available: true, authState: 'unknown' });
    const { handle, events } = await start(p);
    handle.send('hello', () => {});
    await seen(events, (e) => e.type === 'TURN_COMPLETED');
    expect(events.find((e) => e.type === 'AGENT_MESSAGE')?.text).toBe('Hello from fake model.');
    await stop(handle);
  });
});
