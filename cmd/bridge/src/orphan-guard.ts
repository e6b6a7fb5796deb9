import { join } from 'node:path';
import {
  ensurePrivateDirectory,
  type LiveProcessGroups,
  OrphanWatchdog,
  ProcessGroupRecord,
  readBootId,
  readStartTime,
  recordFile,
  type SupervisionLog,
  sweepOrphanedGroups,
} from '@agent-bridge/providers/host';
import type { Logger } from 'pino';

/** What keeps agents from outliving the daemon; closed after a clean stop. */
export interface OrphanGuard {
  close(): void;
}

/**
 * Where the process group record lives when `sessions.state_dir` is empty:
 * the user's runtime directory (a tmpfs emptied at logout and boot), else a
 * directory of this user under the temp directory.
 */
export function defaultStateDir(env: NodeJS.ProcessEnv, tempRoot: string): string {
  const runtime = env.XDG_RUNTIME_DIR;
  if (runtime) return join(runtime, 'agent-bridge');
  return join(tempRoot, `agent-bridge-${process.getuid?.() ?? 'user'}`);
}

/**
 * Start-up, before any agent runs: ends the process groups that daemons
 * gone from `stateDir` left behind, starts this daemon's record of its own
 * groups there, and its orphan watchdog. Throws when the directory cannot be
 * used.
 */
export function startOrphanGuard(opts: {
  stateDir: string;
  groups: LiveProcessGroups;
  logger: Logger;
}): OrphanGuard {
  const { stateDir, groups, logger } = opts;
  const log: SupervisionLog = {
    warn: (msg, fields) => logger.warn(fields ?? {}, msg),
    error: (msg, fields) => logger.error(fields ?? {}, msg),
  };
  ensurePrivateDirectory(stateDir);
  const self = {
    pid: process.pid,
    startTime: readStartTime(process.pid) ?? '0',
    bootId: readBootId(),
  };
  sweepOrphanedGroups({ dir: stateDir, self, log });
  const record = new ProcessGroupRecord(recordFile(stateDir, process.pid), self, groups, log);
  groups.observe(record);
  const watchdog = OrphanWatchdog.start({ groups, log });
  logger.info({ stateDir, watchdog: watchdog.pid }, 'orphan watchdog started');
  return {
    close() {
      watchdog.close();
      record.close();
    },
  };
}
