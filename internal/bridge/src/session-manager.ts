import { InputClosedError, type Provider, SpawnError, StartupError } from '@agent-bridge/providers';
import { AllowedPaths } from './allowed-paths.js';
import {
  BridgeError,
  denied,
  exhausted,
  invalid,
  notFound,
  outOfRange,
  precondition,
  unavailable,
} from './errors.js';
import type { BridgeEvent } from './event.js';
import { readEvents } from './event-reader.js';
import { decodePageToken, encodePageToken } from './private/page-token.js';
import { createRedactor, type Redactor } from './redactor.js';
import { Session, type StopReason } from './session.js';
import type {
  Caller,
  Clock,
  CoreSettings,
  Logger,
  SessionSnapshot,
  SessionStatus,
  StartRequest,
} from './types.js';
import { systemClock } from './types.js';
import { checkSessionId, checkSubscriberId, preview } from './validate.js';

export interface SessionManagerDeps {
  settings: CoreSettings;
  providers: ReadonlyMap<string, Provider>;
  logger: Logger;
  clock?: Clock;
  redactPatterns?: readonly RegExp[];
}

export interface StreamRequest {
  sessionId: string;
  afterSeq: number | undefined;
  subscriberId: string;
}

/** An open event stream: an async iterable of batches that must be closed. */
export interface EventStream extends AsyncIterable<BridgeEvent[]> {
  close(): void;
}

const MAX_IDEMPOTENCY_KEY_BYTES = 128;
const MAX_PAGE_SIZE = 1000;
const DEFAULT_PAGE_SIZE = 100;

/**
 * The core: starts, tracks, feeds, reads and stops sessions under the
 * configured policy. Knows nothing about gRPC or TLS; failures are
 * BridgeErrors with a kind.
 */
export class SessionManager {
  private readonly sessions = new Map<string, Session>();
  private readonly freed = new WeakSet<Session>();
  private readonly allowed: AllowedPaths;
  private readonly redact: Redactor;
  private readonly clock: Clock;
  private readonly sweeper: NodeJS.Timeout;
  private closing = false;

  constructor(private readonly deps: SessionManagerDeps) {
    this.allowed = new AllowedPaths(deps.settings.allowedPaths);
    this.redact = createRedactor(deps.redactPatterns ?? []);
    this.clock = deps.clock ?? systemClock;
    const s = deps.settings;
    const every = Math.min(
      1000,
      Math.max(25, Math.min(s.idleTimeoutMs, s.retentionMs, s.subscriberTtlMs) / 4),
    );
    this.sweeper = setInterval(() => this.sweep(), every);
    this.sweeper.unref();
  }

  get providers(): ReadonlyMap<string, Provider> {
    return this.deps.providers;
  }

  get shuttingDown(): boolean {
    return this.closing;
  }

  counts(): { active: number; retained: number } {
    let active = 0;
    let retained = 0;
    for (const s of this.sessions.values()) {
      if (s.live) active++;
      else retained++;
    }
    return { active, retained };
  }

  async start(caller: Caller, req: StartRequest): Promise<SessionSnapshot> {
    if (this.closing) throw unavailable('the daemon is shutting down');
    checkSessionId(req.sessionId);
    if (req.projectId === '') throw invalid('project_id is required');
    if (req.projectId !== caller.projectId) {
      throw denied(`the token is not valid for project ${preview(req.projectId)}`);
    }
    const existing = this.sessions.get(req.sessionId);
    if (existing) return this.retry(existing, req);
    const provider = this.deps.providers.get(req.provider);
    if (!provider) {
      throw invalid(
        `unknown provider ${preview(req.provider)} (configured: ${[...this.deps.providers.keys()].join(', ')})`,
      );
    }
    const optError = provider.validateOptions(req.agentOpts);
    if (optError) throw invalid(optError);

    const repoPath = await this.allowed.resolve(req.repoPath);
    const health = await provider.health();
    if (!health.available) {
      throw precondition(`provider "${provider.id}" is unavailable: ${health.error}`);
    }

    // Everything from here to the map insert is synchronous, so concurrent
    // starts cannot overshoot the limits or claim the same id twice.
    if (this.closing) throw unavailable('the daemon is shutting down');
    const raced = this.sessions.get(req.sessionId);
    if (raced) return this.retry(raced, req);
    this.checkLimits(req.projectId);
    const session = new Session(
      { ...req, agentOpts: { ...req.agentOpts } },
      repoPath,
      provider,
      this.deps.settings,
      this.redact,
      () => this.clock.now(),
    );
    this.sessions.set(req.sessionId, session);
    session.started = this.launch(session);
    try {
      await session.started;
    } catch (err) {
      this.sessions.delete(req.sessionId);
      throw err;
    }
    return session.snapshot();
  }

  private async retry(existing: Session, req: StartRequest): Promise<SessionSnapshot> {
    if (!existing.sameRequest(req)) {
      throw new BridgeError(
        'already_exists',
        `session ${req.sessionId} already exists with different parameters`,
      );
    }
    await existing.started?.catch(() => undefined);
    if (this.sessions.get(req.sessionId) !== existing) {
      throw precondition(`session ${req.sessionId} could not be started`);
    }
    return existing.snapshot();
  }

  private checkLimits(projectId: string): void {
    const { maxPerProject, maxGlobal } = this.deps.settings;
    let global = 0;
    let project = 0;
    for (const s of this.sessions.values()) {
      if (!s.live) continue;
      global++;
      if (s.projectId === projectId) project++;
    }
    if (project >= maxPerProject) {
      throw exhausted(
        `project ${preview(projectId)} already has ${project} live sessions (limit ${maxPerProject})`,
      );
    }
    if (global >= maxGlobal)
      throw exhausted(`the daemon already runs ${global} sessions (limit ${maxGlobal})`);
  }

  /** Spawns the agent. Rejects (and leaves no session) when it cannot be spawned. */
  private async launch(session: Session): Promise<void> {
    const log = this.deps.logger;
    const timeoutMs = this.deps.settings.startupTimeoutMs(session.request.provider);
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), timeoutMs);
    try {
      const starting = session.provider.start({
        projectId: session.projectId,
        sessionId: session.id,
        repoPath: session.repoPath,
        options: session.request.agentOpts,
        spawned: (pid) => {
          session.pid = pid;
          session.append({
            type: 'SESSION_STARTED',
            stream: 'system',
            text: `${session.request.provider} started (pid ${pid}) in ${session.repoPath}`,
            data: { pid, repo_path: session.repoPath },
          });
        },
        emit: (ev) => {
          if (!session.ended) session.append(ev);
        },
        signal: abort.signal,
      });
      const handle = await Promise.race([
        starting,
        new Promise<never>((_, reject) =>
          abort.signal.addEventListener('abort', () => reject(new StartupTimeout(timeoutMs)), {
            once: true,
          }),
        ),
      ]).catch(async (err) => {
        // A start that finishes after the timeout must not leave a process behind.
        if (err instanceof StartupTimeout) {
          starting.then((h) => h.stop({ force: true, gracePeriodMs: 0 })).catch(() => undefined);
        }
        throw err;
      });
      session.handle = handle;
      if (session.status === 'STARTING') session.status = 'RUNNING';
      log.info(
        { sessionId: session.id, projectId: session.projectId, pid: handle.pid },
        'session started',
      );
      handle.exited.then(
        (exit) => {
          session.finish(exit, handle.stderrTail());
          log.info({ sessionId: session.id, ...exit, status: session.status }, 'session ended');
        },
        (err) => session.fail(`agent supervision failed: ${(err as Error).message}`, {}),
      );
    } catch (err) {
      if (err instanceof StartupTimeout || err instanceof StartupError) {
        session.fail(err.message, {
          reason: err instanceof StartupTimeout ? 'startup_timeout' : 'startup_failed',
        });
        log.warn({ sessionId: session.id }, err.message);
        return;
      }
      if (err instanceof SpawnError) throw precondition(err.message);
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  async stop(caller: Caller, sessionId: string, force: boolean): Promise<SessionStatus> {
    const s = this.find(caller, sessionId);
    await this.stopSession(s, 'stop_requested', force);
    return s.status;
  }

  private stopSession(s: Session, reason: StopReason, force: boolean): Promise<void> {
    if (s.ended) return Promise.resolve();
    if (s.stopping && !force) return s.stopping;
    s.stopReason ??= reason;
    s.status = 'STOPPING';
    const grace = this.deps.settings.stopGracePeriodMs;
    s.stopping = (async () => {
      await s.started?.catch(() => undefined);
      const h = s.handle;
      if (!h) return;
      await h.stop({ force, gracePeriodMs: grace });
      // The exit handler records the terminal event; wait for it.
      await h.exited.catch(() => undefined);
      await Promise.resolve();
    })();
    return s.stopping;
  }

  get(caller: Caller, sessionId: string): SessionSnapshot {
    return this.find(caller, sessionId).snapshot();
  }

  list(
    caller: Caller,
    filter: { projectId: string; statuses: SessionStatus[]; pageSize: number; pageToken: string },
  ): { sessions: SessionSnapshot[]; nextPageToken: string } {
    if (filter.projectId !== '' && filter.projectId !== caller.projectId) {
      throw denied(`the token is not valid for project ${preview(filter.projectId)}`);
    }
    if (filter.pageSize > MAX_PAGE_SIZE)
      throw invalid(`page_size must be at most ${MAX_PAGE_SIZE}`);
    const size = filter.pageSize || DEFAULT_PAGE_SIZE;
    const filterKey = [...new Set(filter.statuses)].sort().join(',');
    const after = filter.pageToken ? decodePageToken(filter.pageToken, filterKey) : undefined;
    const statuses = new Set(filter.statuses);
    const matching = [...this.sessions.values()]
      .filter(
        (s) => s.projectId === caller.projectId && (statuses.size === 0 || statuses.has(s.status)),
      )
      .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? -1 : 1))
      .filter(
        (s) =>
          !after ||
          s.createdAt < after.createdAt ||
          (s.createdAt === after.createdAt && s.id > after.id),
      );
    const page = matching.slice(0, size);
    const last = page[page.length - 1];
    return {
      sessions: page.map((s) => s.snapshot()),
      nextPageToken:
        matching.length > size && last
          ? encodePageToken({ createdAt: last.createdAt, id: last.id }, filterKey)
          : '',
    };
  }

  sendInput(caller: Caller, sessionId: string, text: string, idempotencyKey: string): number {
    const s = this.find(caller, sessionId);
    if (Buffer.byteLength(idempotencyKey, 'utf8') > MAX_IDEMPOTENCY_KEY_BYTES) {
      throw invalid(`idempotency_key must be at most ${MAX_IDEMPOTENCY_KEY_BYTES} bytes`);
    }
    const seen = s.idempotentSeq(idempotencyKey);
    if (seen !== undefined) return seen;
    if (text.length === 0) throw invalid('text must not be empty');
    const max = this.deps.settings.maxInputBytes;
    const bytes = Buffer.byteLength(text, 'utf8');
    if (bytes > max) throw invalid(`text is ${bytes} bytes of UTF-8; the limit is ${max}`);
    if (s.status !== 'RUNNING' || !s.handle) {
      throw precondition(`session ${sessionId} is ${s.status.toLowerCase()}, not running`);
    }
    // The handle writes first, so a closed input leaves no trace, and calls
    // back before the turn is announced, so the input's seq comes first.
    let seq = 0;
    try {
      s.handle.send(text, () => {
        seq = s.append({ type: 'INPUT_RECEIVED', stream: 'system', text }).seq;
      });
    } catch (err) {
      if (err instanceof InputClosedError)
        throw precondition(`session ${sessionId}: ${err.message}`);
      throw err;
    }
    s.rememberKey(idempotencyKey, seq);
    return seq;
  }

  async interrupt(
    caller: Caller,
    sessionId: string,
  ): Promise<{ interrupted: boolean; turnId: string }> {
    const s = this.find(caller, sessionId);
    if (s.status !== 'RUNNING' || !s.handle) {
      throw precondition(`session ${sessionId} is ${s.status.toLowerCase()}, not running`);
    }
    if (!s.provider.capabilities.interrupt || !s.handle.interrupt) {
      throw precondition(`provider "${s.provider.id}" cannot interrupt a turn`);
    }
    return s.handle.interrupt();
  }

  /**
   * Opens a reader on a session. Validation and limits are checked here, so
   * the caller can fail the request before it starts streaming.
   */
  openStream(
    caller: Caller,
    req: StreamRequest,
    signal: AbortSignal,
    batch: { maxEvents: number; maxBytes: number },
  ): EventStream {
    checkSubscriberId(req.subscriberId, false);
    const s = this.find(caller, req.sessionId);
    const now = this.clock.now();
    if (req.afterSeq !== undefined && req.afterSeq > s.ring.lastSeq) {
      throw outOfRange(`after_seq ${req.afterSeq} is beyond the last seq ${s.ring.lastSeq}`);
    }
    if (s.activeStreams >= this.deps.settings.maxSubscribers) {
      throw exhausted(`session ${s.id} already has ${s.activeStreams} readers`);
    }
    const acked = req.subscriberId ? s.cursors.get(req.subscriberId, now) : undefined;
    const afterSeq =
      req.afterSeq ?? acked ?? (s.ring.oldestSeq > 0 ? s.ring.oldestSeq - 1 : s.ring.lastSeq);
    s.activeStreams++;
    s.lastActivity = now;
    let closed = false;
    const close = () => {
      if (closed) return;
      closed = true;
      s.activeStreams--;
      s.lastActivity = this.clock.now();
      if (req.subscriberId) s.cursors.touch(req.subscriberId, s.lastActivity);
    };
    const iterator = readEvents(
      s,
      {
        afterSeq,
        maxBatchEvents: batch.maxEvents,
        maxBatchBytes: batch.maxBytes,
        isFreed: () => this.freed.has(s),
        onProgress: () => {
          s.lastActivity = this.clock.now();
          if (req.subscriberId) s.cursors.touch(req.subscriberId, s.lastActivity);
        },
      },
      signal,
    );
    return {
      close,
      [Symbol.asyncIterator]: () => ({
        next: () => iterator.next(),
        return: async (v?: unknown) => {
          close();
          return iterator.return(v as undefined);
        },
      }),
    };
  }

  ack(caller: Caller, sessionId: string, subscriberId: string, ackSeq: number): number {
    checkSubscriberId(subscriberId, true);
    const s = this.find(caller, sessionId);
    if (ackSeq > s.ring.lastSeq) {
      throw outOfRange(`ack_seq ${ackSeq} is beyond the last seq ${s.ring.lastSeq}`);
    }
    return s.cursors.ack(subscriberId, ackSeq, this.clock.now());
  }

  /** Refuses new work, stops every session (graceful, bounded by the grace period) and waits. */
  async shutdown(): Promise<void> {
    this.closing = true;
    clearInterval(this.sweeper);
    await Promise.all(
      [...this.sessions.values()].map((s) =>
        this.stopSession(s, 'shutdown', false).catch(() => undefined),
      ),
    );
  }

  /** Looks a session up for `caller`; another project's session is "not found". */
  private find(caller: Caller, sessionId: string): Session {
    checkSessionId(sessionId);
    const s = this.sessions.get(sessionId);
    if (!s || s.projectId !== caller.projectId) throw notFound(sessionId);
    return s;
  }

  /** Idle timeouts, retention and cursor expiry. */
  private sweep(): void {
    const now = this.clock.now();
    const { idleTimeoutMs, retentionMs } = this.deps.settings;
    for (const s of this.sessions.values()) {
      if (
        s.status === 'RUNNING' &&
        s.activeStreams === 0 &&
        idleTimeoutMs > 0 &&
        now - s.lastActivity >= idleTimeoutMs
      ) {
        this.deps.logger.info({ sessionId: s.id }, 'session idle: stopping');
        this.stopSession(s, 'idle_timeout', false).catch(() => undefined);
      } else if (s.ended && s.stoppedAt !== undefined && now - s.stoppedAt >= retentionMs) {
        this.sessions.delete(s.id);
        this.freed.add(s);
        s.ring.wakeAll();
      }
      s.cursors.expire(now);
    }
  }
}

class StartupTimeout extends Error {
  constructor(ms: number) {
    super(`agent did not finish starting within ${ms}ms (startup_timeout)`);
  }
}
