import { randomUUID } from 'node:crypto';
import { scope } from '@agent-bridge/scope';
import {
  BridgeError,
  FailedPreconditionError,
  ResourceExhaustedError,
  UnavailableError,
} from '../errors.js';
import type { EventStreamOptions } from '../event-stream-options.js';
import type { CallOptions } from '../options.js';
import { awaitsAnswer, permissionRequest } from '../permissions.js';
import type { TaskOptions } from '../run-task.js';
import { TaskRecord, type TaskReport, type TaskStatus } from '../task-report.js';
import type {
  ProviderInfo,
  SentInput,
  SessionEvent,
  SessionStatus,
  StartedSession,
} from '../types.js';
import { reasonOf } from './abort-reason.js';
import { CallerError, callback } from './caller-error.js';
import { providerRefusal } from './provider-refusal.js';
import { answer, type PermissionClient } from './task-permissions.js';

/** The client calls a task makes on the daemon that runs it. */
interface TaskClient extends PermissionClient {
  listProviders(opts?: CallOptions): Promise<ProviderInfo[]>;
  startSession(
    req: {
      provider: string;
      repoPath: string;
      sessionId?: string;
      agentOpts?: Record<string, string>;
      name?: string;
      role?: string;
    },
    opts?: CallOptions,
  ): Promise<StartedSession>;
  sendInput(sessionId: string, text: string, opts?: CallOptions): Promise<SentInput>;
  events(sessionId: string, opts?: EventStreamOptions): AsyncIterable<SessionEvent>;
  stopSession(sessionId: string, opts?: CallOptions): Promise<SessionStatus>;
}

/** How long the final StopSession may take: a stop is best effort and must not hold the report back long. */
const STOP_MS = 10_000;

/**
 * A StartSession refusal that means "this daemon cannot run it now", so the
 * task is SKIPPED (and a fleet tries another daemon): FAILED_PRECONDITION
 * (the provider turned unavailable, the repository is not on this host, the
 * agent could not be spawned), RESOURCE_EXHAUSTED (a session limit) and
 * UNAVAILABLE (unreachable, or shutting down). Anything else is about the
 * request itself (a bad path or option, a refused token) and HALTS it.
 */
const refusedHere = (err: unknown): err is BridgeError =>
  err instanceof FailedPreconditionError ||
  err instanceof ResourceExhaustedError ||
  err instanceof UnavailableError;

/** Refusals after which no session exists; after any other failure the start may have gone through. */
const DEFINITE = new Set([
  'INVALID_ARGUMENT',
  'PERMISSION_DENIED',
  'FAILED_PRECONDITION',
  'ALREADY_EXISTS',
  'RESOURCE_EXHAUSTED',
  'UNAUTHENTICATED',
  'UNAVAILABLE',
]);

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/**
 * Runs one task on the daemon of `client`: pre-flight (ListProviders),
 * StartSession, SendInput(prompt), then the session's events from the
 * first until the turn that answers the prompt completes or the session
 * ends, answering permission requests as `task.permissions` says; then
 * StopSession, always, for the session it started. Resolves with a report
 * whatever the daemon or the agent do; rejects only on a caller's mistake
 * (invalid options, or an error thrown by onEvent or the permissions
 * function, after the session is stopped). `providers` is a ListProviders
 * answer the caller already has (a fleet's probe), used for the pre-flight
 * instead of asking again.
 */
export async function runTask(
  client: TaskClient,
  task: TaskOptions,
  providers?: ProviderInfo[],
): Promise<TaskReport> {
  const { timeoutMs } = task;
  if (timeoutMs !== undefined && !(Number.isFinite(timeoutMs) && timeoutMs > 0)) {
    throw new TypeError(`timeoutMs must be a positive number of milliseconds, not ${timeoutMs}`);
  }
  const began = Date.now();
  let inputSeq = Number.POSITIVE_INFINITY;
  const record = new TaskRecord(() => inputSeq);
  let sessionId = '';
  const report = (status: TaskStatus, error: string): TaskReport => ({
    status,
    summary: record.summary,
    sessionId,
    firstSeq: record.firstSeq,
    lastSeq: record.lastSeq,
    toolCalls: record.toolCalls,
    permissions: record.permissions,
    usage: record.usage,
    costUsd: record.costUsd,
    durationMs: Date.now() - began,
    error,
  });

  // The task's scope: the caller's abort or the task's deadline, whichever
  // comes first; it lets go of the caller's signal when the task is done.
  const lifetime = scope(
    task.signal ?? [],
    timeoutMs === undefined ? {} : { timeoutMs, timeoutReason: () => new Error('task timeout') },
  );
  const signal = lifetime.signal;
  /** The report of a task cut short by the caller's signal or by its deadline. */
  const cutShort = (where: string): TaskReport =>
    task.signal?.aborted
      ? report('ABORTED', `aborted ${where}${reasonOf(task.signal)}`)
      : report('HALTED', `timed out after ${timeoutMs} ms ${where}`);

  let toStop: string | undefined;
  try {
    if (task.signal?.aborted) return cutShort('before it started');

    // Pre-flight: a daemon that cannot run the task says so at once, and nothing starts.
    try {
      const listed = providers ?? (await client.listProviders({ signal }));
      const refusal = providerRefusal(listed, task.provider);
      if (refusal) return report('SKIPPED', refusal);
    } catch (err) {
      if (signal.aborted) return cutShort('during the pre-flight check');
      return report(err instanceof BridgeError ? 'SKIPPED' : 'HALTED', messageOf(err));
    }

    // The id is chosen here, so a start whose answer is lost can still be stopped.
    const id = randomUUID();
    let started: StartedSession;
    try {
      toStop = id;
      started = await client.startSession(
        {
          provider: task.provider,
          repoPath: task.repoPath,
          sessionId: id,
          ...(task.agentOpts ? { agentOpts: task.agentOpts } : {}),
          ...(task.name ? { name: task.name } : {}),
          ...(task.role ? { role: task.role } : {}),
        },
        { signal },
      );
    } catch (err) {
      if (err instanceof BridgeError && DEFINITE.has(err.code)) toStop = undefined;
      if (signal.aborted) return cutShort('while the session started');
      return report(refusedHere(err) ? 'SKIPPED' : 'HALTED', messageOf(err));
    }
    sessionId = started.sessionId;

    // A session that failed during start-up takes no input: its events say why.
    if (started.status !== 'FAILED') {
      try {
        inputSeq = (await client.sendInput(sessionId, task.prompt, { signal })).seq;
      } catch (err) {
        if (signal.aborted) return cutShort('while the prompt was sent');
        return report('HALTED', messageOf(err));
      }
    }

    try {
      for await (const e of client.events(sessionId, { afterSeq: 0, signal })) {
        record.add(e);
        await callback(() => task.onEvent?.(e));
        const request = permissionRequest(e);
        if (request && task.permissions !== undefined && awaitsAnswer(request)) {
          await answer(client, request, task.permissions, signal);
        }
        if (record.settled) break;
      }
    } catch (err) {
      if (err instanceof CallerError) throw err.error;
      if (signal.aborted) return cutShort('while the agent worked');
      return report('HALTED', messageOf(err));
    }
    const { status, error } = record.outcome();
    return report(status, error);
  } finally {
    lifetime.end();
    if (toStop !== undefined) {
      await client.stopSession(toStop, { timeoutMs: STOP_MS }).catch(() => undefined);
    }
  }
}
