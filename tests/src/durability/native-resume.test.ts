/**
 * The daemon SIGKILLed during a turn of a claude, a codex and an ACP agent
 * (fake CLIs that keep their conversations in the session's own home, as
 * the real ones do), then started again on its store: each session goes
 * on with the same conversation. The agent is started again with its
 * resume id (claude `--resume`, codex `thread/resume`, ACP `session/load`:
 * each fake logs what it got), the turn that was running is reported
 * interrupted, SESSION_RESUMED follows, seqs go on, and a next turn
 * remembers the first (the fake answers RECALL with the earlier prompts).
 * With `resume: never`, the same session ends failed (daemon_restarted).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Bridge,
  bridgesOfEachTest,
  FAKE_CLAUDE,
  REPO_ROOT,
  startBridge,
  waitFor,
  within,
} from '@agent-bridge/harness';
import { EventType, type SessionEvent, SessionStatus } from '@agent-bridge/proto';
import { afterEach, describe, expect, it } from 'vitest';

const T = EventType;

/** Each adapter's fake, persisting its conversations, and how to read what it was resumed with. */
function providers(logs: string, resume: 'auto' | 'never') {
  const common = { isolate_home: true, resume };
  return {
    claude: {
      ...common,
      adapter: 'claude',
      binary: FAKE_CLAUDE,
      env: { FAKE_CLAUDE_PERSIST: '1', FAKE_CLAUDE_LOG: join(logs, 'claude.log') },
    },
    codex: {
      ...common,
      adapter: 'codex',
      binary: join(REPO_ROOT, 'tests/fixtures/fake-codex.mjs'),
      env: { FAKE_CODEX_LOG: join(logs, 'codex.log') },
    },
    opencode: {
      ...common,
      adapter: 'acp',
      binary: join(REPO_ROOT, 'tests/fixtures/fake-opencode.mjs'),
      args: ['acp'],
      env: { FAKE_ACP_PERSIST: '1', FAKE_ACP_LOG: join(logs, 'opencode.log') },
    },
  };
}

/** What each fake logged about the conversation it was started on. */
const resumedWith: Record<string, (log: string) => string | undefined> = {
  claude: (log) => {
    const argvs = log
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as string[]);
    const argv = argvs.find((a) => a.includes('--resume'));
    return argv?.[argv.indexOf('--resume') + 1];
  },
  codex: (log) => /^resumed (\S+)$/m.exec(log)?.[1],
  opencode: (log) => {
    const load = log.split('\n').find((l) => l.includes('"session/load"'));
    return load
      ? (JSON.parse(load) as { params: { sessionId: string } }).params.sessionId
      : undefined;
  },
};

/** The sessions' isolated homes, kept beside the daemon's store. */
const homes = (b: Bridge) => {
  const root = join(b.daemon.dir, 'store', 'homes');
  return existsSync(root) ? readdirSync(root) : [];
};

const bridges = bridgesOfEachTest();
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const turnsDone = (all: SessionEvent[]) =>
  all.filter((e) => e.type === T.EVENT_TYPE_TURN_COMPLETED);

/** The second turn is under way: a delta of it has arrived. */
function secondTurnStreaming(all: SessionEvent[]): boolean {
  const started = all.filter((e) => e.type === T.EVENT_TYPE_TURN_STARTED);
  const second = started[1]?.turnId;
  return (
    second !== undefined &&
    all.some((e) => e.type === T.EVENT_TYPE_AGENT_MESSAGE_DELTA && e.turnId === second)
  );
}

/** A first turn, then a turn that hangs; the daemon killed (or stopped) during it and started again. */
async function killedDuringATurn(
  provider: string,
  resume: 'auto' | 'never',
  signal: 'SIGKILL' | 'SIGTERM' = 'SIGKILL',
) {
  const logs = mkdtempSync(join(tmpdir(), 'resume-logs-'));
  dirs.push(logs);
  const config = { providers: providers(logs, resume) };
  const first = await startBridge({ config });
  bridges.push(first);
  const s = await first.sessions().start(provider);
  await s.send('the first message is ONE');
  await s.events((all) => turnsDone(all).length === 1);
  await s.send('now HANG please');
  const hanging = await s.events(secondTurnStreaming);
  const running = hanging.findLast((e) => e.type === T.EVENT_TYPE_TURN_STARTED)?.turnId;
  first.daemon.proc.kill(signal);
  const exit = await within(`the daemon to exit on ${signal}`, first.daemon.exited, 30_000);
  expect(exit.code).toBe(signal === 'SIGKILL' ? null : 0);
  const again = await startBridge({ pki: first.pki, dir: first.daemon.dir, config });
  bridges.push(again);
  return { again, sessionId: s.sessionId, running, hanging, logs };
}

describe('a daemon killed during a turn, started again on its store', () => {
  it.each(['claude', 'codex', 'opencode'])(
    '%s: the same conversation goes on (resumed with its id, the cut turn interrupted, the first turn remembered)',
    { timeout: 60_000 },
    async (provider) => {
      const { again, sessionId, running, hanging, logs } = await killedDuringATurn(
        provider,
        'auto',
      );
      const s = again.sessions().session(sessionId);
      const resumed = await s.events((all) =>
        all.some((e) => e.type === T.EVENT_TYPE_SESSION_RESUMED),
      );
      // What was seen before is there as it was; numbering goes on.
      expect(resumed.slice(0, hanging.length)).toEqual(hanging);
      expect(resumed.map((e) => Number(e.seq))).toEqual(resumed.map((_, i) => i + 1));
      const after = resumed.slice(hanging.length);
      const cut = after.find((e) => e.type === T.EVENT_TYPE_TURN_COMPLETED);
      expect(cut).toMatchObject({
        turnId: running,
        data: { interrupted: true, reason: 'daemon_restarted' },
      });
      const event = resumed.at(-1)!;
      expect(event.type).toBe(T.EVENT_TYPE_SESSION_RESUMED);
      const conversation = (event.data as { conversation_id: string }).conversation_id;
      expect(event.data).toMatchObject({
        reason: 'daemon_restarted',
        interrupted_turn_id: running,
        pid: (await s.get()).pid,
      });
      // SESSION_STARTED stays seq 1: the new process is announced by SESSION_RESUMED.
      expect(
        resumed.filter((e) => e.type === T.EVENT_TYPE_SESSION_STARTED).map((e) => e.seq),
      ).toEqual([1n]);
      // The fake was started on that conversation, and remembers it.
      expect(resumedWith[provider]!(readFileSync(join(logs, `${provider}.log`), 'utf8'))).toBe(
        conversation,
      );
      expect((await s.get()).status).toBe(SessionStatus.SESSION_STATUS_RUNNING);
      await s.send('RECALL');
      const all = await s.events((es) => turnsDone(es).length === 3);
      const reply = all.findLast((e) => e.type === T.EVENT_TYPE_AGENT_MESSAGE)?.text ?? '';
      expect(reply).toContain('the first message is ONE');
      await s.stop();
    },
  );

  it('resume: never ends the session failed (daemon_restarted), the cut turn still reported', {
    timeout: 60_000,
  }, async () => {
    const { again, sessionId, running } = await killedDuringATurn('claude', 'never');
    const s = again.sessions().session(sessionId);
    const all = await s.events();
    expect(all.at(-2)).toMatchObject({ type: T.EVENT_TYPE_TURN_COMPLETED, turnId: running });
    expect(all.at(-1)).toMatchObject({
      type: T.EVENT_TYPE_SESSION_FAILED,
      data: { reason: 'daemon_restarted' },
    });
    expect(all.at(-1)?.error).toContain('resume: never');
    expect(all.some((e) => e.type === T.EVENT_TYPE_SESSION_RESUMED)).toBe(false);
    expect((await s.get()).status).toBe(SessionStatus.SESSION_STATUS_FAILED);
    // The home its conversation was kept in is let go of: no resume will come.
    await waitFor('the home to be removed', () => homes(again).length === 0);
  });
});

describe('a daemon stopped (SIGTERM, an upgrade or a service restart) during a turn', () => {
  it.each(['claude', 'codex', 'opencode'])(
    '%s: the session is not stopped but resumed at the next start, on the same conversation',
    { timeout: 60_000 },
    async (provider) => {
      const { again, sessionId, running, hanging, logs } = await killedDuringATurn(
        provider,
        'auto',
        'SIGTERM',
      );
      const s = again.sessions().session(sessionId);
      const all = await s.events((es) => es.some((e) => e.type === T.EVENT_TYPE_SESSION_RESUMED));
      expect(all.slice(0, hanging.length)).toEqual(hanging);
      expect(all.map((e) => Number(e.seq))).toEqual(all.map((_, i) => i + 1));
      const after = all.slice(hanging.length);
      expect(after.map((e) => e.type)).not.toContain(T.EVENT_TYPE_SESSION_STOPPED);
      expect(after.find((e) => e.type === T.EVENT_TYPE_TURN_COMPLETED)).toMatchObject({
        turnId: running,
        data: { interrupted: true },
      });
      // The agent's home was kept through the stop, in the store's directory.
      expect(homes(again)).toHaveLength(1);
      const conversation = (all.at(-1)!.data as { conversation_id: string }).conversation_id;
      expect(resumedWith[provider]!(readFileSync(join(logs, `${provider}.log`), 'utf8'))).toBe(
        conversation,
      );
      await s.send('RECALL');
      const replies = await s.events((es) => turnsDone(es).length === 3);
      const reply = replies.findLast((e) => e.type === T.EVENT_TYPE_AGENT_MESSAGE)?.text ?? '';
      expect(reply).toContain('the first message is ONE');
      await s.stop();
    },
  );
});
