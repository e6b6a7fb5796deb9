import type { TaskOptions, TaskReport } from '@agent-bridge/bridgeclient';
import { HttpError } from './http-replies.js';

/**
 * Starts a task (one prompt in a fresh session, stopped when its turn
 * completes) and resolves with its session's id as soon as the session
 * exists, while the task runs on; its events are read like any session's.
 * Permission requests are left to people (the approvals page) and the
 * daemon's default. It runs in `running` until it ends; when `lifetime`
 * ends first (the console stops), the task ends ABORTED and its session is
 * stopped.
 */
export function startTask(
  runTask: (task: TaskOptions) => Promise<TaskReport>,
  task: { provider: string; repoPath: string; prompt: string; name: string },
  lifetime: AbortSignal,
  running: Set<Promise<unknown>>,
): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let known = false;
    const run = runTask({
      signal: lifetime,
      provider: task.provider,
      repoPath: task.repoPath,
      prompt: task.prompt,
      ...(task.name ? { name: task.name } : {}),
      onEvent: (e) => {
        if (!known) {
          known = true;
          resolve(e.sessionId);
        }
      },
    })
      .then((report) => {
        // A task that ended before any event (refused, skipped) says why.
        if (!known) reject(new HttpError(409, report.error || `the task ended ${report.status}`));
      }, reject)
      .finally(() => running.delete(run));
    running.add(run);
  });
}
