import { copyFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { waitFor } from '@agent-bridge/waits';

/** Node flags that let `collectGarbage` force a full collection in the daemon. */
export const heapSnapshotFlags = (dir: string) => [
  '--heapsnapshot-signal=SIGUSR2',
  `--diagnostic-dir=${dir}`,
];

const snapshots = (dir: string) => readdirSync(dir).filter((f) => f.endsWith('.heapsnapshot'));

/**
 * Makes the daemon (started with `heapSnapshotFlags(dir)`) collect all
 * garbage, the only way from outside the process without a test-only RPC:
 * V8 runs a full collection before it writes a heap snapshot. Waits for the
 * snapshot file to stop growing, then deletes it (after copying it to
 * `keepAs`, when given). Used heap read afterwards is live memory, not
 * garbage a lazy old generation has yet to sweep.
 */
export async function collectGarbage(
  pid: number,
  dir: string,
  keepAs?: string,
  timeoutMs = 120_000,
): Promise<void> {
  const before = new Set(snapshots(dir));
  process.kill(pid, 'SIGUSR2');
  let file: string | undefined;
  let size = -1;
  await waitFor(
    `the daemon's heap snapshot in ${dir}`,
    () => {
      file ??= snapshots(dir).find((f) => !before.has(f));
      if (!file) return false;
      const now = statSync(join(dir, file)).size;
      const stable = now > 0 && now === size;
      size = now;
      return stable;
    },
    timeoutMs,
    500,
  );
  if (!file) return;
  if (keepAs) copyFileSync(join(dir, file), keepAs);
  rmSync(join(dir, file), { force: true });
}
