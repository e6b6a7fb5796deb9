import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildConsole } from '../scripts/build-console.mjs';

/**
 * One temporary directory per test run, under which the harness puts every
 * test PKI (key material). Workers inherit its path; it is removed when the
 * run ends, so no run leaves keys in /tmp and concurrent runs never touch
 * each other's files.
 */
export default async function setup(): Promise<() => void> {
  // bridgectl's web console serves its built page: the browser tests need it.
  await buildConsole({ typecheck: false });
  const dir = mkdtempSync(join(tmpdir(), 'bridge-test-run-'));
  process.env.BRIDGE_TEST_TMPDIR = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}
