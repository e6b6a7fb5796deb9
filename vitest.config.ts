import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

const ALL = [
  'packages/*/src/**/*.test.ts',
  'internal/*/src/**/*.test.ts',
  'cmd/*/src/**/*.test.ts',
  'cmd/bridgectl/console/src/**/*.test.ts',
  'tests/src/**/*.test.ts',
  'bench/src/**/*.test.ts',
];
const NEVER = ['**/node_modules/**', 'tests/contract/**'];

/**
 * The slow groups: `npm run test:slow` (CI runs them after `npm test`;
 * `npm run test:full` runs both). Each spends its time on many processes or
 * on waiting by design, not on logic the default suite leaves untested:
 * fault injection (kills, floods, restarts, stalls), the CLIs run as
 * processes against openssl, packaging and the examples, the SDK under
 * network cuts and daemon restarts, the floods of the security catalogue,
 * start-ups beside a CPU hog, the session store killed mid-write, the
 * daemon killed mid-flood and restarted on its store, and real NATS
 * clusters with a node killed (nats-server, which `npm run test:slow`
 * installs from Debian's packages when it is missing).
 */
const SLOW = [
  'tests/src/faults/**/*.test.ts',
  'tests/src/pki/**/*.test.ts',
  'tests/src/e2e/bridgectl*.test.ts',
  'tests/src/e2e/cli.test.ts',
  'tests/src/e2e/service.test.ts',
  'tests/src/e2e/build-script.test.ts',
  'tests/src/examples/**/*.test.ts',
  'tests/src/sdk/{network-cuts,restart-acks,daemon-restart,tokens,resume,delivery}.test.ts',
  'tests/src/security/{http2-limits,fanout,handshake-flood,path-race,rate-limits}.test.ts',
  'tests/src/providers/{concurrent-start,busy-host-probes}.test.ts',
  'internal/store/src/lmdb-crash.test.ts',
  'tests/src/durability/**/*.test.ts',
  'tests/src/fleet/**/*.test.ts',
];

// One run for the whole workspace. Workspace packages resolve to their
// TypeScript sources through the "development" export condition, so tests
// need no build step.
export default defineConfig({
  resolve: { conditions: ['development'] },
  ssr: { resolve: { conditions: ['development'] } },
  test: {
    globalSetup: ['tests/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // vitest's default (cores - 1) is one worker on a 2-core machine; the
    // tests wait on child processes and sockets as much as they compute.
    maxWorkers: Math.max(2, availableParallelism()),
    projects: [
      { extends: true, test: { name: 'default', include: ALL, exclude: [...NEVER, ...SLOW] } },
      // Many of these run several processes each (tsx, openssl): on a busy
      // host one test can take minutes. The waits inside them end on their
      // own deadlines; this is only the net under them.
      {
        extends: true,
        test: { name: 'slow', include: SLOW, exclude: NEVER, testTimeout: 180_000 },
      },
    ],
  },
});
