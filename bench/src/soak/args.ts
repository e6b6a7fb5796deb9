import { isAbsolute, resolve } from 'node:path';

export interface SoakArgs {
  minutes: number;
  /** Directory for the JSON and SVG results. */
  out: string;
  /** Live sessions the workload keeps. */
  sessions: number;
  seed: number;
  /** Keep the daemon's heap snapshot taken after the run (soak-<timestamp>.heapsnapshot in `out`). */
  keepSnapshot: boolean;
}

const USAGE =
  'usage: pnpm soak --minutes N [--out DIR] [--sessions N] [--seed N] [--keep-snapshot]\n' +
  '  --minutes   how long the workload runs (fractions allowed: 0.5)\n' +
  '  --out       where soak-<timestamp>.json and .svg go (default bench/results)\n' +
  '  --sessions  live sessions kept with churn (default 30)\n' +
  "  --seed      the workload's random seed (default: random; recorded in the JSON)\n" +
  '  --keep-snapshot  keep the heap snapshot taken after the run (to see what the daemon retains)';

/** Parses the command line; `cwd` resolves a relative --out, `defaultOut` applies without one. */
export function parseSoakArgs(argv: readonly string[], cwd: string, defaultOut: string): SoakArgs {
  const fail = (msg: string): never => {
    throw new Error(`${msg}\n${USAGE}`);
  };
  const values = new Map<string, string>();
  let keepSnapshot = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--keep-snapshot') {
      keepSnapshot = true;
      continue;
    }
    const eq = a.indexOf('=');
    const [name, inline] = eq > 0 ? [a.slice(0, eq), a.slice(eq + 1)] : [a, undefined];
    if (!['--minutes', '--out', '--sessions', '--seed'].includes(name))
      fail(`unknown argument ${a}`);
    const v = inline ?? argv[++i];
    if (v === undefined) fail(`${name} needs a value`);
    values.set(name, v as string);
  }
  const positive = (name: string, dflt?: number) => {
    const raw = values.get(name);
    if (raw === undefined) return dflt ?? fail(`${name} is required`);
    const n = Number(raw);
    if (!Number.isFinite(n) || n <= 0) fail(`${name} must be a positive number, not ${raw}`);
    return n;
  };
  const out = values.get('--out');
  return {
    minutes: positive('--minutes'),
    out: out === undefined ? defaultOut : isAbsolute(out) ? out : resolve(cwd, out),
    sessions: Math.round(positive('--sessions', 30)),
    seed: Math.round(positive('--seed', 1 + Math.floor(Math.random() * 2 ** 31))),
    keepSnapshot,
  };
}
