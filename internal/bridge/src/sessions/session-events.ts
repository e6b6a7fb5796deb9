import { type AgentEvent, OutputGate } from '@agent-bridge/providers';
import type { Audit } from '../audit.js';
import type { Clock } from '../clock.js';
import { type BridgeEvent, isTerminal } from '../events/event.js';
import type { EventCodec } from '../events/event-codec.js';
import type { EventObserver } from '../events/event-observer.js';
import { EventRing } from '../events/event-ring.js';
import { EventRedactor } from '../redaction/event-redactor.js';
import type { SecretRedactor } from '../redaction/redactor.js';
import type { EventLog, SessionStore, StoredSession } from '../store/session-store.js';
import { type Caller, type CoreSettings, isLiveStatus, type StartRequest } from '../types.js';
import { auditEvent } from './session-audit.js';

/** Characters of stored (redacted) stderr kept for the failure event's `stderr_tail`. */
const STDERR_TAIL_CHARS = 4096;
/**
 * Bytes of events waiting for the store's commit above which the agent's
 * output waits (OutputGate): a disk slower than the agent slows the agent,
 * never fills the daemon's memory. Reopened once half of it is committed.
 */
const UNCOMMITTED_BYTES_MAX = 256 * 1024;

/** What a session's events are stored with. */
export interface SessionEventsDeps {
  settings: CoreSettings;
  secrets: SecretRedactor;
  clock: Clock;
  audit: Audit;
  observer: EventObserver;
  codec: EventCodec;
  /** Where the events are committed before any reader sees them. */
  store: SessionStore;
  startedBy?: Caller | undefined;
}

/** What a session's events tell outside it: the newest seq, commits, the output gate. */
export type SessionLog = Pick<
  SessionEvents,
  'lastSeq' | 'whenCommitted' | 'eventAt' | 'outputGate'
>;

/** An event stored but not yet committed: readers do not see it yet. */
interface Uncommitted {
  event: BridgeEvent;
  bytes: Uint8Array;
  terminal: boolean;
}

/**
 * A session's events as stored: each redacted first (nothing unredacted
 * ever enters the ring), stamped with the next seq, audited, written to the
 * session store, and put in the ring (where readers find it) once the store
 * has committed it.
 * It keeps the end of the session's stderr as stored, so already redacted:
 * the only copy of it, quoted when the agent fails.
 */
export class SessionEvents {
  readonly ring: EventRing;
  private readonly redaction: EventRedactor;
  private tail = '';
  private lastStored: number;
  private readonly log: EventLog;
  /** The seq the next stored event gets. */
  private next = 1;
  /** Stored, not yet committed, oldest first from `pendingHead`. */
  private pending: Uncommitted[] = [];
  private pendingHead = 0;
  /** Callers waiting for a seq to be committed, in seq order. */
  private waiting: { seq: number; done: (err?: Error) => void }[] = [];
  private failure: Error | undefined;
  /** Bytes in `pending`. */
  private pendingBytes = 0;
  /** Closed while `pending` holds more than UNCOMMITTED_BYTES_MAX. */
  readonly outputGate = new OutputGate();

  /**
   * `onStoreFailed` hears once that the store can commit nothing more: the
   * session then ends (its events are no longer kept).
   */
  constructor(
    private readonly request: StartRequest,
    private readonly deps: SessionEventsDeps,
    private readonly onStoreFailed: (error: Error) => void,
    restored?: StoredSession,
  ) {
    this.ring = new EventRing(
      deps.settings.eventBufferSize,
      deps.settings.eventBufferBytes,
      deps.codec,
      {
        sessionId: request.sessionId,
        projectId: request.projectId,
        provider: request.provider,
      },
    );
    this.redaction = new EventRedactor(deps.secrets);
    this.lastStored = deps.clock.now();
    let first: number | undefined;
    const kept = restored ? [...restored.events()] : [];
    // An ended session's last event is its terminal one.
    const terminalSeq = restored && !isLiveStatus(restored.record.status) ? kept.at(-1)?.seq : 0;
    for (const { seq, bytes } of kept) {
      first ??= seq;
      this.ring.pushEncoded(seq, bytes, seq === terminalSeq);
      this.next = seq + 1;
    }
    this.log = deps.store.eventLog(
      request.sessionId,
      { committed: (seq) => this.committed(seq), failed: (error) => this.failed(error) },
      first,
    );
    // A ring with smaller bounds than the one that stored them lets the oldest go.
    if (first !== undefined && this.ring.oldestSeq > first)
      this.log.dropBefore(this.ring.oldestSeq);
  }

  /** Seq of the newest event stored, committed or not; 0 before the first. */
  get lastSeq(): number {
    return this.next - 1;
  }

  /**
   * Resolves once event `seq` is committed (at once when it is): what a
   * caller is told about an event (its seq) is never undone by a restart.
   * Rejects when the store failed before committing it.
   */
  whenCommitted(seq: number): Promise<void> {
    if (seq <= this.ring.lastSeq) return Promise.resolve();
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.waiting.push({ seq, done: (err) => (err ? reject(err) : resolve()) });
    });
  }

  /** When the last event was stored. */
  get lastStoredAt(): number {
    return this.lastStored;
  }

  /** The end of the stored stderr, starting at a line. */
  get stderrTail(): string {
    return this.tail;
  }

  /**
   * Stores an agent's event (output lines and streamed messages per stream,
   * see EventRedactor). A piece of a streamed message may wait, stored with
   * a later one; text held back before this event is stored first.
   */
  append(ev: AgentEvent): void {
    for (const out of this.redaction.events(ev)) this.store(out);
  }

  /**
   * Stores an event of the daemon's own (an input, a permission request or
   * resolution), which is never held back, and returns it as stored.
   */
  record(ev: AgentEvent): BridgeEvent {
    const out = this.redaction.events(ev);
    let stored: BridgeEvent | undefined;
    for (const e of out) stored = this.store(e);
    if (!stored || out.at(-1)?.type !== ev.type) {
      throw new Error(`a ${ev.type} event was held back: only streamed messages may be`);
    }
    return stored;
  }

  /** Stores whatever redaction still holds back: the agent has nothing more to say. */
  flush(): void {
    for (const held of this.redaction.flush()) this.store(held);
  }

  /** An event of this session with `seq`, stamped now. Only `append` and `record` store one. */
  eventAt(seq: number, ev: AgentEvent): BridgeEvent {
    return {
      seq,
      timestamp: this.deps.clock.now(),
      sessionId: this.request.sessionId,
      projectId: this.request.projectId,
      provider: this.request.provider,
      type: ev.type,
      stream: ev.stream,
      text: ev.text,
      done: ev.done ?? false,
      error: ev.error ?? '',
      turnId: ev.turnId ?? '',
      data: ev.data,
    };
  }

  private store(ev: AgentEvent): BridgeEvent {
    const stored = this.eventAt(this.next++, ev);
    this.lastStored = stored.timestamp;
    const bytes = this.deps.codec.encode(stored);
    const terminal = isTerminal(stored);
    if (this.failure) {
      this.deliver(stored, bytes, terminal);
    } else if (this.log.commitsAtOnce) {
      this.deliver(stored, bytes, terminal);
      this.log.append(stored.seq, bytes);
    } else {
      // The codec may reuse its bytes: a copy waits for the commit, in the log and here.
      const copy = Buffer.from(bytes);
      this.pending.push({ event: stored, bytes: copy, terminal });
      this.log.append(stored.seq, copy);
      this.pendingBytes += copy.length;
      if (this.pendingBytes > UNCOMMITTED_BYTES_MAX) this.outputGate.close();
    }
    if (stored.type === 'STDERR') this.keepStderr(stored.text, stored.data?.continued === true);
    auditEvent(this.deps.audit, stored, this.deps.startedBy?.identity);
    return stored;
  }

  /** Puts a committed event in the ring, and drops from the store what the ring let go. */
  private deliver(event: BridgeEvent, bytes: Uint8Array, terminal: boolean): void {
    const oldest = this.ring.oldestSeq;
    const size = this.ring.pushEncoded(event.seq, bytes, terminal);
    this.deps.observer.stored(this.request.provider, event, size);
    if (oldest !== 0 && this.ring.oldestSeq !== oldest) this.log.dropBefore(this.ring.oldestSeq);
  }

  private committed(seq: number): void {
    const pending = this.pending;
    while (this.pendingHead < pending.length && pending[this.pendingHead]!.event.seq <= seq) {
      const { event, bytes, terminal } = pending[this.pendingHead++]!;
      this.pendingBytes -= bytes.length;
      this.deliver(event, bytes, terminal);
    }
    if (this.pendingBytes <= UNCOMMITTED_BYTES_MAX / 2) this.outputGate.reopen();
    if (this.pendingHead === pending.length) {
      this.pending = [];
      this.pendingHead = 0;
    }
    this.settle(seq);
  }

  /**
   * The store will commit nothing more: callers waiting on a commit are
   * told, and what it could not commit goes to the readers all the same
   * (they must learn how the session ends), as does every later event.
   */
  private failed(error: Error): void {
    if (this.failure) return;
    this.failure = error;
    for (const w of this.waiting.splice(0)) w.done(error);
    this.committed(Number.MAX_SAFE_INTEGER);
    this.onStoreFailed(error);
  }

  private settle(seq: number): void {
    let n = 0;
    while (n < this.waiting.length && this.waiting[n]!.seq <= seq) this.waiting[n++]!.done();
    if (n > 0) this.waiting.splice(0, n);
  }

  private keepStderr(text: string, continued: boolean): void {
    const tail = this.tail + text + (continued ? '' : '\n');
    if (tail.length <= STDERR_TAIL_CHARS) {
      this.tail = tail;
      return;
    }
    // Start at a line so the tail never opens with half of a "[REDACTED]".
    const cut = tail.slice(-STDERR_TAIL_CHARS);
    const nl = cut.indexOf('\n');
    this.tail = nl >= 0 && nl < cut.length - 1 ? cut.slice(nl + 1) : cut;
  }
}
