import type { Timers } from '../clock.js';
import type { ToolAttachment } from '../collaboration/collab-ports.js';
import type { AllowedPaths } from '../paths/allowed-paths.js';
import type { CoreSettings, Logger } from '../types.js';
import { launchAgent } from './launch-agent.js';
import type { ToResume } from './restore-session.js';

export interface ResumeDeps {
  allowed: AllowedPaths;
  timers: Timers;
  logger: Logger;
  settings: Pick<CoreSettings, 'startupTimeoutMs'>;
  tools?: ToolAttachment;
}

/**
 * Starts the agent of a session restored live on its own conversation
 * again, in the session's repository, checked against `allowed_paths` as
 * at any start. Anything that stops it (the repository gone or no longer
 * allowed, the agent refusing the conversation, a start-up timeout) ends
 * the session failed with `daemon_restarted`. Begun as the session's
 * start-up, so a stop meanwhile waits for it and ends it.
 */
export function resumeAgent({ session, point, interruptedTurn }: ToResume, deps: ResumeDeps): void {
  const cannot = (err: unknown) =>
    session.fail(
      `the daemon restarted and the agent's conversation could not be resumed: ${(err as Error).message}`,
      { reason: 'daemon_restarted' },
    );
  const resuming = (async () => {
    const workspace = await deps.allowed.open(session.repoPath);
    await launchAgent(session, {
      timers: deps.timers,
      logger: deps.logger,
      startupTimeoutMs: deps.settings.startupTimeoutMs(session.request.provider),
      workspace,
      resume: { point, interruptedTurn },
      ...(deps.tools ? { tools: deps.tools } : {}),
    });
  })().catch(cannot);
  session.startup.begin(resuming);
}
