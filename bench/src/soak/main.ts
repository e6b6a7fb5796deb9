// pnpm soak --minutes N [--out DIR]: a real daemon under a mixed, bounded
// workload for N minutes, sampled every second, then judged on leaks (RSS,
// heap, fds, handles), stream integrity, errors and leftover processes.
// Not part of CI; see bench/README.md ("Soak").
import { mkdirSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import {
  collectGarbage,
  daemonFromSource,
  heapSnapshotFlags,
  REPO_ROOT,
  seededRandom,
  startBridge,
  waitFor,
} from '@agent-bridge/harness';
import { fakeProviders } from './agents.js';
import { parseSoakArgs } from './args.js';
import { ErrorTally } from './error-tally.js';
import { metricsScraper, sumOf } from './metrics-scrape.js';
import { descendantsOf, leftovers } from './proc-probe.js';
import { soakChart, writeResults } from './report.js';
import type { Sample } from './sample.js';
import { idlePoint, startSampler } from './sampler.js';
import { formatSummary, summarize } from './summary.js';
import { startWorkload } from './workload.js';

const PROJECT = 'soak';
// Short enough that sessions ended in the first half are freed in the second,
// so a steady state exists to measure; the end of the run waits for it.
const RETENTION_S = 20;
const STOP_GRACE_S = 2;

const log = (s: string) => process.stderr.write(`${s}\n`);

const progress = (s: Sample) =>
  `t=${s.t.toFixed(0)}s rss=${s.rssMiB.toFixed(1)}MiB heap=${s.heapUsedMiB.toFixed(1)}MiB fds=${s.fds} ` +
  `lag_p99=${s.loopDelayP99Ms.toFixed(1)}ms events/s=${s.eventsPerSec.toFixed(0)} ` +
  `live=${s.liveSessions} subs=${s.subscribers} cpu=${s.cpuPercent.toFixed(0)}%`;

/** Resolves after `ms`, or at once on SIGINT/SIGTERM (the run then ends early but is still judged). */
function runFor(ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(t);
      process.off('SIGINT', early);
      process.off('SIGTERM', early);
      resolve();
    };
    const early = () => {
      log('soak: interrupted, ending the run early');
      done();
    };
    const t = setTimeout(done, ms);
    process.on('SIGINT', early);
    process.on('SIGTERM', early);
  });
}

async function main(): Promise<boolean> {
  const args = parseSoakArgs(
    process.argv.slice(2),
    process.env.INIT_CWD ?? process.cwd(),
    join(REPO_ROOT, 'bench/results'),
  );
  const startedAt = new Date();
  const stamp = startedAt.toISOString().replace(/[:.]/g, '-');
  const rng = seededRandom(args.seed);
  const errors = new ErrorTally();
  const config = {
    metrics: { listen: '127.0.0.1:0' },
    sessions: {
      max_per_project: args.sessions + 20,
      max_global: args.sessions + 20,
      retention: `${RETENTION_S}s`,
      stop_grace_period: `${STOP_GRACE_S}s`,
      event_buffer_size: 2000,
      event_buffer_bytes: '512KiB',
    },
    logging: { level: 'warn' },
  };
  log(`soak: ${args.minutes} min, ${args.sessions} sessions, seed ${args.seed}`);
  const bridge = await startBridge({
    project: PROJECT,
    config,
    fakeProviders: fakeProviders(),
    // As the harness runs it from source, plus a way to force a full GC (collectGarbage).
    command: (configPath) => ({
      file: process.execPath,
      args: daemonFromSource(configPath, heapSnapshotFlags(dirname(configPath))),
    }),
  });
  const { daemon, pki } = bridge;
  const pid = daemon.pid;
  if (daemon.metricsPort === undefined) throw new Error('the daemon reported no metrics port');
  const metrics = metricsScraper(daemon.metricsPort, pki.ca.certPem, pki.client);
  let workload: ReturnType<typeof startWorkload> | undefined;
  let daemonExit: number | null = null;
  let samples: Sample[] = [];
  let agentGroups = new Set<number>();
  let renewal: NodeJS.Timeout | undefined;
  try {
    await collectGarbage(pid, daemon.dir);
    const idleBefore = await idlePoint(pid, metrics.scrape);
    const baseline = descendantsOf(pid);
    // Test tokens live 5 minutes: the calls' metadata gets a fresh one every minute.
    renewal = setInterval(() => {
      void bridge.mint().then(
        (token) => bridge.md.set('authorization', `Bearer ${token}`),
        (err) => errors.record('token renewal', err, false),
      );
    }, 60_000);
    const wl = startWorkload({
      client: bridge.client,
      md: bridge.md,
      projectId: PROJECT,
      repoPath: daemon.repo,
      poolSize: args.sessions,
      startsPerSecond: 5,
      rng,
      errors,
    });
    workload = wl;
    agentGroups = wl.agentGroups;
    const sampler = startSampler({
      pid,
      scrape: metrics.scrape,
      eventsReceived: () => wl.counts().eventsReceived,
      onSample: (s) => {
        if (Math.round(s.t) % 10 === 0) log(progress(s));
      },
      onError: (err) => errors.record('metrics scrape', err, false),
    });
    await runFor(args.minutes * 60_000);
    samples = await sampler.stop();

    log('soak: stopping every session');
    await wl.close();
    workload = undefined;
    // Every session freed after its retention: nothing held, nothing read.
    let last = new Map<string, number>();
    await waitFor(
      () =>
        `the daemon to free every session (sessions ${sumOf(last, 'bridge_sessions')}, subscribers ${sumOf(last, 'bridge_subscribers')})`,
      async () => {
        last = await metrics.scrape();
        return sumOf(last, 'bridge_sessions') === 0 && sumOf(last, 'bridge_subscribers') === 0;
      },
      (RETENTION_S + 30) * 1000,
      500,
    );
    // A process that outlives this wait is reported by the check below, not thrown.
    await waitFor(
      () => `no agent process left: ${leftovers(pid, agentGroups, baseline).join('; ')}`,
      () => leftovers(pid, agentGroups, baseline).length === 0,
      10_000,
      200,
    ).catch(() => undefined);
    const leftBefore = leftovers(pid, agentGroups, baseline);
    const snapshot = args.keepSnapshot ? join(args.out, `soak-${stamp}.heapsnapshot`) : undefined;
    if (snapshot) mkdirSync(args.out, { recursive: true });
    await collectGarbage(pid, daemon.dir, snapshot);
    const idleAfter = await idlePoint(pid, metrics.scrape);

    metrics.close();
    bridge.client.close();
    daemonExit = await daemon.stop();
    const leftAfter = leftovers(pid, agentGroups);
    // tsx's esbuild service must go with the daemon.
    await waitFor(
      "the daemon's helper processes to exit",
      () => {
        const alive = descendantsOf(process.pid);
        return [...baseline].every((p) => !alive.has(p));
      },
      5_000,
      100,
    ).catch(() => {
      const alive = descendantsOf(process.pid);
      for (const p of baseline)
        if (alive.has(p)) leftAfter.push(`helper ${p} of the daemon outlived it`);
    });

    const counts = wl.counts();
    const summary = summarize(samples, idleBefore, idleAfter, {
      sessionsStarted: counts.sessionsStarted,
      eventsReceived: counts.eventsReceived,
      unexpectedErrors: errors.unexpected,
      expectedErrors: errors.expected,
      seqProblems: counts.seqProblems,
      overflowReports: counts.overflowReports,
      leftovers: [...new Set([...leftBefore, ...leftAfter])],
      daemonExit,
    });
    const title = `agent-bridge soak ${startedAt.toISOString()} (${args.minutes} min, ${args.sessions} sessions, seed ${args.seed})`;
    const paths = writeResults(
      args.out,
      stamp,
      {
        startedAt: startedAt.toISOString(),
        args,
        machine: { node: process.version, cpus: cpus().length, model: cpus()[0]?.model.trim() },
        daemonConfig: config,
        workload: { ...counts, agentProcessGroups: agentGroups.size },
        errors: {
          expected: errors.expected,
          unexpected: errors.unexpected,
          firstUnexpected: errors.firstUnexpected,
        },
        summary,
        samples,
      },
      soakChart(samples, summary, title),
    );
    const peak = (pick: (s: Sample) => number) => Math.max(0, ...samples.map(pick));
    const mean = (pick: (s: Sample) => number) =>
      samples.reduce((n, s) => n + pick(s), 0) / Math.max(1, samples.length);
    process.stdout.write(
      [
        title,
        `workload: ${counts.sessionsStarted} sessions started, ${counts.inputsSent} inputs, ${counts.eventsReceived} events received (mean ${mean((s) => s.eventsPerSec).toFixed(0)}/s), ${counts.overflowReports} overflow reports, ${agentGroups.size} agent process groups`,
        `daemon: RSS peak ${peak((s) => s.rssMiB).toFixed(1)} MiB, fds peak ${peak((s) => s.fds)}, event-loop p99 mean ${mean((s) => s.loopDelayP99Ms).toFixed(1)} ms / peak ${peak((s) => s.loopDelayP99Ms).toFixed(1)} ms, CPU mean ${mean((s) => s.cpuPercent).toFixed(0)}% of a core`,
        ...(counts.problemSamples.length
          ? [`seq problems: ${counts.problemSamples.join('; ')}`]
          : []),
        ...(errors.firstUnexpected.length
          ? [`unexpected errors: ${errors.firstUnexpected.join('; ')}`]
          : []),
        formatSummary(summary),
        `results: ${paths.json}`,
        `chart:   ${paths.svg}`,
        ...(snapshot ? [`heap snapshot after the run: ${snapshot}`] : []),
        '',
      ].join('\n'),
    );
    return summary.pass;
  } finally {
    clearInterval(renewal);
    metrics.close();
    if (workload) await workload.close(20_000).catch((err) => log(`soak: ${err.message}`));
    if (daemon.proc.exitCode === null && daemon.proc.signalCode === null) {
      bridge.client.close();
      await daemon.stop().catch((err) => log(`soak: ${err.message}`));
    }
  }
}

main().then(
  (pass) => process.exit(pass ? 0 : 1),
  (err) => {
    process.stderr.write(`soak failed: ${err?.stack ?? err}\n`);
    process.exit(1);
  },
);
