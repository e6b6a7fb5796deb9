/**
 * Resuming an event stream: loss announced as BUFFER_OVERFLOW with the
 * exact missing range, and cursors kept in files surviving a restart of
 * the client. (A restart of the daemon: daemon-restart.test.ts.)
 */
import { statSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { type BridgeClient, FileCursorStore, type SessionEvent } from '@agent-bridge/bridgeclient';
import { useDaemon, waitFor } from '@agent-bridge/harness';
import { afterAll, describe, expect, it } from 'vitest';
import { closeClients, range, sdkClient, seqsOf } from './helpers.js';

const RING = 16;

const bridge = useDaemon({
  config: { sessions: { event_buffer_size: RING } },
  fakeProviders: { lines: ['lines', '100'], flood: ['flood', '100'], echo: ['echo'] },
});
afterAll(closeClients);

async function readAll(stream: AsyncIterable<SessionEvent>): Promise<SessionEvent[]> {
  const out: SessionEvent[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

/** Starts a session and waits until it has `lastSeq` events; returns its id. */
async function started(c: BridgeClient, provider: string, lastSeq: number): Promise<string> {
  const { sessionId } = await c.startSession({ provider, repoPath: bridge.daemon.repo });
  await waitFor(
    `${provider}: seq ${lastSeq}`,
    async () => (await c.getSession(sessionId)).lastSeq >= lastSeq,
  );
  return sessionId;
}

describe('BUFFER_OVERFLOW', () => {
  it.each([{ batch: true }, { batch: false }])(
    'a reader from seq 0 after eviction is told the exact missing range first (batch: $batch)',
    async ({ batch }) => {
      const c = sdkClient(bridge);
      const id = await started(c, 'lines', 102);
      await c.stopSession(id);
      await waitFor(
        'the session to stop',
        async () => (await c.getSession(id)).status === 'STOPPED',
      );
      const { oldestSeq, lastSeq } = await c.getSession(id);
      expect(lastSeq - oldestSeq + 1).toBe(RING);
      const stream = c.events(id, { afterSeq: 0, subscriberId: `late-${batch}`, batch });
      const [overflow, ...rest] = await readAll(stream);
      expect(overflow).toMatchObject({
        type: 'BUFFER_OVERFLOW',
        seq: oldestSeq - 1,
        missing: { first: 1, last: oldestSeq - 1 },
        data: { first_missing: 1, last_missing: oldestSeq - 1 },
      });
      expect(seqsOf(rest)).toEqual(range(oldestSeq, lastSeq));
      expect(rest.at(-1)?.type).toBe('SESSION_STOPPED');
      expect(stream.processedSeq).toBe(lastSeq);
      expect(await c.ackEvents(id, `late-${batch}`, 0)).toBe(lastSeq);
      // A subscriber whose acknowledged cursor fell behind: the range starts after it.
      await c.ackEvents(id, `behind-${batch}`, 3);
      const resumed = await readAll(c.events(id, { subscriberId: `behind-${batch}`, batch }));
      expect(resumed[0]?.missing).toEqual({ first: 4, last: oldestSeq - 1 });
      expect(seqsOf(resumed)).toEqual([oldestSeq - 1, ...range(oldestSeq, lastSeq)]);
    },
  );

  it('a reader that falls behind a flooding agent learns each gap exactly, and nothing else is missing', {
    timeout: 60_000,
  }, async () => {
    const c = sdkClient(bridge);
    // The flood has long passed the ring when the reader starts: it begins
    // with a first gap, then falls behind again while it stalls.
    const id = await started(c, 'flood', 5 * RING);
    const got: SessionEvent[] = [];
    let stalledAt: number | undefined;
    let stopping = false;
    for await (const e of c.events(id, { afterSeq: 0, subscriberId: 'slow' })) {
      got.push(e);
      if (e.type === 'BUFFER_OVERFLOW') {
        if (stalledAt !== undefined && !stopping) {
          stopping = true;
          await c.stopSession(id, { force: true });
        }
      } else if (stalledAt === undefined) {
        // Stall here until the daemon has evicted far more than any
        // transport buffer can hold for this reader.
        stalledAt = e.seq;
        await waitFor(
          `the flood to evict seq ${e.seq + 5000}`,
          async () => (await c.getSession(id)).oldestSeq > e.seq + 5000,
        );
      }
    }
    expect(got.at(-1)?.type).toMatch(/^SESSION_(STOPPED|FAILED)$/);
    // Each event is either delivered or inside a gap announced exactly.
    const wrong: string[] = [];
    let next = 1;
    for (const e of got) {
      if (e.type === 'BUFFER_OVERFLOW') {
        const m = e.missing;
        if (m?.first !== next || m.last !== e.seq || m.last < m.first) {
          wrong.push(`overflow ${e.seq} ${JSON.stringify(m)} where ${next} was due`);
        }
        if (e.data?.first_missing !== m?.first || e.data?.last_missing !== m?.last) {
          wrong.push(
            `overflow ${e.seq}: missing ${JSON.stringify(m)}, data ${JSON.stringify(e.data)}`,
          );
        }
      } else if (e.seq !== next) {
        wrong.push(`seq ${e.seq} where ${next} was due`);
      }
      next = e.seq + 1;
    }
    expect(wrong).toEqual([]);
    expect(got[0]?.type).toBe('BUFFER_OVERFLOW');
    // The gap of falling behind: what was evicted while the reader stalled
    // (after whatever was already on its way to it).
    const behind = got.filter((e) => e.type === 'BUFFER_OVERFLOW' && e.seq > stalledAt!);
    expect(behind.map((e) => e.missing!.last).some((l) => l >= stalledAt! + 5000 - RING)).toBe(
      true,
    );
  });
});

describe('FileCursorStore', () => {
  it('keeps the cursor across a client restart: the new client resumes right after the last processed event', async () => {
    const dir = join(bridge.scratch, 'cursors');
    const first = sdkClient(bridge, { cursorStore: new FileCursorStore(dir) });
    const { sessionId } = await first.startSession({
      provider: 'echo',
      repoPath: bridge.daemon.repo,
    });
    for (const t of ['a', 'b', 'c']) await first.sendInput(sessionId, t);
    const stream = first.events(sessionId, { subscriberId: 'files' });
    const seen: number[] = [];
    for await (const e of stream) {
      seen.push(e.seq);
      if (e.text === 'echo: b') stream.close(); // ends after this event, which counts as processed
    }
    const processed = stream.processedSeq!;
    expect(processed).toBe(seen.at(-1));
    first.close();
    // Mode 0700 for the directory, 0600 for the file, nothing half-written left.
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const files = await readdir(dir);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^[0-9a-f]{64}\.json$/);
    expect(statSync(join(dir, files[0]!)).mode & 0o777).toBe(0o600);
    const key = {
      target: `127.0.0.1:${bridge.daemon.port}`,
      projectId: 'alpha',
      sessionId,
      subscriberId: 'files',
    };
    const second = sdkClient(bridge, { cursorStore: new FileCursorStore(dir) });
    const { historyId } = await second.health();
    expect(await new FileCursorStore(dir).load(key)).toEqual({
      ackSeq: processed,
      instanceId: historyId,
    });
    await second.sendInput(sessionId, 'd');
    const resumed: number[] = [];
    for await (const e of second.events(sessionId, { subscriberId: 'files' })) {
      resumed.push(e.seq);
      if (e.text === 'echo: d') break;
    }
    expect(resumed[0]).toBe(processed + 1);
    expect(resumed).toEqual(range(processed + 1, resumed.at(-1)!));
    await second.stopSession(sessionId, { force: true });
  });
});
