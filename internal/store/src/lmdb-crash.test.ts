import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitFor, within } from '@agent-bridge/waits';
import { describe, expect, it } from 'vitest';
import { LmdbStore } from './lmdb-store.js';
import { eventBytes } from './testing/crash-writer.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const WRITER = fileURLToPath(new URL('./testing/crash-writer.ts', import.meta.url));

/** Starts the writer, lets it commit past `atLeast`, kills it; returns the last commit it printed. */
async function writeThenKill(path: string, atLeast: number): Promise<number> {
  const child = spawn(
    process.execPath,
    ['--conditions=development', '--import', 'tsx', WRITER, path],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let last = 0;
  let stderr = '';
  let buffered = '';
  child.stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) {
      const m = /^committed (\d+)$/.exec(line);
      if (m) last = Number(m[1]);
    }
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    await waitFor(
      `the writer to commit past ${atLeast} (stderr: ${stderr})`,
      () => last >= atLeast,
      30_000,
    );
  } finally {
    child.kill('SIGKILL');
    await within('the writer to die', exited);
  }
  return last;
}

describe('LmdbStore under SIGKILL', () => {
  it('keeps every event it said was committed, consecutive from 1, across 5 kills at random moments', async () => {
    const path = mkdtempSync(join(tmpdir(), 'bridge-store-crash-'));
    try {
      for (let round = 0; round < 5; round++) {
        rmSync(path, { recursive: true, force: true });
        const atLeast = 200 + Math.floor(Math.random() * 3000);
        const acknowledged = await writeThenKill(path, atLeast);
        const store = await LmdbStore.open({ path });
        try {
          const kept = [...store.storedEvents('crash')];
          // What was acknowledged is there; more may be (committed, not yet reported).
          expect(kept.length).toBeGreaterThanOrEqual(acknowledged);
          kept.forEach((e, i) => {
            expect(e.seq).toBe(i + 1);
            expect(Buffer.compare(e.bytes, Buffer.from(eventBytes(e.seq)))).toBe(0);
          });
        } finally {
          await store.close();
        }
      }
    } finally {
      rmSync(path, { recursive: true, force: true });
    }
  }, 120_000);
});
