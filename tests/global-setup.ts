import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * One temporary directory per test run, under which the harness puts every
 * test PKI (key material). Workers inherit its path; it is removed when the
 * run ends, so no run leaves keys in /tmp and concurrent runs never touch
 * each other's files.
 */
export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'bridge-test-run-'));
  process.env.BRIDGE_TEST_TMPDIR = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}
