import type { AgentEvent } from '@agent-bridge/providers';
import type { Audit } from '../audit.js';
import type { Clock } from '../clock.js';
import type { BridgeEvent } from '../events/event.js';
import type { EventCodec } from '../events/event-codec.js';
import type { EventObserver } from '../events/event-observer.js';
import { EventRing } from '../events/event-ring.js';
import { EventRedactor } from '../redaction/event-redactor.js';
import type { SecretRedactor } from '../redaction/redactor.js';
import type { Caller, CoreSettings, StartRequest } from '../types.js';
import { auditEvent } from './session-audit.js';

/** Characters of stored (redacted) stderr kept for the failure event's `stderr_tail`. */
const STDERR_TAIL_CHARS = 4096;

/** What a session's events are stored with. */
export interface SessionEventsDeps {
  settings: CoreSettings;
  secrets: SecretRedactor;
  clock: Clock;
  audit: Audit;
  observer: EventObserver;
  codec: EventCodec;
  startedBy?: Caller | undefined;
}

/**
 * A session's events as stored: each redacted first (nothing unredacted
 * ever enters the ring), stamped with the next seq, counted and audited.
 * It keeps the end of the session's stderr as stored, so already redacted:
 * the only copy of it, quoted when the agent fails.
 */
export class SessionEvents {
  readonly ring: EventRing;
  private readonly redaction: EventRedactor;
  private tail = '';
  private lastStored: number;

  constructor(
    private readonly request: StartRequest,
    private readonly deps: SessionEventsDeps,
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
    const stored = this.eventAt(this.ring.lastSeq + 1, ev);
    this.lastStored = stored.timestamp;
    this.deps.observer.stored(this.request.provider, stored, this.ring.push(stored));
    if (stored.type === 'STDERR') this.keepStderr(stored.text, stored.data?.continued === true);
    auditEvent(this.deps.audit, stored, this.deps.startedBy?.identity);
    return stored;
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
