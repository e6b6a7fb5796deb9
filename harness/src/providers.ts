import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ListProvidersResponse, ProbeState, type ProviderInfo } from '@agent-bridge/proto';
import type { Provider, ProviderStatus, SessionSpec } from '@agent-bridge/providers';
import {
  createProbeHost,
  type ProviderHost,
  SupervisedProcess,
} from '@agent-bridge/providers/host';
import { waitFor } from '@agent-bridge/waits';
import { afterAll } from 'vitest';
import { REPO_ROOT } from './daemon.js';

/** The fake claude CLI (claude -p stream-json of Claude Code 2.1.197). */
export const FAKE_CLAUDE = join(REPO_ROOT, 'tests/fixtures/fake-claude.mjs');

/**
 * A claude binary of its own in `dir` that reports `version` (the daemon
 * keeps one version per binary file): a script running the fake with it.
 */
export function claudeOfVersion(dir: string, version: string): string {
  const file = join(dir, `claude-${version}`);
  writeFileSync(
    file,
    `#!/bin/sh\nFAKE_CLAUDE_VERSION=${version} exec '${process.execPath}' '${FAKE_CLAUDE}' "$@"\n`,
    { mode: 0o755 },
  );
  return file;
}

/**
 * A lifetime for providers a test file builds itself (no daemon): aborted
 * after the file, so no background probe outlives it.
 */
export function testLifetime(): AbortSignal {
  const lifetime = new AbortController();
  afterAll(() => lifetime.abort());
  return lifetime.signal;
}

/** A ProviderHost for providers built by a test, ending with the test file. */
export function testProviderHost(over: Partial<ProviderHost> = {}): ProviderHost {
  return {
    parentEnv: process.env,
    tempRoot: '/nonexistent',
    spawn: SupervisedProcess.spawn,
    lifetime: testLifetime(),
    ...over,
  };
}

/** The probe host of providers built one by one, ending with the test file. */
export const testProbeHost = () => createProbeHost(testLifetime());

/** A startup clock nobody reads: tests of a provider alone bound start-up with `signal`. */
export const noStartupClock: SessionSpec['startupClock'] = { stop() {}, restart() {} };

/** A provider's health once every probe has answered (or the wait times out, saying what it saw). */
export async function healthOnceProbed(p: Provider, timeoutMs = 15_000): Promise<ProviderStatus> {
  let last: ProviderStatus | undefined;
  await waitFor(
    () => `${p.id}'s probes to answer (last: ${JSON.stringify(last)})`,
    async () => {
      last = await p.health();
      return last.probeState !== 'pending';
    },
    timeoutMs,
  );
  return last!;
}

/**
 * ListProviders once the background probes of `ids` have answered (none
 * PENDING): the first answer after a daemon starts may come before them.
 */
export async function listedOnceProbed(
  list: () => Promise<ListProvidersResponse>,
  ids: readonly string[],
): Promise<ProviderInfo[]> {
  let providers: ProviderInfo[] = [];
  await waitFor(
    () =>
      `the probes of ${ids.join(', ')} to answer (${providers
        .filter((p) => ids.includes(p.id))
        .map((p) => `${p.id}: ${p.probeDetail || ProbeState[p.probeState]}`)
        .join('; ')})`,
    async () => {
      ({ providers } = await list());
      return ids.every((id) => {
        const p = providers.find((x) => x.id === id);
        return p !== undefined && p.probeState !== ProbeState.PROBE_STATE_PENDING;
      });
    },
    30_000,
  );
  return providers;
}
