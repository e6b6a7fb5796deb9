import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventType, SessionEvent } from '@agent-bridge/proto';
import { AGENTS, linesFile, startBenchBridge } from './bench-bridge.js';
import { startReference } from './reference-process.js';
import { against, median, type Row } from './row.js';
import type { Sizes } from './sizes.js';
import { decodeEvent, type WireEvent } from './stream-reader.js';
import { timedRead } from './timed-read.js';

/**
 * B5: a session whose agent (`cat` of a file) has printed its lines and
 * exited; every retained event read from after_seq 0, timed from the call
 * to the last event received. Reference: the bare grpc-js server process
 * sending as many events of the same shape.
 */
export async function replayRows(s: Sizes): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), 'bridge-bench-replay-'));
  const bridge = await startBenchBridge({
    file: linesFile(dir, s.replay, s.width),
    // Room for the lines and the session's own events: nothing is evicted.
    config: { sessions: { event_buffer_size: s.replay + 64, event_buffer_bytes: '64MiB' } },
  });
  const reference = await startReference(bridge.pki);
  const refClient = reference.client;
  try {
    const sessionId = await bridge.start(AGENTS.cat);
    const last = (await bridge.finished(sessionId, 60_000)).lastSeq;
    const count = Number(last);
    let template: SessionEvent | undefined;
    let stdout = 0;
    const done = (e: WireEvent) => {
      if (e.type === EventType.EVENT_TYPE_STDOUT) {
        stdout++;
        template ??= decodeEvent(e);
      }
      return e.seq >= count;
    };
    const ms = async (target: 'daemon' | 'encode' | 'pre-encoded', batched: boolean) =>
      1000 *
      (await timedRead({
        what: `replay from ${target}, ${batched ? 'batches' : 'events'}`,
        client: target === 'daemon' ? bridge.client : refClient,
        md: bridge.md,
        request: {
          sessionId: target === 'daemon' ? sessionId : target,
          afterSeq: 0n,
          subscriberId: '',
        },
        batched,
        done,
      }));

    stdout = 0;
    await ms('daemon', true); // warm-up, and the template of the reference's events
    if (!template || stdout !== s.replay) {
      throw new Error(`replay: ${stdout} STDOUT events retained, expected ${s.replay}`);
    }
    await reference.command({
      cmd: 'prepare',
      template: Buffer.from(SessionEvent.encode(template).finish()).toString('base64'),
      count,
      batch: 512,
    });
    // The reference is warmed up as the daemon was (JIT, connection).
    for (const target of ['encode', 'pre-encoded'] as const) {
      for (const batched of [true, false]) await ms(target, batched);
    }
    const runs: Record<string, number[]> = {};
    // Cheap enough to repeat more than the long rows, and noisy at this size.
    const reps = Math.max(s.reps, 5);
    for (let rep = 0; rep < reps; rep++) {
      for (const target of ['daemon', 'encode', 'pre-encoded'] as const) {
        for (const batched of [true, false]) {
          const k = `${target}-${batched}`;
          runs[k] = [...(runs[k] ?? []), await ms(target, batched)];
        }
      }
    }
    const m = (k: string) => median(runs[k]!);
    // As for live rows: only the pre-encoded server is a floor the daemon,
    // which sends bytes encoded when events were stored, cannot beat.
    const row = (
      batched: boolean,
      refName: string,
      ref: number,
      ceiling: boolean,
      target?: Row['target'],
    ) =>
      against({
        id: 'B5',
        name: `replay ${count} events, ${batched ? 'StreamEventBatches' : 'StreamEvents'}, to last byte`,
        value: m(`daemon-${batched}`),
        unit: 'ms',
        better: 'lower',
        ref: { name: refName, value: ref, unit: 'ms', ceiling },
        ...(target ? { target } : {}),
      });
    return [
      row(true, 'bare, pre-encoded batches', m('pre-encoded-true'), true, { max: 25, on: 'value' }),
      row(true, 'bare, encode per batch', m('encode-true'), false),
      row(false, 'bare, encode per msg', m('encode-false'), false, { max: 1, on: 'ratio' }),
      row(false, 'bare, pre-encoded msgs', m('pre-encoded-false'), true),
    ];
  } finally {
    await reference.stop();
    await bridge.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
