import { randomUUID } from 'node:crypto';
import { call, startBridge } from './tests/src/harness/index.ts';

const b = await startBridge({
  project: 'bench',
  command: (cfg: string) => ({
    file: process.execPath,
    args: [
      '--cpu-prof',
      '--cpu-prof-dir=/tmp/prof',
      '--conditions=development',
      '--import',
      'tsx',
      'cmd/bridge/src/main.ts',
      '--config',
      cfg,
    ],
  }),
  config: { logging: { level: 'warn', audit_path: '' } },
});
const sessionId = randomUUID();
await call(
  b.client,
  (c) => c.startSession,
  { projectId: 'bench', sessionId, repoPath: b.daemon.repo, provider: 'mock', agentOpts: {} },
  b.md,
);
let n = 0;
const end = Date.now() + 15000;
await Promise.all(
  Array.from({ length: 32 }, async () => {
    while (Date.now() < end) {
      await call(b.client, (c) => c.getSession, { sessionId }, b.md);
      n++;
    }
  }),
);
console.log('calls/s', n / 15);
process.kill(b.daemon.pid, 'SIGTERM');
await new Promise((r) => setTimeout(r, 3000));
await b.close().catch(() => {});
