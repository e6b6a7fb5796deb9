import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  healthOnceProbed,
  noStartupClock,
  REPO_ROOT,
  testProviderHost,
  waitFor,
} from '@agent-bridge/harness';
import type {
  AgentEvent,
  AgentHandle,
  PermissionAsk,
  PermissionDecision,
} from '@agent-bridge/providers';
import { createProviders } from '@agent-bridge/providers/host';
import { afterAll, describe, expect, it } from 'vitest';

// The codex provider on its own (no daemon) against the fake CLI: the
// request kinds the daemon tests do not reach, queued input, isolation.

const FAKE_CODEX = join(REPO_ROOT, 'tests/fixtures/fake-codex.mjs');
const dir = realpathSync(mkdtempSync(join(tmpdir(), 'codex-provider-')));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function provider(extra: Record<string, unknown> = {}, env: Record<string, string> = {}) {
  const def = { adapter: 'codex', binary: FAKE_CODEX, args: [], env, ...extra };
  const p = createProviders({ codex: def }, testProviderHost({ tempRoot: dir })).get('codex');
  if (!p) throw new Error('no provider');
  return p;
}

/**
 * Starts a session whose permission requests are all answered `decision`
 * (as the daemon's gate would, by "policy"); `asks` are the requests it got.
 */
async function start(
  p: ReturnType<typeof provider>,
  decision: PermissionDecision = 'deny',
): Promise<{ handle: AgentHandle; events: AgentEvent[]; asks: PermissionAsk[] }> {
  const events: AgentEvent[] = [];
  const asks: PermissionAsk[] = [];
  const repo = realpathSync(mkdtempSync(join(dir, 'repo-')));
  const handle = await p.start({
    projectId: 'p',
    sessionId: '7d6c5b4a-3f2e-4d1c-8b9a-0f1e2d3c4b5a',
    repoPath: repo,
    cwd: repo,
    options: {},
    spawned: () => {},
    emit: (e) => events.push(e),
    signal: AbortSignal.timeout(10_000),
    startupClock: noStartupClock,
    lifetime: new AbortController().signal,
    askPermission: async (ask) => {
      asks.push(ask);
      return { decision, decidedBy: 'policy', reason: '' };
    },
  });
  return { handle, events, asks };
}

const completed = (events: AgentEvent[], n: number) =>
  waitFor(
    () =>
      `${n} completed turns; events: ${events.map((e) => `${e.type} ${e.text.slice(0, 60)}`).join(' | ')}`,
    () => events.filter((e) => e.type === 'TURN_COMPLETED').length >= n,
  );
const messages = (events: AgentEvent[]) =>
  events.filter((e) => e.type === 'AGENT_MESSAGE').map((e) => e.text);

describe('CodexProvider with the fake codex CLI', () => {
  it('grants a permissions request exactly as asked when allowed, and nothing when denied', async () => {
    for (const [decision, expected] of [
      ['allow_once', 'Granted: {"network":{"enabled":true}} for turn'],
      ['deny', 'Granted: {} for turn'],
    ] as const) {
      const { handle, events, asks } = await start(provider(), decision);
      handle.send('ASK_PERMS', () => {});
      await completed(events, 1);
      expect(messages(events)).toEqual([expected]);
      expect(asks).toEqual([
        expect.objectContaining({
          tool: 'permissions',
          input: { permissions: { network: { enabled: true }, fileSystem: null } },
          options: ['allow_once', 'allow_session', 'deny'],
          toolCallId: expect.stringMatching(/^perm_/),
          turnId: expect.any(String),
          details: {
            approval_request: 'item/permissions/requestApproval',
            agent_reason: 'needs the network',
          },
        }),
      ]);
      // The request is the gate's to record: the driver emits no event of its own for it.
      expect(events.some((e) => e.type === 'TOOL_CALL')).toBe(false);
      await handle.stop({ force: false, gracePeriodMs: 2000 });
    }
  });

  it('answers a user-input request with no answers and records it', async () => {
    const { handle, events, asks } = await start(provider(), 'allow_once');
    handle.send('ASK_USER', () => {});
    await completed(events, 1);
    expect(messages(events)).toEqual(['Answers: {}']);
    // Not a permission request: the gate is never asked.
    expect(asks).toEqual([]);
    expect(events.find((e) => e.type === 'TOOL_CALL')?.data).toMatchObject({
      name: 'requestUserInput',
      decision: 'no answer',
    });
    await handle.stop({ force: false, gracePeriodMs: 2000 });
  });

  it('an allowed file change is written; each queued input becomes its own turn, in order', async () => {
    const { handle, events, asks } = await start(provider(), 'allow_once');
    handle.send('EDIT_FILE', () => {});
    handle.send('one', () => {});
    handle.send('two', () => {});
    await completed(events, 3);
    expect(messages(events)).toEqual([
      'Wrote notes.txt.',
      'Hello from fake codex. You said: one',
      'Hello from fake codex. You said: two',
    ]);
    const ids = events.filter((e) => e.type === 'TURN_STARTED').map((e) => e.turnId);
    expect(new Set(ids).size).toBe(3);
    expect(asks).toEqual([
      expect.objectContaining({
        tool: 'fileChange',
        summary: 'apply a file change',
        turnId: ids[0],
      }),
    ]);
    const result = events.find((e) => e.type === 'TOOL_RESULT');
    expect(result?.data).toMatchObject({
      name: 'fileChange',
      status: 'completed',
      is_error: false,
    });
    const path = ((result?.data?.output ?? []) as { path: string }[])[0]?.path ?? '';
    expect(readFileSync(path, 'utf8')).toBe('hello\n');
    expect(await handle.stop({ force: false, gracePeriodMs: 2000 })).toEqual({
      exitCode: 0,
      signal: null,
    });
  });

  it('with isolate_home codex gets its own CODEX_HOME, removed with the session', async () => {
    const p = provider({ isolateHome: true });
    const { handle, events } = await start(p);
    const thread = events.find((e) => e.text.startsWith('codex thread'));
    expect(thread).toBeDefined();
    const status = await healthOnceProbed(p);
    expect(status).toMatchObject({ available: true, version: '0.169.0', authState: 'unknown' });
    expect(status.authDetail).toContain('isolate_home');
    const homes = readdirSync(dir).filter((d) => d.startsWith('agent-bridge-home-7d6c5b4a'));
    expect(homes).toHaveLength(1);
    const rollouts = readdirSync(join(dir, homes[0] ?? '', '.codex', 'sessions'));
    expect(rollouts).toEqual([expect.stringMatching(/^rollout-.*\.jsonl$/)]);
    await handle.stop({ force: false, gracePeriodMs: 2000 });
    for (const h of homes) expect(existsSync(join(dir, h))).toBe(false);
  });

  it('is unavailable, with the reason, when the binary does not exist', async () => {
    const status = await provider({ binary: '/nonexistent/codex' }).health();
    expect(status).toMatchObject({ available: false, version: '' });
    expect(status.error).toContain('/nonexistent/codex');
  });
});
