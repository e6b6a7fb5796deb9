import { defineConfig } from 'vitest/config';

// One run for the whole workspace. Workspace packages resolve to their
// TypeScript sources through the "development" export condition, so tests
// need no build step.
export default defineConfig({
  resolve: { conditions: ['development'] },
  ssr: { resolve: { conditions: ['development'] } },
  test: {
    include: [
      'packages/*/src/**/*.test.ts',
      'internal/*/src/**/*.test.ts',
      'cmd/*/src/**/*.test.ts',
      'tests/src/**/*.test.ts',
      'bench/src/**/*.test.ts',
    ],
    exclude: ['**/node_modules/**', 'tests/contract/**'],
    globalSetup: ['tests/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    reporters: process.env.CI ? ['default'] : ['default'],
  },
});
