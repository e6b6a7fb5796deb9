/**
 * The fake agents of the soak (tests/fixtures/fake-agent.mjs scenarios) and
 * how the workload treats each: how long it lives, how it is stopped, and
 * whether it gets input. Output rates are paced so that the mix keeps the
 * daemon busy without saturating two cores.
 */
export type AgentKind =
  | 'echo'
  | 'burst'
  | 'lines'
  | 'flood'
  | 'crash'
  | 'crash-on-input'
  | 'stubborn';

export interface AgentProfile {
  /** fake-agent.mjs arguments. */
  args: string[];
  /** Relative share of new sessions. */
  weight: number;
  /** At most this many at once (a flood is expensive; a stubborn stop takes the grace period). */
  maxLive: number;
  /** Lifetime before the workload stops it, ms. */
  lifeMs: [number, number];
  /** Probability that the stop is forced (SIGKILL at once) rather than graceful. */
  forceStop: number;
  /** SendInput every this many ms, if set. */
  inputEveryMs?: [number, number];
  /** Dies on its own or on input: FAILED_PRECONDITION on SendInput is expected. */
  crashes: boolean;
  /** Share of its sessions given an extra reader that stalls for a while. */
  stalledReader: number;
}

/**
 * A script that prints `lines` lines of `width` bytes every `everyMs` for
 * `steps` steps (about lines × 1000 / everyMs lines/s), then echoes input.
 */
function pacedScript(steps: number, lines: number, width: number, everyMs: number): string[] {
  const line = `${'b'.repeat(width)}\n`;
  const plan = Array.from({ length: steps }, () => ({ fill: [line, lines], wait: everyMs }));
  return ['script', Buffer.from(JSON.stringify(plan)).toString('base64url')];
}

export const AGENTS: Record<AgentKind, AgentProfile> = {
  echo: {
    args: ['echo'],
    weight: 40,
    maxLive: 1000,
    lifeMs: [5_000, 20_000],
    forceStop: 0.3,
    inputEveryMs: [300, 900],
    crashes: false,
    stalledReader: 0.1,
  },
  // About 400 lines/s for 6 s.
  burst: {
    args: pacedScript(60, 40, 160, 100),
    weight: 20,
    maxLive: 8,
    lifeMs: [4_000, 12_000],
    forceStop: 0.5,
    crashes: false,
    stalledReader: 0.5,
  },
  lines: {
    args: ['lines', '300', '120'],
    weight: 12,
    maxLive: 1000,
    lifeMs: [2_000, 8_000],
    forceStop: 0.3,
    inputEveryMs: [1_000, 2_000],
    crashes: false,
    stalledReader: 0.2,
  },
  // Unpaced: as fast as the pipe takes it, so briefly and one at a time.
  flood: {
    args: ['flood', '180'],
    weight: 3,
    maxLive: 1,
    lifeMs: [500, 1_500],
    forceStop: 0.5,
    crashes: false,
    stalledReader: 1,
  },
  crash: {
    args: ['exit', '3'],
    weight: 7,
    maxLive: 1000,
    lifeMs: [10_000, 10_000],
    forceStop: 0,
    crashes: true,
    stalledReader: 0,
  },
  'crash-on-input': {
    args: ['crash-on-input'],
    weight: 7,
    maxLive: 1000,
    lifeMs: [10_000, 10_000],
    forceStop: 0,
    inputEveryMs: [500, 2_000],
    crashes: true,
    stalledReader: 0,
  },
  // Ignores SIGTERM and has a grandchild: a graceful stop ends in SIGKILL of the group.
  stubborn: {
    args: ['ignore-term'],
    weight: 6,
    maxLive: 2,
    lifeMs: [2_000, 6_000],
    forceStop: 0.2,
    crashes: false,
    stalledReader: 0,
  },
};

/** Provider id → fake-agent arguments, for startBridge's `fakeProviders`. */
export const fakeProviders = () =>
  Object.fromEntries(Object.entries(AGENTS).map(([k, a]) => [k, a.args]));

/** A kind chosen by weight among those below their `maxLive`, or undefined. */
export function pickKind(live: (k: AgentKind) => number, rng: () => number): AgentKind | undefined {
  const open = (Object.keys(AGENTS) as AgentKind[]).filter((k) => live(k) < AGENTS[k].maxLive);
  const total = open.reduce((n, k) => n + AGENTS[k].weight, 0);
  let r = rng() * total;
  for (const k of open) {
    r -= AGENTS[k].weight;
    if (r < 0) return k;
  }
  return open.at(-1);
}
