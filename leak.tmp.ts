import { readdirSync, renameSync } from 'node:fs';
import { startBridge } from './tests/src/harness/index.ts';

const b = await startBridge({
  env: { NODE_OPTIONS: '--heapsnapshot-signal=SIGUSR2' },
  config: {
    sessions: { max_per_project: 10, max_global: 10, retention: '200ms' },
    logging: { level: 'warn' },
    providers: {
      cat: { binary: '/bin/sh', args: ['-c', 'echo ready; exec cat'], ready_pattern: '^ready$' },
    },
  },
});
const sessions = b.sessions();
const cycle = async () => {
  const s = await sessions.start('cat');
  await s.stop(false);
};
const run = async (n: number) => {
  for (let i = 0; i < n; i += 10) await Promise.all(Array.from({ length: 10 }, cycle));
};
const snap = async (name: string) => {
  await new Promise((r) => setTimeout(r, 1500));
  const before = new Set(readdirSync('.'));
  process.kill(b.daemon.pid, 'SIGUSR2');
  for (;;) {
    await new Promise((r) => setTimeout(r, 500));
    const f = readdirSync('.').find((x) => x.endsWith('.heapsnapshot') && !before.has(x));
    if (f) {
      await new Promise((r) => setTimeout(r, 3000));
      renameSync(f, `/tmp/heap/${name}.heapsnapshot`);
      return;
    }
  }
};
await run(50);
await snap('a');
await run(300);
await snap('b');
await b.close();
console.log('done');
