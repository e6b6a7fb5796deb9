import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, release, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { REPO_ROOT } from '@agent-bridge/harness';

/** What the numbers were measured on. */
export interface Machine {
  cpu: string;
  cores: number;
  ramGiB: number;
  kernel: string;
  node: string;
  grpcJs: string;
  jose: string;
}

/** The version of `pkg` as the package at `from` resolves it. */
function versionOf(pkg: string, from: string): string {
  let dir = dirname(createRequire(join(REPO_ROOT, from, 'package.json')).resolve(pkg));
  for (;;) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
      if (manifest.name === pkg) return manifest.version;
    } catch {
      // no manifest here: look further up
    }
    const up = dirname(dir);
    if (up === dir) return 'unknown';
    dir = up;
  }
}

export function machine(): Machine {
  return {
    cpu: cpus()[0]?.model.trim() ?? 'unknown',
    cores: cpus().length,
    ramGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    kernel: release(),
    node: process.version,
    grpcJs: versionOf('@grpc/grpc-js', 'bench'),
    // The daemon's JWT library, as the auth package has it.
    jose: versionOf('jose', 'internal/auth'),
  };
}
