import {
  type AgentEvent,
  type AgentHandle,
  type ResumePoint,
  SpawnError,
  StartupError,
} from '@agent-bridge/providers';
import { type Scope, scope } from '@agent-bridge/scope';
import type { Timers } from '../clock.js';
import type { ToolAttachment } from '../collaboration/collab-ports.js';
import type { PinnedDirectory } from '../paths/pinned-directory.js';
import type { Logger } from '../types.js';
import type { Session } from './session.js';
import { startupEnd } from './session-ending.js';
import { spawnFailure } from './spawn-failure.js';

export interface LaunchDeps {
  timers: Timers;
  logger: Logger;
  startupTimeoutMs: number;
  /**
   * The approved repository, held open: the agent is spawned in it. Once
   * called, launchAgent owns it and releases it when the provider has
   * spawned or given up.
   */
  workspace: PinnedDirectory;
  /** Take up the agent's conversation after a daemon restart, instead of a new one. */
  resume?: { point: ResumePoint; interruptedTurn: string | undefined } | undefined;
  /** Where the agent's collaboration tools come from. */
  tools?: ToolAttachment;
}

/**
 * Spawns a session's agent through its provider and waits for start-up,
 * then records the agent's exit when it comes. A start-up that fails or
 * outlasts the timeout fails the session, which stays readable with its
 * terminal event; an agent that cannot be spawned at all rejects (see
 * spawnFailure), and the caller forgets the session.
 */
export async function launchAgent(session: Session, deps: LaunchDeps): Promise<void> {
  const { timers, logger, startupTimeoutMs, workspace, resume } = deps;
  // Abandoned when start-up times out or the session is stopped meanwhile:
  // the provider watches it while it starts, so it ends for nothing else.
  const abandon = scope(session.startup.abandoned);
  // Ended once start-up has settled, either way.
  const settled = scope();
  // The startup timeout's clock: at most one timer runs, ended by `stop`,
  // by a restart (a fresh one replaces it) or once start-up has settled.
  let clock: Scope | undefined;
  const startupClock = {
    stop: () => {
      clock?.end();
      clock = undefined;
    },
    restart: () => {
      startupClock.stop();
      if (settled.signal.aborted) return;
      clock = scope(settled.signal);
      timers.after(
        startupTimeoutMs,
        () => abandon.end(new StartupTimeout(startupTimeoutMs)),
        clock.signal,
      );
    },
  };
  startupClock.restart();
  const signal = abandon.signal;
  let starting: Promise<AgentHandle> | undefined;
  const tools = deps.tools?.attachTools(
    { id: session.id, projectId: session.projectId, provider: session.request.provider },
    session.lifetime,
  );
  try {
    starting = session.provider.start({
      projectId: session.projectId,
      sessionId: session.id,
      repoPath: session.repoPath,
      cwd: workspace.cwd,
      options: session.request.agentOpts,
      ...(resume ? { resume: resume.point } : {}),
      ...(tools ? { tools } : {}),
      spawned: (pid) => {
        session.markSpawned(pid, resume !== undefined);
        void workspace.close();
      },
      emit: (ev) => {
        if (!session.ended) session.append(ev);
      },
      askPermission: (ask, within) => session.permissions.ask(ask, within),
      outputGate: session.log.outputGate,
      signal,
      lifetime: session.lifetime,
      startupClock,
    });
    // Not released before the provider is done with it, even when this
    // start is abandoned first: a spawn still to come would otherwise find
    // the fd number free, or reused for another directory.
    void starting.then(workspace.close, workspace.close);
    const agent = await unlessAborted(starting, signal);
    await workspace.close();
    session.markRunning(agent);
    if (resume && session.status === 'RUNNING') session.record(resumedEvent(session, resume));
    logger.info(
      { sessionId: session.id, projectId: session.projectId, pid: agent.pid },
      resume ? 'session resumed after a daemon restart' : 'session started',
    );
    agent.exited.then(
      (exit) => {
        session.finish(exit);
        logger.info({ sessionId: session.id, ...exit, status: session.status }, 'session ended');
      },
      (err) => session.fail(`agent supervision failed: ${(err as Error).message}`, {}),
    );
  } catch (err) {
    // A start that finishes after it was abandoned must not leave a process behind.
    const late = starting
      ?.then((h) => h.stop({ force: true, gracePeriodMs: 0 }))
      .catch(() => undefined);
    if (session.startup.abandoned.aborted) {
      // Stopped while starting: once no agent is left, the session ends as stopped.
      await late;
      session.finish({ exitCode: null, signal: null });
      logger.info({ sessionId: session.id }, 'session stopped during start-up');
      return;
    }
    if (err instanceof StartupTimeout || err instanceof StartupError) {
      const exited = err instanceof StartupError && err.exit !== undefined;
      const end = startupEnd(
        resume
          ? `the daemon restarted and the agent's conversation could not be resumed: ${err.message}`
          : err.message,
        resume
          ? 'daemon_restarted'
          : err instanceof StartupTimeout
            ? 'startup_timeout'
            : 'startup_failed',
        exited ? session.stderrTail() : undefined,
      );
      session.fail(end.error, end.data);
      logger.warn({ sessionId: session.id }, err.message);
      return;
    }
    if (err instanceof SpawnError) throw spawnFailure(err);
    throw err;
  } finally {
    settled.end();
    if (starting === undefined) await workspace.close();
  }
}

/** SESSION_RESUMED: the agent is back on its conversation, seqs going on. */
function resumedEvent(
  session: Session,
  { point, interruptedTurn }: NonNullable<LaunchDeps['resume']>,
): AgentEvent {
  return {
    type: 'SESSION_RESUMED',
    stream: 'system',
    text: `${session.request.provider} resumed conversation ${point.conversationId} after a daemon restart (pid ${session.kept.pid})${interruptedTurn ? `; turn ${interruptedTurn} was interrupted` : ''}`,
    data: {
      reason: 'daemon_restarted',
      pid: session.kept.pid,
      conversation_id: point.conversationId,
      ...(interruptedTurn ? { interrupted_turn_id: interruptedTurn } : {}),
    },
  };
}

/** Settles like `p`, or rejects with `signal`'s reason should it abort first. */
function unlessAborted<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    p.then(resolve, reject);
  });
}

class StartupTimeout extends Error {
  constructor(ms: number) {
    super(`agent did not finish starting within ${ms}ms (startup_timeout)`);
  }
}
