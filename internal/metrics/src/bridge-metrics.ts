import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** Sessions of one provider in one status, with their open readers (the core's census). */
export interface CensusRow {
  provider: string;
  status: string;
  sessions: number;
  subscribers: number;
  permissionsWaiting: number;
}

/** The part of a stored or delivered event the counters look at. */
export interface CountedEvent {
  type: string;
  data?: Record<string, unknown> | undefined;
}

/** The part of an audit record the counters look at. */
export interface CountedRecord {
  kind: string;
  outcome: string;
  reason: string;
}

export interface BridgeMetricsOptions {
  /** Read at each scrape: sessions by provider and status. */
  census(): readonly CensusRow[];
  /** Read at each scrape: what the session store's data takes, and its bound (0: none). */
  storeSize?(): { usedBytes: number; maxBytes: number };
  /** Read at each scrape, in a fleet: the replication of the store to NATS JetStream. */
  fleet?(): FleetReplication;
}

/** How a daemon's store is replicated to its fleet, as counted since its start. */
export interface FleetReplication {
  /** Events committed but not yet in the fleet's stream. */
  lagEvents: number;
  /** Session records and cursors not yet in the fleet's bucket. */
  recordsWaiting: number;
  published: number;
  /** Publishes and record writes that failed (each is tried again). */
  failures: number;
  /** Times the connection to NATS was lost. */
  disconnects: number;
}

export interface BridgeMetrics {
  /** The event path: feed it to the core as its event observer. */
  readonly events: {
    stored(provider: string, event: CountedEvent, bytes: number): void;
    delivered(count: number, bytes: number, overflow: boolean): void;
  };
  /** Counts authentication and authorization decisions from the audit trail (tee the audit into it). */
  audit(record: CountedRecord): void;
  /** One finished BridgeService call: method, status code name ("OK"), seconds taken. */
  call(method: string, code: string, seconds: number): void;
  /** The exposition (text format) and its content type. */
  render(): Promise<{ contentType: string; body: string }>;
}

/** Audit kinds that are decisions about a caller: calls, TLS handshakes, live connections. */
const DECISION_KINDS = new Set(['call', 'tls', 'connection']);

/**
 * Latency buckets for unary calls (seconds): most calls are sub-millisecond
 * core lookups; StartSession waits for the agent to start, up to its
 * startup timeout.
 */
const RPC_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
];

/**
 * The daemon's metrics in a registry of their own (never prom-client's
 * global one), with the process defaults (CPU, memory, handles, event-loop
 * lag). Labels are bounded: providers come from the config, statuses,
 * methods, codes and reasons are fixed sets; nothing is labelled by
 * session, project or caller.
 */
export function createBridgeMetrics(opts: BridgeMetricsOptions): BridgeMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  /** A counter in this registry. */
  const counter = <L extends string = never>(name: string, help: string, labelNames: L[] = []) =>
    new Counter<L>({ name, help, labelNames, registers: [registry] });
  /** A gauge set from the core's census at each scrape, one increment per census row. */
  const censusGauge = <L extends string>(
    name: string,
    help: string,
    labelNames: L[],
    count: (row: CensusRow) => [Partial<Record<L, string>>, number],
  ) =>
    new Gauge<L>({
      name,
      help,
      labelNames,
      registers: [registry],
      collect() {
        this.reset();
        for (const row of opts.census()) this.inc(...count(row));
      },
    });

  censusGauge(
    'bridge_sessions',
    'Sessions held by the daemon, by provider and state (STOPPED and FAILED ones until their retention ends).',
    ['provider', 'state'],
    (row) => [{ provider: row.provider, state: row.status }, row.sessions],
  );
  censusGauge(
    'bridge_subscribers',
    'Open event streams (StreamEvents, StreamEventBatches), by provider.',
    ['provider'],
    (row) => [{ provider: row.provider }, row.subscribers],
  );
  censusGauge(
    'bridge_permission_requests_waiting',
    'Agent permission requests waiting for a RespondPermission answer (permissions: ask), by provider.',
    ['provider'],
    (row) => [{ provider: row.provider }, row.permissionsWaiting],
  );
  const storeGauge = (
    name: string,
    help: string,
    read: (s: { usedBytes: number; maxBytes: number }) => number,
  ) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        if (opts.storeSize) this.set(read(opts.storeSize()));
      },
    });
  storeGauge(
    'bridge_store_used_bytes',
    "Bytes the session store's data takes now (the pages of its events, sessions and cursors; 0 for storage.backend: memory).",
    (s) => s.usedBytes,
  );
  storeGauge(
    'bridge_store_max_bytes',
    'The most the session store may take (storage.max_size; 0: no bound). At it, new sessions are refused (store_full).',
    (s) => s.maxBytes,
  );
  if (opts.fleet) fleetMetrics(registry, opts.fleet);
  const permissions = counter(
    'bridge_permission_decisions_total',
    'Agent permission requests resolved, by provider, decision (allow_once, allow_session, deny) and who decided (caller, policy, auto_allow, session_grant, timeout, interrupt, turn_end, stop, shutdown, exit).',
    ['provider', 'decision', 'decided_by'],
  );
  const eventsIn = counter(
    'bridge_events_in_total',
    'Events stored in session buffers (agent output and lifecycle events), by provider.',
    ['provider'],
  );
  const bytesIn = counter(
    'bridge_event_bytes_in_total',
    'Bytes of the events stored, as encoded once for every subscriber (the SessionEvent wire form without the session identity), by provider.',
    ['provider'],
  );
  const eventsOut = counter(
    'bridge_events_out_total',
    'Events handed to subscribers, replay included (an event read by two subscribers counts twice).',
  );
  const bytesOut = counter(
    'bridge_event_bytes_out_total',
    'Size of the events handed to subscribers, by the same measure as bridge_event_bytes_in_total.',
  );
  const overflows = counter(
    'bridge_buffer_overflows_total',
    'BUFFER_OVERFLOW events sent: a subscriber fell behind the ring and missed events.',
  );
  const exits = counter(
    'bridge_agent_exits_total',
    'Agent sessions that ended, by provider and outcome: exited (code 0), stopped (on request, idle, shutdown), crashed (non-zero code), killed (by a signal it was not sent by a stop), failed (never started).',
    ['provider', 'outcome'],
  );
  const decisions = counter(
    'bridge_auth_decisions_total',
    'Decisions about callers as audited: kind call (per RPC), tls (refused handshakes; sampled under a flood) or connection (closed by a reload); outcome and stable reason as in docs/security.md.',
    ['kind', 'outcome', 'reason'],
  );
  const rpc = new Histogram({
    name: 'bridge_rpc_duration_seconds',
    help: 'BridgeService calls by method and status code: unary calls until the answer, streams until they are open (or refused).',
    labelNames: ['method', 'code'],
    buckets: RPC_BUCKETS,
    registers: [registry],
  });

  // The event path is the hottest in the daemon: resolve each provider's
  // label set once, not on every event.
  const inByProvider = new Map<
    string,
    { events: { inc(): void }; bytes: { inc(n: number): void } }
  >();
  const countersOf = (provider: string) => {
    let c = inByProvider.get(provider);
    if (!c) {
      c = { events: eventsIn.labels(provider), bytes: bytesIn.labels(provider) };
      inByProvider.set(provider, c);
    }
    return c;
  };

  return {
    events: {
      stored(provider, event, bytes) {
        const c = countersOf(provider);
        c.events.inc();
        c.bytes.inc(bytes);
        if (event.type === 'SESSION_STOPPED' || event.type === 'SESSION_FAILED') {
          exits.inc({ provider, outcome: exitOutcome(event) });
        } else if (event.type === 'PERMISSION_RESOLVED') {
          permissions.inc({
            provider,
            decision: String(event.data?.decision ?? ''),
            decided_by: String(event.data?.decided_by ?? ''),
          });
        }
      },
      delivered(count, bytes, overflow) {
        eventsOut.inc(count);
        bytesOut.inc(bytes);
        if (overflow) overflows.inc();
      },
    },
    audit(record) {
      if (!DECISION_KINDS.has(record.kind)) return;
      decisions.inc({ kind: record.kind, outcome: record.outcome, reason: record.reason });
    },
    call(method, code, seconds) {
      rpc.observe({ method, code }, seconds);
    },
    render: async () => ({ contentType: registry.contentType, body: await registry.metrics() }),
  };
}

/** How a session ended, from its terminal event (see the core's Session.finish). */
function exitOutcome(event: CountedEvent): string {
  const data = event.data ?? {};
  if (event.type === 'SESSION_STOPPED') return data.reason === 'exited' ? 'exited' : 'stopped';
  if (typeof data.signal === 'string' && data.signal !== '') return 'killed';
  if (typeof data.exit_code === 'number') return 'crashed';
  return 'failed';
}

/** The fleet's replication as a gauge and two counters, read at each scrape. */
function fleetMetrics(registry: Registry, read: () => FleetReplication): void {
  new Gauge({
    name: 'bridge_fleet_publish_lag_events',
    help: "Events committed in the daemon's store but not yet in the fleet's JetStream stream (grows while NATS is away, returns to 0 once caught up).",
    registers: [registry],
    collect() {
      this.set(read().lagEvents);
    },
  });
  new Gauge({
    name: 'bridge_fleet_records_waiting',
    help: "Session records and cursors not yet written to the fleet's KV bucket (grows while NATS is away).",
    registers: [registry],
    collect() {
      this.set(read().recordsWaiting);
    },
  });
  const seen = { published: 0, failures: 0, disconnects: 0 };
  const total = (name: string, help: string, field: keyof typeof seen) =>
    new Counter({
      name,
      help,
      registers: [registry],
      collect() {
        const now = read()[field];
        this.inc(now - seen[field]);
        seen[field] = now;
      },
    });
  total(
    'bridge_fleet_events_published_total',
    "Events published to the fleet's JetStream stream.",
    'published',
  );
  total(
    'bridge_fleet_publish_failures_total',
    'Publishes of events, session records and cursors to NATS that failed and are tried again (NATS away, a leader election, a refusal).',
    'failures',
  );
  total(
    'bridge_fleet_nats_disconnects_total',
    'Times the connection to NATS was lost (a node gone, the cluster gone, the network cut); it comes back by itself.',
    'disconnects',
  );
}
