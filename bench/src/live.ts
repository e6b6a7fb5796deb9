import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventType, SessionEvent } from '@agent-bridge/proto';
import { AGENTS, linesFile, startBenchBridge } from './bench-bridge.js';
import { catPipeLinesPerSecond } from './pipe-reference.js';
import { startReference } from './reference-process.js';
import { against, median, type Row } from './row.js';
import type { Sizes } from './sizes.js';
import { decodeEvent, stdoutCount, type WireEvent } from './stream-reader.js';
import { timedRead } from './timed-read.js';

/**
 * B1: one session, an agent that is `cat` of a file of N lines, one reader
 * attached before the agent is let go; events/s to the reader's last STDOUT
 * event. References in the same run: the bare grpc-js server process sending
 * N events of the same shape (encoded per message or per batch, or encoded
 * beforehand), and `cat` of the same file piped into this process.
 */
export async function liveRows(s: Sizes): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), 'bridge-bench-live-'));
  const n = s.events;
  const capacity = n + 64; // every event stays retained: the reader never overflows
  const file = linesFile(dir, n, s.width);
  const bridge = await startBenchBridge({
    file,
    config: {
      sessions: {
        event_buffer_size: capacity,
        event_buffer_bytes: `${Math.ceil((capacity * (s.width + 512)) / 2 ** 20)}MiB`,
        max_global: 4 * s.reps + 4,
        max_per_project: 4 * s.reps + 4,
      },
    },
  });
  const reference = await startReference(bridge.pki);
  const refClient = reference.client;
  try {
    let template: SessionEvent | undefined;
    const capture = (done: (e: WireEvent) => boolean) => (e: WireEvent) => {
      if (!template && e.type === EventType.EVENT_TYPE_STDOUT) {
        const full = decodeEvent(e);
        if (full.text.length === s.width) template = full;
      }
      return done(e);
    };
    const daemon = async (batched: boolean) => {
      const sessionId = await bridge.start(AGENTS.gatedCat);
      const secs = await timedRead({
        what: `daemon live ${batched ? 'batches' : 'events'}`,
        client: bridge.client,
        md: bridge.md,
        request: { sessionId, afterSeq: 0n, subscriberId: '' },
        batched,
        done: capture(stdoutCount(n)),
        trigger: () =>
          bridge.call((c) => c.sendInput, { sessionId, text: 'go', idempotencyKey: '' }),
      });
      await bridge.finished(sessionId, 60_000);
      return n / secs;
    };
    const bare = async (form: 'encode' | 'pre-encoded' | 'raw', batched: boolean) =>
      n /
      (await timedRead({
        what: `reference ${form} ${batched ? 'batches' : 'events'}`,
        client: form === 'raw' ? reference.rawClient : refClient,
        md: bridge.md,
        request: { sessionId: form, afterSeq: 0n, subscriberId: '' },
        batched,
        done: stdoutCount(n),
      }));

    const runs: Record<string, number[]> = {};
    const add = (k: string, v: number) => {
      runs[k] = [...(runs[k] ?? []), v];
    };
    for (let rep = 0; rep < s.reps; rep++) {
      add('single', await daemon(false));
      add('batched', await daemon(true));
      if (rep === 0) {
        if (!template) throw new Error('no STDOUT event of the file width came from the daemon');
        await reference.command({
          cmd: 'prepare',
          template: Buffer.from(SessionEvent.encode(template).finish()).toString('base64'),
          count: n,
          batch: 512,
        });
      }
      add('bare-single', await bare('encode', false));
      add('bare-single-pre', await bare('pre-encoded', false));
      add('bare-batched', await bare('encode', true));
      add('bare-batched-pre', await bare('pre-encoded', true));
      add('raw-single', await bare('raw', false));
      add('raw-batched', await bare('raw', true));
      add('pipe', await catPipeLinesPerSecond(file, n));
    }
    const m = (k: string) => median(runs[k]!);
    // The pre-encoded server and the pipe are ceilings. A server that
    // encodes every message is not one: the daemon encodes each event once,
    // when it is stored, so it may beat it.
    const row = (
      name: string,
      value: number,
      refName: string,
      ref: number,
      ceiling: boolean,
      min?: number,
    ) =>
      against({
        id: 'B1',
        name,
        value,
        unit: 'events/s',
        better: 'higher',
        ref: { name: refName, value: ref, unit: 'events/s', ceiling },
        ...(min === undefined ? {} : { target: { min, on: 'ratio' as const } }),
      });
    return [
      row('live StreamEvents', m('single'), 'bare, encode per msg', m('bare-single'), false, 0.9),
      row('live StreamEvents', m('single'), 'bare, pre-encoded msgs', m('bare-single-pre'), true),
      row('live StreamEvents', m('single'), 'raw HTTP/2, pre-built frames', m('raw-single'), true),
      row(
        'live StreamEventBatches',
        m('batched'),
        'raw HTTP/2, pre-built frames',
        m('raw-batched'),
        true,
        0.6,
      ),
      row(
        'live StreamEventBatches',
        m('batched'),
        'bare, pre-encoded batches',
        m('bare-batched-pre'),
        true,
      ),
      row(
        'live StreamEventBatches',
        m('batched'),
        'bare, encode per batch',
        m('bare-batched'),
        false,
      ),
      row('live StreamEventBatches', m('batched'), 'cat pipe (lines/s)', m('pipe'), true),
    ];
  } finally {
    await reference.stop();
    await bridge.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
