import { randomUUID } from 'node:crypto';
import { lstat, mkdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { StartupError } from '../contract/errors.js';
import type { ResumePoint } from '../contract/provider.js';

/**
 * The home of a session's agent with `isolate_home`: the one the agent had
 * before, when it resumes its conversation (it must still be a directory
 * of ours, not a link), else a new empty one.
 */
export async function sessionHome(
  root: string,
  sessionId: string,
  resume: ResumePoint | undefined,
): Promise<string> {
  if (!resume?.home) return makeSessionHome(root, sessionId);
  const st = await lstat(resume.home).catch(() => undefined);
  if (!st?.isDirectory() || st.uid !== process.getuid?.() || (st.mode & 0o077) !== 0) {
    throw new StartupError(
      `cannot resume: the session's home ${resume.home} (isolate_home) is gone or no longer the daemon's own`,
    );
  }
  return resume.home;
}

const PREFIX = 'agent-bridge-home-';

/** A session's own empty home under `root` (mode 0700, as `root` when it is made), for `isolate_home`. */
async function makeSessionHome(root: string, sessionId: string): Promise<string> {
  await mkdir(root, { recursive: true, mode: 0o700 });
  const dir = join(root, `${PREFIX}${sessionId}-${randomUUID().slice(0, 8)}`);
  await mkdir(dir, { mode: 0o700 });
  await mkdir(join(dir, '.codex'), { mode: 0o700 });
  return dir;
}

/** Whether `dir` is a session home made under `root`: the only kind a discard removes. */
export function isSessionHome(root: string, dir: string): boolean {
  return dirname(dir) === root && basename(dir).startsWith(PREFIX);
}

/** Everything that points a CLI at its state: all of it inside the session's own home. */
export function homeEnv(home: string): Record<string, string> {
  return {
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local/share'),
    XDG_STATE_HOME: join(home, '.local/state'),
    XDG_CACHE_HOME: join(home, '.cache'),
    CODEX_HOME: join(home, '.codex'),
  };
}

/** The variables that decide where a CLI keeps its state, as a key for sessions that share it. */
export function stateKey(file: string, env: Readonly<Record<string, string>>): string {
  return [file, ...STATE_VARIABLES.map((name) => env[name] ?? '')].join('\0');
}

const STATE_VARIABLES = [
  'HOME',
  'CODEX_HOME',
  'CLAUDE_CONFIG_DIR',
  'XDG_CONFIG_HOME',
  'XDG_DATA_HOME',
  'XDG_STATE_HOME',
] as const;
