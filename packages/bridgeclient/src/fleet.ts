import { scope } from '@agent-bridge/scope';
import type { BridgeClient } from './client.js';
import { BridgeError, FailedPreconditionError, ResourceExhaustedError } from './errors.js';
import { EventStream } from './event-stream.js';
import type { EventStreamOptions } from './event-stream-options.js';
import type { BridgeFleetOptions, DaemonStatus, FleetSession } from './fleet-types.js';
import type { CallOptions } from './options.js';
import type { PermissionDecision } from './permissions.js';
import { reasonOf } from './private/abort-reason.js';
import { DaemonProbes } from './private/daemon-probes.js';
import { placeByDirectory } from './private/directory-placement.js';
import { findOwner } from './private/find-owner.js';
import { FleetMembers } from './private/fleet-members.js';
import { candidates, unfitFor } from './private/placement.js';
import { runTask } from './private/run-task.js';
import { SessionOwners } from './private/session-owners.js';
import type { TaskOptions } from './run-task.js';
import type { ListSessionsOptions, StartSessionRequest } from './session-requests.js';
import { reportWithoutSession, type TaskReport } from './task-report.js';
import type {
  InterruptResult,
  ProviderInfo,
  SentInput,
  SessionStatus,
  StartedSession,
} from './types.js';

/**
 * Several daemons used as one: a new session goes to a daemon that offers
 * its provider and has the most room for this client's project; later
 * calls and event streams for it go to that daemon. A daemon that does not
 * answer is skipped for placement and reported, never waited on.
 */
export class BridgeFleet {
  private readonly members: FleetMembers;
  private readonly owners = new SessionOwners();
  private readonly probes: DaemonProbes;
  private readonly probeTimeoutMs: number;
  /** The fleet's scope: ended by close(); its event streams still finding their daemon end with it. */
  private readonly closing = scope();

  constructor(opts: BridgeFleetOptions) {
    if (opts.daemons?.length && opts.discovery) {
      throw new TypeError('a fleet takes a list of daemons or a discovery, not both');
    }
    this.members = new FleetMembers(opts);
    this.probeTimeoutMs = opts.probeTimeoutMs ?? 3000;
    this.probes = new DaemonProbes(opts.probeTtlMs ?? 2000, this.probeTimeoutMs);
  }

  /** The client of each daemon, by name (with discovery: the daemons found so far). */
  get clients(): ReadonlyMap<string, BridgeClient> {
    return this.members.clients;
  }

  /** Each daemon as placement sees it now (probes at most `probeTtlMs` old). */
  async status(): Promise<DaemonStatus[]> {
    await this.members.refresh();
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
    const only = req.daemon;
    let placed: string[];
    if (this.members.discovered) {
      // The directory says who has room: no daemon is probed.
      placed = placeByDirectory(await this.members.refresh(opts.signal), req.provider, only);
    } else {
      if (only !== undefined) this.client(only);
      const names = only === undefined ? [...this.clients.keys()] : [only];
      const statuses = await Promise.all(names.map((n) => this.probe(n)));
      placed = candidates(statuses, req.provider, only);
    }
    let refused: BridgeError | undefined;
    for (const name of placed) {
      try {
        const started = await this.client(name).startSession(req, opts);
        this.owners.remember(started.sessionId, name);
        this.probes.forget(name); // its room just shrank
        return { ...started, daemon: name };
      } catch (err) {
        if (!(err instanceof ResourceExhaustedError || err instanceof FailedPreconditionError)) {
          throw err;
        }
        refused = err;
        this.probes.forget(name);
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
      this.probes.forget(daemon); // its room changed meanwhile
      if (report.sessionId) this.owners.remember(report.sessionId, daemon);
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

  /**
   * The session's events, from the daemon that runs it (see
   * BridgeClient.events): a stream at once, like the client's. Finding the
   * daemon is part of the iteration, so its failures (NotFoundError: no
   * daemon has the session) surface from the loop, as a failed connection's do.
   */
  events(sessionId: string, opts: EventStreamOptions = {}): EventStream {
    return new EventStream(
      {
        clientClosed: this.closing.signal,
        open: async (signal) => {
          const daemon = await this.locate(sessionId, { signal });
          return this.client(daemon).events(sessionId, { ...opts, signal });
        },
      },
      sessionId,
      opts,
    );
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
    await this.members.refresh();
    await Promise.all(
      [...this.clients].map(async ([daemon, client]) => {
        try {
          for await (const s of client.sessions({
            ...opts,
            timeoutMs: opts.timeoutMs ?? this.probeTimeoutMs,
          })) {
            sessions.push({ ...s, daemon });
            this.owners.remember(s.sessionId, daemon);
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

  /** Closes every client; event streams of the fleet end with a CANCELLED BridgeError. */
  close(): void {
    this.closing.end();
    void this.members.close();
  }

  private client(name: string): BridgeClient {
    return this.members.client(name);
  }

  private probe(name: string): Promise<DaemonStatus> {
    return this.probes.status(name, this.client(name));
  }

  /**
   * The daemon that runs `sessionId`: remembered, or found by asking every
   * daemon at once, each within the probe timeout (see findOwner).
   */
  private async locate(sessionId: string, opts: CallOptions): Promise<string> {
    const known = this.owners.get(sessionId);
    if (known && this.clients.has(known)) return known;
    const listed = await this.members.ownerOf(sessionId, opts.signal);
    if (listed !== undefined) {
      this.owners.remember(sessionId, listed);
      return listed;
    }
    await this.members.refresh(opts.signal);
    const ask: CallOptions = {
      timeoutMs: Math.min(opts.timeoutMs ?? this.probeTimeoutMs, this.probeTimeoutMs),
      ...(opts.signal ? { signal: opts.signal } : {}),
    };
    const daemon = await findOwner(this.clients, sessionId, ask);
    this.owners.remember(sessionId, daemon);
    return daemon;
  }
}
