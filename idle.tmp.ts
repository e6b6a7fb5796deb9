import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { call, startBridge } from './tests/src/harness/index.ts';

const rss = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
const size = Number(process.argv[2] ?? 10000);
const b = await startBridge({
  project: 'bench',
  config: {
    sessions: { event_buffer_size: size, max_per_project: 10000, max_global: 10000 },
    logging: { level: 'warn', audit_path: '' },
    providers: { idle: { binary: '/bin/cat', args: [] } },
  },
});
const pid = b.daemon.pid;
const start = async () => {
  const sessionId = randomUUID();
  await call(
    b.client,
    (c) => c.startSession,
    { projectId: 'bench', sessionId, repoPath: b.daemon.repo, provider: 'idle', agentOpts: {} },
    b.md,
  );
};
for (let i = 0; i < 50; i++) await start();
await new Promise((r) => setTimeout(r, 1000));
const r0 = rss(pid);
const N = 400;
for (let i = 0; i < N; i += 20) await Promise.all(Array.from({ length: 20 }, start));
await new Promise((r) => setTimeout(r, 2000));
const r1 = rss(pid);
console.log(`event_buffer_size ${size}: ${((r1 - r0) / N).toFixed(1)} KiB per idle session`);
await b.close();
