import { BridgeClient, type ListSessionsOptions, type StartSessionRequest } from './client.js';
import type { CursorStore } from './cursor-store.js';
import {
  BridgeError,
  FailedPreconditionError,
  NotFoundError,
  ResourceExhaustedError,
  UnavailableError,
} from './errors.js';
import type { EventStream, EventStreamOptions } from './event-stream.js';
import type { BridgeClientOptions, CallOptions } from './options.js';
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
    if (candidates.length === 0) {
      throw new UnavailableError(
        'UNAVAILABLE',
        `no daemon of the fleet is reachable and offers provider ${JSON.stringify(req.provider)} with room for a session`,
      );
    }
    let refused: BridgeError | undefined;
    for (const name of candidates) {
      try {
        const started = await this.client(name).startSession(req, opts);
        this.owners.set(started.sessionId, name);
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

  /** The session's events, from the daemon that runs it (see BridgeClient.events). */
  async events(sessionId: string, opts: EventStreamOptions = {}): Promise<EventStream> {
    const daemon = await this.locate(sessionId, opts.signal ? { signal: opts.signal } : {});
    return this.client(daemon).events(sessionId, opts);
  }

  /**
   * This project's sessions on every daemon, newest first. Daemons that do
   * not answer are listed in `unreachable` rather than failing the call.
   */
  async listSessions(
    opts: Omit<ListSessionsOptions, 'pageToken'> = {},
  ): Promise<{ sessions: FleetSession[]; unreachable: { daemon: string; error: BridgeError }[] }> {
    const sessions: FleetSession[] = [];
    const unreachable: { daemon: string; error: BridgeError }[] = [];
    await Promise.all(
      [...this.clients].map(async ([daemon, client]) => {
        try {
          for await (const s of client.sessions(opts)) {
            sessions.push({ ...s, daemon });
            this.owners.set(s.sessionId, daemon);
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

  /** Daemons that can take a session of `provider`, the one with the most room first. */
  private async candidates(provider: string, only: string | undefined): Promise<string[]> {
    if (only !== undefined) this.client(only);
    const names = only === undefined ? [...this.clients.keys()] : [only];
    const usable = (await Promise.all(names.map((n) => this.probe(n)))).flatMap((s) =>
      s.reachable &&
      s.health.status === 'serving' &&
      s.health.freeCapacity > 0 &&
      s.providers.some((p) => p.id === provider && p.available)
        ? [s]
        : [],
    );
    usable.sort((a, b) => b.health.freeCapacity - a.health.freeCapacity);
    return usable.map((s) => s.daemon);
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

  /** The daemon that runs `sessionId`: remembered, or found by asking every daemon. */
  private async locate(sessionId: string, opts: CallOptions): Promise<string> {
    const known = this.owners.get(sessionId);
    if (known) return known;
    const unreachable: string[] = [];
    const found = await Promise.all(
      [...this.clients].map(([name, client]) =>
        client.getSession(sessionId, opts).then(
          () => name,
          (err: unknown) => {
            if (!(err instanceof NotFoundError)) unreachable.push(name);
            return undefined;
          },
        ),
      ),
    );
    const daemon = found.find((n) => n !== undefined);
    if (daemon) {
      this.owners.set(sessionId, daemon);
      return daemon;
    }
    if (unreachable.length > 0) {
      throw new UnavailableError(
        'UNAVAILABLE',
        `session ${sessionId} is on no daemon that answered; not asked: ${unreachable.join(', ')}`,
      );
    }
    throw new NotFoundError('NOT_FOUND', `session ${sessionId} is on no daemon of the fleet`);
  }
}
