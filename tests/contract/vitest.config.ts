import { defineConfig } from 'vitest/config';

// `pnpm test:contract`: the real CLIs (installed by scripts/install-clis.mjs
// into clis/node_modules, outside the default install) driven through the
// daemon. One file per CLI; files run one at a time so the CLIs' start-up
// costs do not pile up on a small machine.
export default defineConfig({
  resolve: { conditions: ['development'] },
  ssr: { resolve: { conditions: ['development'] } },
  test: {
    root: new URL('.', import.meta.url).pathname,
    include: ['src/**/*.contract.test.ts'],
    globalSetup: ['../global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
