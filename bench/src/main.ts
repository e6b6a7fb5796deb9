// pnpm bench: the daemon measured as a black box over gRPC (a real daemon
// child process, mTLS, a JWT per call), each number next to a reference
// measured in the same run on the same machine: a ceiling it cannot beat,
// or a comparison point that says it is one. See README.md
// for every row. `--quick` runs the same rows at small sizes (CI smoke);
// BENCH_ONLY=<group>[,<group>] runs some groups only.
import { capacityRows } from './capacity.js';
import { durableRows } from './durable.js';
import { fleetRows } from './fleet.js';
import { floodRows } from './flood.js';
import { idleMemoryRows } from './idle-memory.js';
import { latencyRows } from './latency.js';
import { liveRows } from './live.js';
import { machine } from './machine.js';
import { redactionRows } from './redaction.js';
import { replayRows } from './replay.js';
import { report } from './report.js';
import { ringMemoryRows } from './ring-memory.js';
import type { Row } from './row.js';
import { FULL, QUICK, type Sizes } from './sizes.js';
import { streamMemoryRows } from './stream-memory.js';
import { unaryRows } from './unary.js';

const GROUPS: Record<string, (s: Sizes) => Promise<Row[]> | Row[]> = {
  live: liveRows,
  replay: replayRows,
  unary: unaryRows,
  latency: latencyRows,
  'ring-memory': ringMemoryRows,
  'idle-memory': idleMemoryRows,
  'stream-memory': streamMemoryRows,
  capacity: capacityRows,
  flood: floodRows,
  redaction: (s) => redactionRows(s.events, s.width),
  durable: durableRows,
  fleet: fleetRows,
};

async function main() {
  const args = process.argv.slice(2);
  const unknownArg = args.find((a) => a !== '--quick');
  if (unknownArg) throw new Error(`unknown argument ${unknownArg} (only --quick)`);
  const quick = args.includes('--quick');
  const only = process.env.BENCH_ONLY?.split(',').filter(Boolean);
  const unknown = only?.filter((g) => !(g in GROUPS));
  if (unknown?.length) {
    throw new Error(`unknown BENCH_ONLY group ${unknown} (groups: ${Object.keys(GROUPS)})`);
  }
  const sizes = quick ? QUICK : FULL;
  const startedAt = new Date().toISOString();
  const rows: Row[] = [];
  for (const [name, run] of Object.entries(GROUPS)) {
    if (only && !only.includes(name)) continue;
    process.stderr.write(`bench: ${name}…\n`);
    rows.push(...(await run(sizes)));
  }
  report(rows, machine(), { quick, only: only?.join(','), startedAt });
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`bench failed: ${err?.stack ?? err}\n`);
    process.exit(1);
  },
);
