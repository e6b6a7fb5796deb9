import { randomUUID } from 'node:crypto';
import { call } from '@agent-bridge/harness';
import { type BridgeServiceClient, EventType, type SessionEvent } from '@agent-bridge/proto';
import { type Metadata, status } from '@grpc/grpc-js';
import { AGENTS, type AgentKind, pickKind } from './agents.js';
import { codeOf, type ErrorTally } from './error-tally.js';
import { type Reader, startReader } from './reader.js';

export interface WorkloadOptions {
  client: BridgeServiceClient;
  md: Metadata;
  projectId: string;
  repoPath: string;
  /** Live sessions the workload keeps (it starts one whenever it is below). */
  poolSize: number;
  /** Most sessions started per second, so churn stays steady rather than bursty. */
  startsPerSecond: number;
  rng: () => number;
  errors: ErrorTally;
}

interface LiveSession {
  id: string;
  kind: AgentKind;
  /** StartSession answered: only then can it be stopped. */
  started: boolean;
  stopping: boolean;
  readers: Reader[];
  timers: NodeJS.Timeout[];
}

const between = (rng: () => number, [lo, hi]: [number, number]) => lo + rng() * (hi - lo);

/** How long a session may take to end once stopped before the workload calls it stuck. */
const END_WAIT_MS = 30_000;

/**
 * Keeps a pool of sessions of mixed agents alive with churn: each is started,
 * read by a follower that cuts and resumes (and sometimes a stalled reader),
 * given input if interactive, and stopped gracefully or by force at the end of
 * its lifetime, unless it crashed first.
 */
export function startWorkload(o: WorkloadOptions) {
  const live = new Map<string, LiveSession>();
  const agentGroups = new Set<number>();
  let eventsReceived = 0;
  let sessionsStarted = 0;
  let inputsSent = 0;
  let overflowReports = 0;
  let seqProblems = 0;
  const problemSamples: string[] = [];
  let closing = false;

  const liveOf = (k: AgentKind) => [...live.values()].filter((s) => s.kind === k).length;

  const onEvent = (e: SessionEvent) => {
    eventsReceived++;
    if (e.type === EventType.EVENT_TYPE_SESSION_STARTED) {
      const pid = Number((e.data as { pid?: number } | undefined)?.pid);
      if (pid > 0) agentGroups.add(pid);
    }
  };

  const stop = async (s: LiveSession, force: boolean) => {
    if (s.stopping) return;
    s.stopping = true;
    try {
      await call(o.client, (c) => c.stopSession, { sessionId: s.id, force }, o.md);
    } catch (err) {
      o.errors.record('StopSession', err, false);
    }
  };

  const sendLoop = (s: LiveSession, every: [number, number], n = 0) => {
    const t = setTimeout(
      async () => {
        if (s.stopping || closing || s.readers[0]?.sawEnd) return;
        try {
          await call(
            o.client,
            (c) => c.sendInput,
            { sessionId: s.id, text: `ping ${n}`, idempotencyKey: '' },
            o.md,
          );
          inputsSent++;
        } catch (err) {
          // A crashed agent, or one being stopped, refuses input; anything else is a fault.
          const allowed =
            codeOf(err) === status.FAILED_PRECONDITION &&
            (AGENTS[s.kind].crashes || s.stopping || closing || !!s.readers[0]?.sawEnd);
          o.errors.record('SendInput', err, allowed);
        }
        sendLoop(s, every, n + 1);
      },
      between(o.rng, every),
    );
    s.timers.push(t);
  };

  const launch = async (kind: AgentKind) => {
    const a = AGENTS[kind];
    const s: LiveSession = {
      id: randomUUID(),
      kind,
      started: false,
      stopping: false,
      readers: [],
      timers: [],
    };
    live.set(s.id, s);
    try {
      await call(
        o.client,
        (c) => c.startSession,
        {
          projectId: o.projectId,
          sessionId: s.id,
          repoPath: o.repoPath,
          provider: kind,
          agentOpts: {},
        },
        o.md,
      );
    } catch (err) {
      o.errors.record('StartSession', err, false);
      live.delete(s.id);
      return;
    }
    sessionsStarted++;
    s.started = true;
    const reader = (extra: Partial<Parameters<typeof startReader>[0]>) =>
      startReader({
        client: o.client,
        md: o.md,
        sessionId: s.id,
        batched: o.rng() < 0.5,
        rng: o.rng,
        errors: o.errors,
        onEvent,
        ...extra,
      });
    s.readers.push(reader({ cutEveryMs: [1_000, 5_000] }));
    if (o.rng() < a.stalledReader)
      s.readers.push(reader({ stallMs: between(o.rng, [1_000, 5_000]) }));
    if (a.inputEveryMs) sendLoop(s, a.inputEveryMs);
    if (closing) void stop(s, true);
    s.timers.push(setTimeout(() => void stop(s, o.rng() < a.forceStop), between(o.rng, a.lifeMs)));
    const stuck = new Promise<'stuck'>((resolve) => {
      s.timers.push(setTimeout(() => resolve('stuck'), a.lifeMs[1] + END_WAIT_MS));
    });
    const ended = await Promise.race([Promise.all(s.readers.map((r) => r.done)), stuck]);
    if (ended === 'stuck') {
      o.errors.record(
        'StreamEvents',
        { code: -1, message: `session ${s.id} (${kind}) never ended` },
        false,
      );
      for (const r of s.readers) r.abandon();
    }
    for (const t of s.timers) clearTimeout(t);
    for (const r of s.readers) {
      overflowReports += r.tracker.overflows;
      seqProblems += r.tracker.problems.length;
      for (const p of r.tracker.problems.slice(0, 3)) {
        if (problemSamples.length < 20)
          problemSamples.push(`${s.id} (${kind}): ${p.kind} expected ${p.expected} got ${p.got}`);
      }
    }
    live.delete(s.id);
  };

  // Tops the pool up, a bounded number of starts per tick.
  const TICK_MS = 200;
  const perTick = Math.max(1, Math.round((o.startsPerSecond * TICK_MS) / 1000));
  const ticker = setInterval(() => {
    if (closing) return;
    for (let i = 0; i < perTick && live.size < o.poolSize; i++) {
      const kind = pickKind(liveOf, o.rng);
      if (!kind) break;
      void launch(kind);
    }
  }, TICK_MS);

  return {
    agentGroups,
    counts: () => ({
      eventsReceived,
      sessionsStarted,
      inputsSent,
      overflowReports,
      seqProblems,
      problemSamples,
      live: live.size,
    }),
    /** Stops starting sessions, stops every live one by force, and waits for all readers to finish. */
    async close(timeoutMs = 60_000): Promise<void> {
      closing = true;
      clearInterval(ticker);
      // Sessions still starting are stopped by launch once StartSession answers.
      await Promise.all([...live.values()].filter((s) => s.started).map((s) => stop(s, true)));
      const end = Date.now() + timeoutMs;
      while (live.size > 0) {
        if (Date.now() > end) {
          throw new Error(
            `timed out after ${timeoutMs} ms waiting for ${live.size} sessions to end: ${[...live.values()].map((s) => `${s.id} (${s.kind})`).join(', ')}`,
          );
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
}
