// pnpm bench: the daemon's event path measured against references taken in
// the same run on the same machine, reported as absolute numbers and ratios.
//
//   live    events/s for one session, child stdout → daemon → one subscriber,
//           single-event stream and batched stream, vs. raw pipe ingest and a
//           bare grpc-js mTLS stream of the same messages.
//   replay  a full ring read (after_seq = 0) vs. the bare grpc-js stream.
//   memory  the daemon's resident memory growth during a flood with a reader
//           that never reads, vs. the same flood with no reader.
//   redact  (B9) lines/s split with and without redaction vs. the regex-free
//           split of the same data, and worst-case 1 MiB lines.
//           BENCH_ONLY=redaction runs this part alone.
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { issueCert } from '@agent-bridge/pki';
import { EventType, type SessionEvent, type SessionEventBatch } from '@agent-bridge/proto';
import { call, FAKE_AGENT, REPO_ROOT, startBridge, waitFor } from '@agent-bridge/tests/harness';
import { floodRssGrowthKiB } from './memory.js';
import { type Row, redactionRows } from './redaction.js';
import { bareGrpcEventsPerSecond, pipeLinesPerSecond } from './reference.js';

const N = Number(process.env.BENCH_EVENTS ?? 200_000);
const WIDTH = 200;
const RING = 10_000;
// Every live event stays retained, so the live reader never overflows.
const CAPACITY = Math.max(N, RING) + 64;

async function main() {
  const rows: Row[] = redactionRows(N, WIDTH);
  if (process.env.BENCH_ONLY !== 'redaction') rows.push(...(await daemonRows()));
  report(rows);
}

async function daemonRows(): Promise<Row[]> {
  const bridge = await startBridge({
    project: 'bench',
    config: {
      sessions: {
        event_buffer_size: CAPACITY,
        event_buffer_bytes: `${Math.ceil((CAPACITY * (WIDTH + 256)) / 2 ** 20)}MiB`,
      },
      logging: { level: 'warn' },
    },
    fakeProviders: {
      burst: ['lines', String(N), String(WIDTH)],
      ring: ['lines', String(RING), String(WIDTH)],
    },
  });
  const { pki, daemon, client, md } = bridge;
  const server = await issueCert({
    type: 'server',
    cn: 'localhost',
    sans: ['localhost', '127.0.0.1'],
    ca: pki.ca,
  });
  const rows: Row[] = [];

  const start = async (provider: string) => {
    const sessionId = randomUUID();
    await call(
      client,
      (c) => c.startSession,
      { projectId: 'bench', sessionId, repoPath: daemon.repo, provider, agentOpts: {} },
      md,
    );
    return sessionId;
  };
  // Reads a session from the start until the event with seq `lastSeq`. The
  // ring is sized so that nothing is evicted; an overflow would make the
  // number meaningless, so it fails the run instead of being averaged in.
  const readUntil = (sessionId: string, batched: boolean, lastSeq: number) =>
    new Promise<{ rate: number; events: number }>((resolve, reject) => {
      let got = 0;
      let t0 = 0n;
      const req = { sessionId, afterSeq: 0n, subscriberId: '' };
      const s = batched ? client.streamEventBatches(req, md) : client.streamEvents(req, md);
      const onEvent = (e: SessionEvent) => {
        if (e.type === EventType.EVENT_TYPE_BUFFER_OVERFLOW) {
          s.cancel();
          reject(new Error(`reader overflowed at seq ${e.seq}; raise the ring size`));
          return;
        }
        got++;
        if (Number(e.seq) >= lastSeq) {
          const secs = Number(process.hrtime.bigint() - t0) / 1e9;
          s.cancel();
          resolve({ rate: got / secs, events: got });
        }
      };
      s.on('data', (m: SessionEvent | SessionEventBatch) => {
        if (t0 === 0n) t0 = process.hrtime.bigint();
        if ('events' in m) for (const e of m.events) onEvent(e);
        else onEvent(m);
      });
      s.on('error', (e: { code: number }) => (e.code === 1 ? undefined : reject(e)));
    });

  const pipe = await pipeLinesPerSecond(FAKE_AGENT, N, WIDTH);
  rows.push({ name: 'reference: raw pipe ingest (lines/s)', value: pipe, unit: 'lines/s' });
  const bare1 = await bareGrpcEventsPerSecond(
    { ca: pki.ca, server, client: pki.client },
    N,
    WIDTH,
    1,
  );
  rows.push({
    name: 'reference: bare grpc-js mTLS stream, 1 event/msg',
    value: bare1,
    unit: 'events/s',
  });
  const bareB = await bareGrpcEventsPerSecond(
    { ca: pki.ca, server, client: pki.client },
    N,
    WIDTH,
    512,
  );
  rows.push({
    name: 'reference: bare grpc-js mTLS stream, 512 events/msg',
    value: bareB,
    unit: 'events/s',
  });

  // Live: the reader is attached before the agent prints, so it measures the live path.
  for (const batched of [false, true]) {
    const id = await start('burst');
    // seq 1 is SESSION_STARTED, 2 is "ready", then the N lines.
    const { rate } = await readUntil(id, batched, N + 2);
    const ref = batched ? bareB : bare1;
    rows.push({
      name: `daemon live, ${batched ? 'StreamEventBatches' : 'StreamEvents'}`,
      value: rate,
      unit: 'events/s',
      ref: `min(pipe, bare ${batched ? 'batched' : 'single'})`,
      ratio: rate / Math.min(pipe, ref),
    });
    await call(client, (c) => c.stopSession, { sessionId: id, force: true }, md);
  }

  // Replay of a full ring.
  const ringId = await start('ring');
  await waitFor(
    `the ring session's ${RING} lines`,
    async () =>
      Number((await call(client, (c) => c.getSession, { sessionId: ringId }, md)).lastSeq) >=
      RING + 2,
    60_000,
  );
  for (const batched of [false, true]) {
    const { rate } = await readUntil(ringId, batched, RING + 2);
    const ref = await bareGrpcEventsPerSecond(
      { ca: pki.ca, server, client: pki.client },
      RING,
      WIDTH,
      batched ? 512 : 1,
    );
    rows.push({
      name: `replay ${RING} events, ${batched ? 'batched' : 'single'}`,
      value: rate,
      unit: 'events/s',
      ref: `bare grpc-js ${batched ? 'batched' : 'single'} (${Math.round(ref)}/s)`,
      ratio: rate / ref,
    });
  }

  await bridge.close();

  // Memory. A reader that never reads must not make the daemon hold the
  // flood for it: compare with the same flood and no reader at all.
  const idle = await floodRssGrowthKiB(N, WIDTH, false);
  rows.push({ name: `daemon RSS growth, ${N}-line flood, no reader`, value: idle, unit: 'KiB' });
  const stalled = await floodRssGrowthKiB(N, WIDTH, true);
  rows.push({
    name: `daemon RSS growth, ${N}-line flood, stalled reader`,
    value: stalled,
    unit: 'KiB',
    ref: 'no reader',
    ratio: idle > 0 ? stalled / idle : undefined,
  });

  return rows;
}

function report(rows: Row[]): void {
  const env = `node ${process.version}, ${cpus().length} × ${cpus()[0]?.model.trim()}, ${N} events of ${WIDTH} B`;
  const lines = [`agent-bridge bench (${new Date().toISOString()}; ${env})`, ''];
  for (const r of rows) {
    lines.push(
      `${r.name.padEnd(52)} ${(r.unit === 'ms' ? r.value.toFixed(2) : Math.round(r.value).toLocaleString('en-US')).padStart(12)} ${r.unit}` +
        (r.ratio !== undefined ? `   ratio ${r.ratio.toFixed(2)} vs ${r.ref}` : ''),
    );
  }
  const report = lines.join('\n');
  process.stdout.write(`${report}\n`);
  const dir = join(REPO_ROOT, 'bench/results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'latest.txt'), `${report}\n`);
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`bench failed: ${err?.stack ?? err}\n`);
    process.exit(1);
  },
);
