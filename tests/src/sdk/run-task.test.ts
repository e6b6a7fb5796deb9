/**
 * runTask on a BridgeClient and on a BridgeFleet, against real daemons and
 * the real mock agent: each of the four statuses, the pre-flight that skips
 * without starting anything, permission answers, the fleet's fallback to
 * the next daemon, and the session stopped afterwards in every case.
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type BridgeClient,
  BridgeFleet,
  type PermissionRequest,
  type SessionEvent,
  type TaskReport,
} from '@agent-bridge/bridgeclient';
import { useDaemon, waitFor } from '@agent-bridge/harness';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { clientOptions, closeClients, sdkClient } from './helpers.js';

// One repository path valid on both daemons, as on hosts that share a layout.
const shared = realpathSync(
  mkdtempSync(join(process.env.BRIDGE_TEST_TMPDIR ?? tmpdir(), 'task-repos-')),
);
const repoPath = shared;
afterAll(() => rmSync(shared, { recursive: true, force: true }));

// "main" offers the mock, the mock behind the approval gate, a provider
// whose binary does not exist and an agent that crashes on its first input;
// "spare" only the mock, with room for one session per project.
const main = useDaemon({
  fakeProviders: { crash: ['crash-on-input'] },
  config: {
    allowed_paths: [shared],
    sessions: { max_per_project: 4 },
    providers: {
      mock_ask: { adapter: 'mock', permissions: 'ask', permission_timeout: '60s' },
      mock_quick: { adapter: 'mock', permissions: 'ask', permission_timeout: '1s' },
      ghost: { binary: '/nonexistent/ghost-agent' },
    },
  },
});
const spare = useDaemon({
  config: { allowed_paths: [shared], sessions: { max_per_project: 1 } },
});

const fleets: BridgeFleet[] = [];
afterEach(() => {
  for (const f of fleets.splice(0)) f.close();
  closeClients();
});

/** A client of `main` acting for its own project, so its session list is the test's alone. */
const clientFor = (project: string, bridge = main) =>
  sdkClient(bridge, { jwt: { projectId: project } });

async function sessionIds(client: BridgeClient): Promise<string[]> {
  const ids: string[] = [];
  for await (const s of client.sessions()) ids.push(s.sessionId);
  return ids;
}

/** The task's session is over (the task stopped it, or it failed): waits for its final status. */
async function expectEnded(client: BridgeClient, sessionId: string) {
  expect(sessionId).not.toBe('');
  let status = '';
  await waitFor(
    () => `session ${sessionId} to end (${status})`,
    async () => {
      status = (await client.getSession(sessionId)).status;
      return status === 'STOPPED' || status === 'FAILED';
    },
  );
  return client.getSession(sessionId);
}

/** Every event of a finished session. */
async function eventsOf(client: BridgeClient, sessionId: string): Promise<SessionEvent[]> {
  const out: SessionEvent[] = [];
  for await (const e of client.events(sessionId, { afterSeq: 0 })) out.push(e);
  return out;
}

const TOOL_PROMPT = 'check the tree\n/tool Bash ls -la';

describe('runTask on a client', () => {
  it('COMPLETED: the final message, the seq range of the turn, usage, and the session stopped', async () => {
    const client = clientFor('task-ok');
    const seen: SessionEvent[] = [];
    const report = await client.runTask({
      provider: 'mock',
      repoPath,
      prompt: 'summarise the repository',
      onEvent: (e) => {
        seen.push(e);
      },
    });
    expect(report).toMatchObject({
      status: 'COMPLETED',
      error: '',
      toolCalls: [],
      permissions: [],
      firstSeq: 1,
      usage: { input_tokens: 'summarise the repository'.length },
      costUsd: 0,
    });
    expect(report.summary).toMatch(
      /^mock\[1\]: received "summarise the repository" \(.*\)\. done$/,
    );
    expect(report.durationMs).toBeGreaterThan(0);
    expect(report.daemon).toBeUndefined();

    // The range ends with the turn's TURN_COMPLETED; onEvent got each event of it once, in order.
    expect(seen.map((e) => e.seq)).toEqual(Array.from({ length: report.lastSeq }, (_, i) => i + 1));
    expect(seen.at(-1)?.type).toBe('TURN_COMPLETED');
    expect(seen.find((e) => e.type === 'INPUT_RECEIVED')?.text).toBe('summarise the repository');

    const info = await expectEnded(client, report.sessionId);
    expect(info.status).toBe('STOPPED');
    const all = await eventsOf(client, report.sessionId);
    expect(all.filter((e) => e.type === 'AGENT_MESSAGE').map((e) => e.text)).toEqual([
      report.summary,
    ]);
  });

  it('SKIPPED at once for a provider the daemon does not have, or has unavailable: nothing starts', async () => {
    const client = clientFor('task-skip');
    const unknown = await client.runTask({ provider: 'nope', repoPath, prompt: 'hello' });
    expect(unknown).toMatchObject({
      status: 'SKIPPED',
      sessionId: '',
      summary: '',
      firstSeq: 0,
      lastSeq: 0,
    });
    expect(unknown.error).toMatch(/^provider "nope" is not configured \(configured: .*mock.*\)$/);

    const ghost = await client.runTask({ provider: 'ghost', repoPath, prompt: 'hello' });
    expect(ghost).toMatchObject({ status: 'SKIPPED', sessionId: '' });
    expect(ghost.error).toMatch(/^provider "ghost" is unavailable: .*ghost-agent/);
    // A pre-flight answer, not a wait: far below any start-up or turn.
    expect(ghost.durationMs).toBeLessThan(2_000);
    expect(await sessionIds(client)).toEqual([]);
  });

  it('SKIPPED when the start says this daemon cannot run it (a repository not on this host); HALTED when the request itself is wrong', async () => {
    const client = clientFor('task-start-refused');
    const missing = await client.runTask({
      provider: 'mock',
      repoPath: join(shared, 'not-here'),
      prompt: 'hello',
    });
    expect(missing).toMatchObject({ status: 'SKIPPED', sessionId: '' });
    expect(missing.error).toMatch(/^StartSession: .*not-here/);

    const outside = await client.runTask({ provider: 'mock', repoPath: tmpdir(), prompt: 'hello' });
    expect(outside).toMatchObject({ status: 'HALTED', sessionId: '' });
    expect(outside.error).toMatch(/^StartSession: .*allowed/);
    expect(await sessionIds(client)).toEqual([]);
  });

  it('HALTED on its timeout: the slow turn is cut short, what was seen is reported, the session stopped', async () => {
    const client = clientFor('task-timeout');
    let deltas = 0;
    const report = await client.runTask({
      provider: 'mock',
      repoPath,
      prompt: 'a slow answer please, with many many words to stream one by one',
      timeoutMs: 1_500,
      onEvent: (e) => {
        if (e.type === 'AGENT_MESSAGE_DELTA') deltas++;
      },
    });
    expect(report).toMatchObject({
      status: 'HALTED',
      error: 'timed out after 1500 ms while the agent worked',
    });
    expect(deltas).toBeGreaterThan(0);
    expect(report.lastSeq).toBeGreaterThan(report.firstSeq);
    expect(report.usage).toBeUndefined();
    const all = await eventsOf(client, report.sessionId);
    expect(all.some((e) => e.type === 'TURN_COMPLETED' && e.seq <= report.lastSeq)).toBe(false);
    expect((await expectEnded(client, report.sessionId)).status).toBe('STOPPED');
  });

  it('HALTED when the agent crashes: the session failure is the error', async () => {
    const client = clientFor('task-crash');
    const report = await client.runTask({
      provider: 'crash',
      repoPath,
      prompt: 'go',
      timeoutMs: 30_000,
    });
    expect(report.status).toBe('HALTED');
    expect(report.error).toBe(
      'the session failed before the turn completed: agent exited with code 7',
    );
    const info = await expectEnded(client, report.sessionId);
    expect(info.status).toBe('FAILED');
    const all = await eventsOf(client, report.sessionId);
    expect(report.lastSeq).toBe(all.at(-1)?.seq);
    expect(all.at(-1)?.type).toBe('SESSION_FAILED');
  });

  it('ABORTED by its signal mid-turn, and at once when aborted before it starts', async () => {
    const client = clientFor('task-abort');
    const abort = new AbortController();
    const report = await client.runTask({
      provider: 'mock',
      repoPath,
      prompt: 'a slow answer please, with many many words to stream one by one',
      signal: abort.signal,
      onEvent: (e) => {
        if (e.type === 'AGENT_MESSAGE_DELTA') abort.abort(new Error('the user changed their mind'));
      },
    });
    expect(report).toMatchObject({
      status: 'ABORTED',
      error: 'aborted while the agent worked: the user changed their mind',
    });
    expect(report.lastSeq).toBeGreaterThan(0);
    expect((await expectEnded(client, report.sessionId)).status).toBe('STOPPED');

    const before = await client.runTask({
      provider: 'mock',
      repoPath,
      prompt: 'never sent',
      signal: AbortSignal.abort(),
    });
    expect(before).toMatchObject({
      status: 'ABORTED',
      sessionId: '',
      error: 'aborted before it started',
    });
    expect(await sessionIds(client)).toEqual([report.sessionId]);
  });

  it('permissions: a function answers requests that wait, in toolCalls and permissions', async () => {
    const client = clientFor('task-ask');
    const asked: PermissionRequest[] = [];
    const allowed = await client.runTask({
      provider: 'mock_ask',
      repoPath,
      prompt: TOOL_PROMPT,
      permissions: (request) => {
        asked.push(request);
        return 'allow_once';
      },
    });
    expect(asked.map((r) => ({ tool: r.tool, summary: r.summary, mode: r.mode }))).toEqual([
      { tool: 'Bash', summary: expect.stringContaining('ls -la'), mode: 'ask' },
    ]);
    expect(allowed.status).toBe('COMPLETED');
    expect(allowed.toolCalls).toEqual([
      {
        name: 'Bash',
        toolCallId: 'toolu_mock_1',
        input: { command: 'ls -la' },
        permission: 'allow_once',
        isError: false,
        output: expect.stringContaining('would have run'),
      },
    ]);
    expect(allowed.permissions).toMatchObject([
      { requestId: asked[0]?.requestId, tool: 'Bash', decision: 'allow_once', decidedBy: 'caller' },
    ]);
    expect(allowed.summary).toContain('Bash was allowed');

    const denied = await client.runTask({
      provider: 'mock_ask',
      repoPath,
      prompt: TOOL_PROMPT,
      permissions: 'deny',
    });
    expect(denied.status).toBe('COMPLETED');
    expect(denied.toolCalls).toMatchObject([{ name: 'Bash', permission: 'deny', isError: true }]);
    expect(denied.permissions).toMatchObject([{ decision: 'deny', decidedBy: 'caller' }]);
    expect(denied.summary).toContain('Bash was denied');
    for (const r of [allowed, denied])
      expect((await expectEnded(client, r.sessionId)).status).toBe('STOPPED');
  });

  it('permissions: a function that returns undefined leaves the request to the daemon’s timeout', async () => {
    const client = clientFor('task-undecided');
    const asked: string[] = [];
    const report = await client.runTask({
      provider: 'mock_quick',
      repoPath,
      prompt: TOOL_PROMPT,
      permissions: (request) => {
        asked.push(request.tool);
        return undefined;
      },
    });
    expect(asked).toEqual(['Bash']);
    expect(report.status).toBe('COMPLETED');
    expect(report.permissions).toMatchObject([{ decision: 'deny', decidedBy: 'timeout' }]);
    expect(report.toolCalls).toMatchObject([{ name: 'Bash', permission: 'deny', isError: true }]);
  });

  it('an error thrown by onEvent rejects runTask with it, after the session is stopped', async () => {
    const client = clientFor('task-caller-bug');
    const bug = new Error('a bug in the caller');
    let sessionId = '';
    await expect(
      client.runTask({
        provider: 'mock',
        repoPath,
        prompt: 'hello',
        onEvent: (e) => {
          sessionId = e.sessionId;
          if (e.type === 'INPUT_RECEIVED') throw bug;
        },
      }),
    ).rejects.toBe(bug);
    expect((await expectEnded(client, sessionId)).status).toBe('STOPPED');
  });

  it('permissions: requests the daemon decides at once (permissions: deny) are only recorded', async () => {
    const client = clientFor('task-policy');
    let calls = 0;
    const report = await client.runTask({
      provider: 'mock',
      repoPath,
      prompt: TOOL_PROMPT,
      permissions: () => {
        calls++;
        return 'allow_once';
      },
    });
    expect(calls).toBe(0);
    expect(report.status).toBe('COMPLETED');
    expect(report.toolCalls).toMatchObject([{ name: 'Bash', permission: 'deny', isError: true }]);
    expect(report.permissions).toMatchObject([{ decision: 'deny', decidedBy: 'policy' }]);
  });
});

describe('runTask on a fleet', () => {
  const member = (name: string, bridge: typeof main, project: string) => ({
    name,
    ...clientOptions(bridge, { jwt: { projectId: project } }),
  });
  const fleetOf = (project: string, probeTtlMs?: number) => {
    const f = new BridgeFleet({
      daemons: [member('spare', spare, project), member('main', main, project)],
      ...(probeTtlMs ? { probeTtlMs } : {}),
    });
    fleets.push(f);
    return f;
  };

  it('runs on a daemon that offers the provider when the other lacks it', async () => {
    const fleet = fleetOf('fleet-lacks');
    const report = await fleet.runTask({ provider: 'mock_ask', repoPath, prompt: 'hello fleet' });
    expect(report).toMatchObject({ status: 'COMPLETED', daemon: 'main' });
    expect(report.summary).toContain('received "hello fleet"');
    const onMain = fleet.clients.get('main') as BridgeClient;
    expect((await expectEnded(onMain, report.sessionId)).status).toBe('STOPPED');
  });

  it('moves on when the start on the roomiest daemon is refused (its limit reached since the probe)', async () => {
    const fleet = fleetOf('fleet-full', 60_000);
    // Placement's view, cached: main has room for 4, spare for 1, so main comes first.
    const rooms = (await fleet.status()).map((s) => [
      s.daemon,
      s.reachable && s.health.freeCapacity,
    ]);
    expect(rooms).toEqual([
      ['spare', 1],
      ['main', 4],
    ]);
    const onMain = fleet.clients.get('main') as BridgeClient;
    const fill: string[] = [];
    for (let i = 0; i < 4; i++) {
      fill.push((await onMain.startSession({ provider: 'mock', repoPath })).sessionId);
    }
    try {
      const report = await fleet.runTask({ provider: 'mock', repoPath, prompt: 'any room?' });
      expect(report).toMatchObject({ status: 'COMPLETED', daemon: 'spare' });
      const onSpare = fleet.clients.get('spare') as BridgeClient;
      expect((await expectEnded(onSpare, report.sessionId)).status).toBe('STOPPED');
      expect((await sessionIds(onMain)).sort()).toEqual([...fill].sort());
    } finally {
      for (const id of fill) await onMain.stopSession(id);
    }
  });

  it('SKIPPED with each daemon’s reason when none can run it', async () => {
    const fleet = fleetOf('fleet-none');
    const report: TaskReport = await fleet.runTask({ provider: 'ghost', repoPath, prompt: 'hi' });
    expect(report).toMatchObject({ status: 'SKIPPED', sessionId: '', summary: '' });
    expect(report.error).toMatch(/^no daemon of the fleet can run it: /);
    expect(report.error).toMatch(/spare: provider "ghost" is not configured/);
    expect(report.error).toMatch(/main: provider "ghost" is unavailable/);
    for (const c of fleet.clients.values()) expect(await sessionIds(c)).toEqual([]);
  });
});
