import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root, where `npm run bridge-ca` runs from. */
const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

export interface ProcessResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** How long one command may run before the test fails. */
const RUN_TIMEOUT_MS = 60_000;

function run(
  file: string,
  args: string[],
  opts: { cwd?: string; env?: Record<string, string | undefined>; input?: string } = {},
): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      file,
      args,
      {
        cwd: opts.cwd ?? REPO_ROOT,
        env: opts.env ?? process.env,
        maxBuffer: 16 << 20,
        timeout: RUN_TIMEOUT_MS,
      },
      (error, stdout, stderr) => {
        // Killed by us (the timeout or maxBuffer): that is no exit code of the command.
        if (error?.killed) {
          reject(new Error(`${file} ${args.join(' ')} did not finish: ${error.message}`));
          return;
        }
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout: String(stdout), stderr: String(stderr) });
      },
    );
    // A child that exits before reading stdin (openssl on a bad passphrase)
    // closes the pipe; that EPIPE is expected and its exit code is the result.
    child.stdin?.on('error', () => {});
    child.stdin?.end(opts.input ?? '');
  });
}

/**
 * Runs the real CLI the way `npm run bridge-ca` does (tsx, development
 * condition), as its own process. The passphrase is never inherited from
 * the test environment unless given.
 */
export function bridgeCa(
  args: string[],
  opts: { cwd?: string; passphrase?: string; env?: Record<string, string> } = {},
): Promise<ProcessResult> {
  const env: Record<string, string | undefined> = { ...process.env, ...opts.env };
  delete env.BRIDGE_CA_PASSPHRASE;
  delete env.INIT_CWD;
  if (opts.passphrase !== undefined) env.BRIDGE_CA_PASSPHRASE = opts.passphrase;
  return run(
    process.execPath,
    [
      '--conditions=development',
      '--import',
      'tsx',
      join(REPO_ROOT, 'cmd/bridge-ca/src/main.ts'),
      ...args,
    ],
    { cwd: opts.cwd ?? REPO_ROOT, env },
  );
}

/** The independent oracle. */
export function openssl(args: string[], cwd?: string): Promise<ProcessResult> {
  return run('/usr/bin/openssl', args, cwd === undefined ? {} : { cwd });
}
