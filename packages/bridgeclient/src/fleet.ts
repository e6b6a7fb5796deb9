import { BridgeClient, type ListSessionsOptions, type StartSessionRequest } from './client.js';
import type { CursorStore } from './cursor-store.js';
import {
  BridgeError,
  DeadlineExceededError,
  FailedPreconditionError,
  NotFoundError,
  ResourceExhaustedError,
  UnavailableError,
} from './errors.js';
import type { EventStream, EventStreamOptions } from './event-stream.js';
import type { BridgeClientOptions, CallOptions } from './options.js';
import type { PermissionDecision } from './permissions.js';
import { providerRefusal, reasonOf, runTask, type TaskOptions } from './run-task.js';
import { reportWithoutSession, type TaskReport } from './task-report.js';
import type {
  Health,
  InterruptResult,
  ProviderInfo,
  SentInput,
  SessionInfo,
  SessionStatus,
  StartedSession,
} from './types.js';

/** One daemon of the fleet: a name of your choosing and how to reach it. */
export interface FleetDaemon extends Omit<BridgeClientOptions, 'cursorStore'> {
  name: string;
}

export interface BridgeFleetOptions {
  daemons: FleetDaemon[];
  /** How long a daemon's Health and ListProviders answers serve placement. Default 2 s. */
  probeTtlMs?: number;
  /** A daemon that has not answered its probe by then is skipped for this placement. Default 3 s. */
  probeTimeoutMs?: number;
  /** Shared by the daemons' event streams. Default: in memory. */
  cursorStore?: CursorStore;
}

/** What placement knows of a daemon. */
export type DaemonStatus =
  | { daemon: string; reachable: true; health: Health; providers: ProviderInfo[] }
  | { daemon: string; reachable: false; error: BridgeError };

export type FleetSession = SessionInfo & { daemon: string };

/** Sessions whose daemon the fleet remembers, at most. */
const MAX_REMEMBERED = 100_000;

/**
 * Several daemons used as one: a new session goes to a daemon that offers
 * its provider and has the most room for this client's project; later
 * calls and event streams for it go to that daemon. A daemon that does not
 * answer is skipped for placement and reported, never waited on.
 */
export class BridgeFleet {
  /** The client of each daemon, by name. */
  readonly clients: ReadonlyMap<string, BridgeClient>;
  private readonly owners = new Map<string, string>();
  private readonly probes = new Map<string, { at: number; status: Promise<DaemonStatus> }>();
  private readonly probeTtlMs: number;
  private readonly probeTimeoutMs: number;

  constructor(opts: BridgeFleetOptions) {
    if (!opts.daemons?.length) throw new TypeError('a fleet needs at least one daemon');
    const clients = new Map<string, BridgeClient>();
    for (const d of opts.daemons) {
      if (!d.name || clients.has(d.name)) {
        throw new TypeError(`daemon names must be unique and non-empty: ${JSON.stringify(d.name)}`);
      }
      const { name, ...options } = d;
      clients.set(
        name,
        new BridgeClient({
          ...options,
          ...(opts.cursorStore ? { cursorStore: opts.cursorStore } : {}),
        }),
      );
    }
    this.clients = clients;
    this.probeTtlMs = opts.probeTtlMs ?? 2000;
    this.probeTimeoutMs = opts.probeTimeoutMs ?? 3000;
  }

  /** Each daemon as placement sees it now (probes at most `probeTtlMs` old). */
  status(): Promise<DaemonStatus[]> {
    return Promise.all([...this.clients.keys()].map((name) => this.probe(name)));
  }

  /**
   * Starts a session on the daemon with the most room for it among those
   * that offer `provider` (or on `daemon` when given). A daemon that refuses
   * for lack of room or an unavailable provider is followed by the next.
   */
  async startSession(
    req: StartSessionRequest & { daemon?: string },
    opts: CallOptions = {},
  ): Promise<StartedSession & { daemon: string }> {
    const candidates = await this.candidates(req.provider, req.daemon);
    let refused: BridgeError | undefined;
    for (const name of candidates) {
      try {
        const started = await this.client(name).startSession(req, opts);
        this.remember(started.sessionId, name);
        this.probes.delete(name); // its room just shrank
        return { ...started, daemon: name };
      } catch (err) {
        if (!(err instanceof ResourceExhaustedError || err instanceof FailedPreconditionError)) {
          throw err;
        }
        refused = err;
        this.probes.delete(name);
      }
    }
    throw refused;
  }

  /**
   * Runs one task (see BridgeClient.runTask) on a daemon that can: among
   * those that answer, serve, have room and offer the provider available
   * and not unauthenticated, the one with the most room first. A daemon
   * whose start refuses it (SKIPPED: a limit, the provider gone) is followed
   * by the next. SKIPPED only when no daemon could run it, with each one's
   * reason; `timeoutMs` counts from this call for all attempts together.
   */
  async runTask(task: TaskOptions): Promise<TaskReport> {
    const began = Date.now();
    const elapsed = () => Date.now() - began;
    const reasons: string[] = [];
    const usable: { daemon: string; providers: ProviderInfo[]; room: number }[] = [];
    for (const s of await this.status()) {
      const why = unfitFor(s, task.provider);
      if (why !== undefined) reasons.push(`${s.daemon}: ${why}`);
      else if (s.reachable) {
        usable.push({ daemon: s.daemon, providers: s.providers, room: s.health.freeCapacity });
      }
    }
    usable.sort((a, b) => b.room - a.room);
    for (const { daemon, providers } of usable) {
      if (task.signal?.aborted) {
        const error = `aborted before it started${reasonOf(task.signal)}`;
        return reportWithoutSession('ABORTED', error, elapsed());
      }
      const left = task.timeoutMs === undefined ? undefined : task.timeoutMs - elapsed();
      if (left !== undefined && left <= 0) {
        const error = `timed out after ${task.timeoutMs} ms before a daemon could run it (${reasons.join('; ')})`;
        return reportWithoutSession('HALTED', error, elapsed());
      }
      const report = await runTask(
        this.client(daemon),
        left === undefined ? task : { ...task, timeoutMs: left },
        providers,
      );
      this.probes.delete(daemon); // its room changed meanwhile
      if (report.sessionId) this.remember(report.sessionId, daemon);
      if (report.status !== 'SKIPPED') return { ...report, daemon, durationMs: elapsed() };
      reasons.push(`${daemon}: ${report.error}`);
    }
    const error = `no daemon of the fleet can run it: ${reasons.join('; ')}`;
    return reportWithoutSession('SKIPPED', error, elapsed());
  }

  async getSession(sessionId: string, opts: CallOptions = {}): Promise<FleetSession> {
    const daemon = await this.locate(sessionId, opts);
    return { ...(await this.client(daemon).getSession(sessionId, opts)), daemon };
  }

  async stopSession(
    sessionId: string,
    opts: CallOptions & { force?: boolean } = {},
  ): Promise<SessionStatus> {
    return this.client(await this.locate(sessionId, opts)).stopSession(sessionId, opts);
  }

  async sendInput(
    sessionId: string,
    text: string,
    opts: CallOptions & { idempotencyKey?: string } = {},
  ): Promise<SentInput> {
    return this.client(await this.locate(sessionId, opts)).sendInput(sessionId, text, opts);
  }

  async interruptTurn(sessionId: string, opts: CallOptions = {}): Promise<InterruptResult> {
    return this.client(await this.locate(sessionId, opts)).interruptTurn(sessionId, opts);
  }

  /** Answers a permission request on the daemon of the session (see BridgeClient.respondPermission). */
  async respondPermission(
    sessionId: string,
    requestId: string,
    decision: PermissionDecision,
    opts: CallOptions & { reason?: string } = {},
  ): Promise<number> {
    const client = this.client(await this.locate(sessionId, opts));
    return client.respondPermission(sessionId, requestId, decision, opts);
  }

  /** The session's events, from the daemon that runs it (see BridgeClient.events). */
  async events(sessionId: string, opts: EventStreamOptions = {}): Promise<EventStream> {
    const daemon = await this.locate(sessionId, opts.signal ? { signal: opts.signal } : {});
    return this.client(daemon).events(sessionId, opts);
  }

  /**
   * This project's sessions on every daemon, newest first. Daemons that do
   * not answer (each page within `timeoutMs`, default the probe timeout)
   * are listed in `unreachable` rather than failing or holding up the call.
   */
  async listSessions(
    opts: Omit<ListSessionsOptions, 'pageToken'> = {},
  ): Promise<{ sessions: FleetSession[]; unreachable: { daemon: string; error: BridgeError }[] }> {
    const sessions: FleetSession[] = [];
    const unreachable: { daemon: string; error: BridgeError }[] = [];
    await Promise.all(
      [...this.clients].map(async ([daemon, client]) => {
        try {
          for await (const s of client.sessions({
            ...opts,
            timeoutMs: opts.timeoutMs ?? this.probeTimeoutMs,
          })) {
            sessions.push({ ...s, daemon });
            this.remember(s.sessionId, daemon);
          }
        } catch (err) {
          if (!(err instanceof BridgeError)) throw err;
          unreachable.push({ daemon, error: err });
        }
      }),
    );
    sessions.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
    return { sessions, unreachable };
  }

  close(): void {
    for (const c of this.clients.values()) c.close();
  }

  private client(name: string): BridgeClient {
    const c = this.clients.get(name);
    if (!c) throw new TypeError(`no daemon named ${JSON.stringify(name)} in the fleet`);
    return c;
  }

  /**
   * Daemons that can take a session of `provider`, the one with the most
   * room first. None: why, as the error placement fails with.
   */
  private async candidates(provider: string, only: string | undefined): Promise<string[]> {
    if (only !== undefined) this.client(only);
    const names = only === undefined ? [...this.clients.keys()] : [only];
    const statuses = await Promise.all(names.map((n) => this.probe(n)));
    const serving = statuses.flatMap((s) =>
      s.reachable && s.health.status === 'serving' ? [s] : [],
    );
    const offering = serving.filter((s) =>
      s.providers.some((p) => p.id === provider && p.available),
    );
    const usable = offering.filter((s) => s.health.freeCapacity > 0);
    usable.sort((a, b) => b.health.freeCapacity - a.health.freeCapacity);
    if (usable.length > 0) return usable.map((s) => s.daemon);
    const where = only === undefined ? 'no daemon of the fleet' : `daemon ${JSON.stringify(only)}`;
    if (serving.length === 0) {
      throw new UnavailableError('UNAVAILABLE', `${where} is reachable and serving`);
    }
    if (offering.length === 0) {
      throw new FailedPreconditionError(
        'FAILED_PRECONDITION',
        `${where} that answers offers provider ${JSON.stringify(provider)} available`,
      );
    }
    throw new ResourceExhaustedError(
      'RESOURCE_EXHAUSTED',
      `${where} that offers provider ${JSON.stringify(provider)} has room for another session of this project`,
    );
  }

  private probe(name: string): Promise<DaemonStatus> {
    const cached = this.probes.get(name);
    if (cached && Date.now() - cached.at < this.probeTtlMs) return cached.status;
    const client = this.client(name);
    const opts = { timeoutMs: this.probeTimeoutMs };
    const status = Promise.all([client.health(opts), client.listProviders(opts)]).then(
      ([health, providers]): DaemonStatus => ({ daemon: name, reachable: true, health, providers }),
      (err: unknown): DaemonStatus => {
        if (!(err instanceof BridgeError)) throw err;
        return { daemon: name, reachable: false, error: err };
      },
    );
    this.probes.set(name, { at: Date.now(), status });
    return status;
  }

  /**
   * The daemon that runs `sessionId`: remembered, or found by asking every
   * daemon at once (each within the probe timeout) and taking the first that
   * has it. A refusal that holds on any daemon (a malformed id, a refused
   * token) fails at once.
   */
  private async locate(sessionId: string, opts: CallOptions): Promise<string> {
    const known = this.owners.get(sessionId);
    if (known) return known;
    const ask: CallOptions = {
      timeoutMs: Math.min(opts.timeoutMs ?? this.probeTimeoutMs, this.probeTimeoutMs),
      ...(opts.signal ? { signal: opts.signal } : {}),
    };
    const silent: string[] = [];
    const daemon = await new Promise<string | undefined>((resolve, reject) => {
      let pending = this.clients.size;
      for (const [name, client] of this.clients) {
        client.getSession(sessionId, ask).then(
          () => resolve(name),
          (err: unknown) => {
            if (err instanceof UnavailableError || err instanceof DeadlineExceededError) {
              silent.push(name);
            } else if (!(err instanceof NotFoundError)) reject(err);
            if (--pending === 0) resolve(undefined);
          },
        );
      }
    });
    if (daemon) {
      this.remember(sessionId, daemon);
      return daemon;
    }
    if (silent.length > 0) {
      throw new UnavailableError(
        'UNAVAILABLE',
        `session ${sessionId} is on no daemon that answered; no answer from: ${silent.join(', ')}`,
      );
    }
    throw new NotFoundError('NOT_FOUND', `session ${sessionId} is on no daemon of the fleet`);
  }

  /** Remembers where a session runs; the oldest entries go once there are too many. */
  private remember(sessionId: string, daemon: string): void {
    this.owners.delete(sessionId);
    this.owners.set(sessionId, daemon);
    if (this.owners.size > MAX_REMEMBERED) {
      const oldest = this.owners.keys().next().value;
      if (oldest !== undefined) this.owners.delete(oldest);
    }
  }
}

/** Why a daemon cannot take a task of `provider`, as placement sees it; undefined when it can. */
function unfitFor(s: DaemonStatus, provider: string): string | undefined {
  if (!s.reachable) return `unreachable (${s.error.message})`;
  if (s.health.status !== 'serving') return `not serving (${s.health.status})`;
  const refusal = providerRefusal(s.providers, provider);
  if (refusal !== undefined) return refusal;
  return s.health.freeCapacity > 0 ? undefined : 'no room for another session of this project';
}
