/**
 * F3: agents that fail: one exits 3 at once, one crashes on its first input,
 * one never gets ready. Each session fails once, saying why, with the end
 * of its stderr redacted; the daemon never starts the agent again.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { collect, isAlive, useDaemon, waitFor } from '@agent-bridge/harness';
import { EventType, SessionStatus } from '@agent-bridge/proto';
import { describe, expect, it } from 'vitest';

// A token of GitHub's shape: the built-in rules redact it wherever it appears.
const SECRET = `ghp_${'a1B2c3D4e5'.repeat(4)}`;
const spawnLog = (scratch: string) => join(scratch, 'spawns.log');

const bridge = useDaemon((scratch) => ({
  config: {
    providers: {
      // Each start of the agent appends a line: restarts would show there.
      exit3: {
        binary: '/bin/sh',
        args: [
          '-c',
          `echo spawn >> '${spawnLog(scratch)}'; echo 'fatal: something went wrong' >&2; echo 'fatal: the token was ${SECRET}' >&2; exit 3`,
        ],
      },
      marker: { binary: '/bin/sh', args: ['-c', `echo marker >> '${spawnLog(scratch)}'`] },
      // The fake agent's slow-start scenario below, with a short start-up bound.
      slow: { startup_timeout: '300ms' },
    },
  },
  fakeProviders: { crash: ['crash-on-input'], slow: ['slow-start', '10000'] },
}));

const all = (sessionId: string) => collect(bridge.stream({ sessionId, afterSeq: 0n }));
const get = (sessionId: string) => bridge.call((c) => c.getSession, { sessionId });

describe('F3 an agent that fails', () => {
  it('F3 exiting 3 at once: FAILED with the exit code and the redacted stderr tail, started exactly once', async () => {
    const { sessionId } = await bridge.sessions().start('exit3');
    const { events } = await all(sessionId);
    const last = events.at(-1)!;
    expect(last.type).toBe(EventType.EVENT_TYPE_SESSION_FAILED);
    expect(last.error).toBe('agent exited with code 3');
    expect(last.data).toMatchObject({ exit_code: 3, reason: 'crashed' });
    const tail = (last.data as { stderr_tail: string }).stderr_tail;
    expect(tail).toContain('fatal: something went wrong');
    expect(tail).toContain('fatal: the token was [REDACTED]');
    expect(tail).not.toContain(SECRET);
    expect(await get(sessionId)).toMatchObject({
      status: SessionStatus.SESSION_STATUS_FAILED,
      exitCode: 3,
      error: 'agent exited with code 3',
    });
    // A restart would come right after the exit; a later agent writing to the
    // same log, once it has ended, shows that point has passed.
    const marker = await bridge.sessions().start('marker');
    expect((await all(marker.sessionId)).events.at(-1)?.type).toBe(
      EventType.EVENT_TYPE_SESSION_STOPPED,
    );
    expect(readFileSync(spawnLog(bridge.scratch), 'utf8').split('\n')).toEqual([
      'spawn',
      'marker',
      '',
    ]);
    expect((await get(sessionId)).status).toBe(SessionStatus.SESSION_STATUS_FAILED);
    expect(isAlive(bridge.daemon.pid)).toBe(true);
  });

  it('F3 a crash on input is reported after the input, with its exit code', async () => {
    const s = await bridge.sessions().start('crash');
    await s.send('boom');
    const { events } = await all(s.sessionId);
    expect(events.map((e) => e.type).slice(-3)).toEqual([
      EventType.EVENT_TYPE_INPUT_RECEIVED,
      EventType.EVENT_TYPE_STDERR,
      EventType.EVENT_TYPE_SESSION_FAILED,
    ]);
    expect(events.at(-1)?.data).toMatchObject({ exit_code: 7 });
  });

  it('F3 an agent that never gets ready fails at startup_timeout and is killed', async () => {
    const { sessionId, started } = await bridge.sessions().start('slow');
    expect(started.status).toBe(SessionStatus.SESSION_STATUS_FAILED);
    const s = await get(sessionId);
    expect(s.error).toMatch(/startup_timeout/);
    await waitFor(`agent ${s.pid} to be killed`, () => !isAlive(s.pid), 3000);
    const { events } = await all(sessionId);
    expect(events.at(-1)?.type).toBe(EventType.EVENT_TYPE_SESSION_FAILED);
    expect(events.at(-1)?.data).toMatchObject({ reason: 'startup_timeout' });
  });
});
