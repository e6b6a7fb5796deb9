/**
 * The SDK's event streams across a daemon restart. A restarted daemon
 * listens on a new port here, but SDK cursors are kept per target, and in
 * production a restarted daemon comes back at the same host:port. So the
 * SDK talks to a proxy whose address stays the same while it is moved
 * from the old daemon to the new one: to the client, the daemon at that
 * address restarted.
 *
 * - The daemon killed and started again on its store: a live stream and a
 *   stream resumed from a cursor file go on with no gap and no
 *   duplicate, the history id unchanged (the instance id is new).
 * - A daemon with a new store in its place (the store wiped): both fail
 *   with CursorLostError, nothing delivered from the other history.
 */
import { join } from 'node:path';
import { CursorLostError, FileCursorStore, type SessionEvent } from '@agent-bridge/bridgeclient';
import {
  startDaemon,
  startTcpProxy,
  type TcpProxy,
  type TestDaemon,
  useDaemon,
  waitFor,
  within,
} from '@agent-bridge/harness';
import { afterEach, describe, expect, it } from 'vitest';
import { closeClients, sdkClient } from './helpers.js';

const ECHO = { echo: ['echo'] };
const bridge = useDaemon({ fakeProviders: ECHO });

const daemons: TestDaemon[] = [];
let proxy: TcpProxy | undefined;
afterEach(async () => {
  closeClients();
  await proxy?.close();
  for (const d of daemons.splice(0))
    if (d.proc.exitCode === null && d.proc.signalCode === null) await d.stop();
});

const start = async (dir?: string) => {
  const d = await startDaemon({ pki: bridge.pki, fakeProviders: ECHO, ...(dir ? { dir } : {}) });
  daemons.push(d);
  return d;
};

/**
 * A session with one echoed input; a reader with a cursor file that
 * processed up to the echo and stopped; a live reader cut off from the
 * daemon (retrying) at the echo; then the daemon SIGKILLed and `next`
 * started behind the proxy.
 */
async function scenario(next: (killed: TestDaemon) => Promise<TestDaemon>) {
  const d1 = await start();
  const p = await startTcpProxy(d1.port);
  proxy = p;
  const opts = { target: p.target, retry: { initialDelayMs: 10, maxDelayMs: 200 } };
  const live = sdkClient(bridge, opts);
  const cursors = join(d1.dir, 'sdk-cursors');
  const stored = sdkClient(bridge, { ...opts, cursorStore: new FileCursorStore(cursors) });
  const before = await live.health();
  const { sessionId } = await live.startSession({ provider: 'echo', repoPath: d1.repo });
  await live.sendInput(sessionId, 'one');
  const first = stored.events(sessionId, { subscriberId: 'stored' });
  for await (const e of first) if (e.text === 'echo: one') first.close();
  const acked = first.processedSeq ?? 0;
  stored.close();
  const got: SessionEvent[] = [];
  const ended = (async () => {
    for await (const e of live.events(sessionId, { subscriberId: 'live' })) {
      got.push(e);
      if (e.text === 'echo: one') {
        p.mode = 'refuse';
        p.cutAll();
      }
    }
  })().then(
    () => undefined,
    (err: unknown) => err,
  );
  await waitFor('the live stream to be cut', () => p.cuts > 0);
  const cutAt = p.accepted;
  await waitFor('the live stream to try again twice', () => p.accepted >= cutAt + 2);
  d1.proc.kill('SIGKILL');
  await d1.exited;
  const d2 = await next(d1);
  p.retarget(d2.port);
  p.mode = 'forward';
  const again = () => sdkClient(bridge, { ...opts, cursorStore: new FileCursorStore(cursors) });
  return { sessionId, before, live, got, ended, acked, again, target: p.target };
}

const gaps = (seqs: number[]) => seqs.filter((s, i) => i > 0 && s !== (seqs[i - 1] ?? 0) + 1);

describe('a daemon restart on the same store', () => {
  it('a live stream and a stream resumed from a cursor file go on: same history, no gap, no duplicate', {
    timeout: 60_000,
  }, async () => {
    const s = await scenario((killed) => start(killed.dir));
    expect(await within('the live stream to end', s.ended, 30_000)).toBeUndefined();
    const after = await s.live.health();
    expect(after.historyId).toBe(s.before.historyId);
    expect(after.serverInstanceId).not.toBe(s.before.serverInstanceId);
    const seqs = s.got.map((e) => e.seq);
    expect(seqs[0]).toBe(1);
    expect(gaps(seqs)).toEqual([]);
    // The agent did not survive the kill: its session ends, recorded after what was kept.
    expect(s.got.at(-1)).toMatchObject({
      type: 'SESSION_FAILED',
      data: { reason: 'daemon_restarted' },
    });
    expect(s.got.filter((e) => e.type === 'STDOUT').map((e) => e.text)).toEqual([
      'ready',
      'echo: one',
    ]);
    // The cursor file's reader: right after its last ack, to the same end.
    const resumed: SessionEvent[] = [];
    for await (const e of s.again().events(s.sessionId, { subscriberId: 'stored' }))
      resumed.push(e);
    expect(resumed.map((e) => e.seq)).toEqual(seqs.filter((q) => q > s.acked));
    expect((await s.live.getSession(s.sessionId)).status).toBe('FAILED');
  });
});

describe('a daemon with a new store in its place (the store wiped)', () => {
  it('fails a live stream and a stream resumed from a cursor file with CursorLostError', {
    timeout: 60_000,
  }, async () => {
    const s = await scenario(() => start());
    const lost = await within('the live stream to fail', s.ended, 30_000);
    expect(lost).toBeInstanceOf(CursorLostError);
    const after = await s.live.health();
    expect(after.historyId).not.toBe(s.before.historyId);
    expect(lost).toMatchObject({
      code: 'DATA_LOSS',
      previousInstanceId: s.before.historyId,
      instanceId: after.historyId,
    });
    expect(s.got.filter((e) => e.type === 'STDOUT').map((e) => e.text)).toEqual([
      'ready',
      'echo: one',
    ]);
    // A new client with the same cursor files: lost at once, nothing delivered.
    const fromFile = await (async () => {
      for await (const e of s.again().events(s.sessionId, { subscriberId: 'stored' }))
        return new Error(`delivered seq ${e.seq} of another history`);
    })().catch((err: unknown) => err);
    expect(fromFile).toBeInstanceOf(CursorLostError);
    expect(fromFile).toMatchObject({
      previousInstanceId: s.before.historyId,
      instanceId: after.historyId,
    });
    expect((fromFile as Error).message).toContain(s.target);
  });
});
