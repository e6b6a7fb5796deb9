import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { within } from '@agent-bridge/harness';

/**
 * The native pipe ceiling: `cat <file>` piped into this process, counting
 * newlines until `lines` have arrived. Lines per second, spawn included.
 */
export async function catPipeLinesPerSecond(file: string, lines: number): Promise<number> {
  const t0 = process.hrtime.bigint();
  const child = spawn('/usr/bin/cat', [file], { stdio: ['ignore', 'pipe', 'inherit'] });
  const finished = Promise.all([once(child, 'exit'), once(child.stdout, 'close')]);
  let seen = 0;
  let end = 0n;
  child.stdout.on('data', (b: Buffer) => {
    for (let i = b.indexOf(10); i !== -1; i = b.indexOf(10, i + 1)) seen++;
    if (seen >= lines && end === 0n) end = process.hrtime.bigint();
  });
  await within(`cat of ${file} to finish`, finished, 5 * 60_000);
  if (seen !== lines) throw new Error(`cat pipe: counted ${seen} lines, expected ${lines}`);
  return lines / (Number(end - t0) / 1e9);
}
