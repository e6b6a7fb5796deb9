import { readdirSync, readFileSync } from 'node:fs';
import type { SessionEvent } from '@agent-bridge/proto';
import type { ClientReadableStream, ServiceError } from '@grpc/grpc-js';
import { AGENTS, startBenchBridge } from './bench-bridge.js';
import { inFlight } from './in-flight.js';
import { against, type Row } from './row.js';
import { rssKiB } from './rss.js';
import type { Sizes } from './sizes.js';
import { streamClients } from './stream-clients.js';

const GIB = 2 ** 30;

/** The soft limit on open files of `pid`. */
function openFilesLimit(pid: number): number {
  const m = /^Max open files\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/limits`, 'utf8'));
  return m ? Number(m[1]) : Number.POSITIVE_INFINITY;
}

/**
 * B7: `capacitySessions` sessions of `cat` waiting on stdin, and
 * `capacitySubscribers` StreamEvents calls spread over the sessions and over
 * `capacityConnections` client connections, all open at once; no RPC may
 * fail. The daemon's RSS then, against 2 GiB. When the sessions cannot fit
 * in the open-file limit (three pipes each), the row says so.
 */
export async function capacityRows(s: Sizes): Promise<Row[]> {
  const stop = { ms: 0 };
  const rows = await measureCapacity(s, stop);
  // How long the daemon took to exit, its streams cancelled just before:
  // not a target, but what a service manager's stop timeout must allow.
  const stopped = `the daemon exited ${(stop.ms / 1000).toFixed(1)} s after SIGTERM`;
  return rows.map((r) => ({ ...r, note: r.note ? `${r.note}; ${stopped}` : stopped }));
}

/** When shutting a daemon this loaded down waits longer than this, the run fails. */
const STOP_WAIT_MS = 120_000;

async function measureCapacity(s: Sizes, stop: { ms: number }): Promise<Row[]> {
  const perConnection = Math.ceil(s.capacitySubscribers / s.capacityConnections);
  const bridge = await startBenchBridge({
    stopWaitMs: STOP_WAIT_MS,
    config: {
      server: { max_concurrent_streams: perConnection + 64 },
      sessions: {
        max_global: s.capacitySessions,
        max_per_project: s.capacitySessions,
        max_subscribers: Math.ceil(s.capacitySubscribers / s.capacitySessions) + 1,
      },
    },
  });
  const clients = streamClients(bridge, s.capacityConnections);
  const streams: ClientReadableStream<SessionEvent>[] = [];
  try {
    const pid = bridge.daemon.pid;
    const fdLimit = openFilesLimit(pid);
    const ids: string[] = [];
    let refused: string | undefined;
    await inFlight(s.capacitySessions, 16, async () => {
      if (refused) return;
      try {
        ids.push(await bridge.start(AGENTS.idle));
      } catch (err) {
        refused ??= (err as Error).message;
      }
    });
    const fds = readdirSync(`/proc/${pid}/fd`).length;
    if (refused) {
      return [
        {
          id: 'B7',
          name: `capacity: ${s.capacitySessions} sessions, ${s.capacitySubscribers} subscribers`,
          value: rssKiB(pid) / 1024,
          unit: 'MiB',
          better: 'lower',
          note: `did not fit: ${ids.length} sessions started (${fds} fds open, limit ${fdLimit}), then StartSession failed: ${refused}`,
        },
      ];
    }
    let failed: string | undefined;
    await inFlight(s.capacitySubscribers, 512, async (i) => {
      if (failed) return;
      const stream = clients[i % clients.length]!.streamEvents(
        { sessionId: ids[i % ids.length]!, afterSeq: 0n, subscriberId: '' },
        bridge.md,
      );
      streams.push(stream);
      // Attached once the session's first event arrives.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          failed ??= `subscriber ${i}: no first event within 60 s`;
          resolve();
        }, 60_000);
        stream.once('data', () => {
          clearTimeout(timer);
          resolve();
        });
        stream.on('error', (err: ServiceError) => {
          clearTimeout(timer);
          if (err.code !== 1) failed ??= `subscriber ${i}: ${err.message}`;
          resolve();
        });
      });
    });
    if (failed) throw new Error(`capacity: an RPC failed: ${failed}`);
    const rss = rssKiB(pid) * 1024;
    return [
      against({
        id: 'B7',
        name: `capacity: ${ids.length} sessions, ${streams.length} subscribers, daemon RSS`,
        value: rss / 2 ** 20,
        unit: 'MiB',
        better: 'lower',
        ref: { name: 'budget, 2 GiB', value: (2 * GIB) / 2 ** 20, unit: 'MiB', ceiling: false },
        target: { max: 1, on: 'ratio' },
        note: `${s.capacityConnections} connections; ${fds} fds open, limit ${fdLimit}`,
      }),
    ];
  } finally {
    for (const st of streams) st.cancel();
    for (const c of clients) c.close();
    const sigterm = performance.now();
    await bridge.close();
    stop.ms = performance.now() - sigterm;
  }
}
