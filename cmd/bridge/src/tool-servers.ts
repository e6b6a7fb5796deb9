import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ToolServers } from '@agent-bridge/bridge';

/** This daemon's own entry point, beside this module (src/ under tsx, dist/ under node). */
const MAIN = fileURLToPath(
  new URL(`./main${extname(fileURLToPath(import.meta.url))}`, import.meta.url),
);

/**
 * The node flags that load the daemon's code as this process loads it (tsx
 * in development), a module to `--import` made absolute: the agent starts
 * the tool server in its repository, where it would not resolve.
 */
function loaderFlags(execArgv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const flag = execArgv[i]!;
    if (flag.startsWith('--conditions=')) out.push(flag);
    else if (flag === '--conditions' && i + 1 < execArgv.length) out.push(flag, execArgv[++i]!);
    else if (flag === '--import' && i + 1 < execArgv.length) {
      out.push(flag, import.meta.resolve(execArgv[++i]!));
    }
  }
  return out;
}

/**
 * The agents' tool servers: `bridge mcp` on this daemon's tool socket,
 * each session's capability in a file of its own (0600, in the socket's
 * 0700 directory; removed when the session ends), so no command line
 * holds a secret.
 */
export function toolServers(socketPath: string): ToolServers {
  const dir = dirname(socketPath);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const fileOf = (sessionId: string) => join(dir, `${sessionId}.cap`);
  const flags = loaderFlags(process.execArgv);
  return {
    attach(sessionId, capability) {
      const file = fileOf(sessionId);
      writeFileSync(file, `${capability}\n`, { mode: 0o600 });
      return {
        name: 'bridge',
        command: process.execPath,
        args: [...flags, MAIN, 'mcp', '--socket', socketPath, '--capability-file', file],
      };
    },
    detach(sessionId) {
      rmSync(fileOf(sessionId), { force: true });
    },
  };
}

/**
 * Removes the `tools-<pid>` directories that daemons now gone left in the
 * state directory (a crash skips their clean-up): the capabilities in them
 * died with those daemons. A pid that exists (even reused) is left alone.
 */
export function sweepToolDirs(stateDir: string): string[] {
  const removed: string[] = [];
  for (const name of readdirSync(stateDir)) {
    const pid = Number(/^tools-(\d+)$/.exec(name)?.[1] ?? Number.NaN);
    if (!Number.isSafeInteger(pid) || pid === process.pid) continue;
    try {
      process.kill(pid, 0);
      continue;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ESRCH') continue;
    }
    rmSync(join(stateDir, name), { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}
