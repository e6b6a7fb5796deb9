// The agents' output for B3: `stamp-writer.ts <dir> <fifos> <per-second>
// <total> <width>` opens the FIFOs the agents (`cat` of a FIFO) made in
// <dir>, then writes <total> lines at <per-second> overall, round-robin, each
// starting with the monotonic clock (ns) at the moment it is written, and
// closes them (each `cat` then ends).
import { closeSync, constants, openSync, readdirSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { paced, stampedLine } from './pace.js';

const [dir, fifos, perSecond, total, width] = process.argv.slice(2);
if (!dir || !fifos || !perSecond || !total || !width) {
  process.stderr.write('usage: stamp-writer.ts <dir> <fifos> <per-second> <total> <width>\n');
  process.exit(2);
}
const paths = readdirSync(dir)
  .filter((f) => f.endsWith('.fifo'))
  .map((f) => join(dir, f));
if (paths.length !== Number(fifos)) {
  throw new Error(`found ${paths.length} FIFOs in ${dir}, expected ${fifos}`);
}

// Non-blocking, so a FIFO whose `cat` has not opened it yet (ENXIO) is
// retried rather than blocking, and a stalled `cat` fails the run (EAGAIN)
// instead of delaying every line behind it.
const deadline = Date.now() + 30_000;
const fds: number[] = [];
for (const p of paths) {
  for (;;) {
    try {
      fds.push(openSync(p, constants.O_WRONLY | constants.O_NONBLOCK));
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENXIO' || Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 5));
    }
  }
}
await paced(Number(perSecond), Number(total), (i) => {
  writeSync(fds[i % fds.length]!, `${stampedLine(Number(width))}\n`);
});
for (const fd of fds) closeSync(fd);
