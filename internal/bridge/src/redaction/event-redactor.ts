import type { AgentEvent } from '@agent-bridge/providers';
import { DeltaRedactor } from './delta-redactor.js';
import type { SecretRedactor } from './redactor.js';
import { StreamRedactor } from './stream-redactor.js';

/** A message streamed in pieces: its redaction, and the event the held-back text goes out as. */
interface DeltaStream {
  redactor: DeltaRedactor;
  /** The last piece's event (turn, data), for a piece made of held-back text. */
  last: AgentEvent;
}

/** Events after which no piece of the messages streamed so far can follow. */
const MESSAGE_ENDS = new Set<AgentEvent['type']>([
  'AGENT_MESSAGE',
  'TURN_COMPLETED',
  'SESSION_STOPPED',
  'SESSION_FAILED',
]);

/**
 * Redaction of one session's events before they enter its ring. STDOUT and
 * STDERR lines each go through their own stream (state carried from line
 * to line: PEM blocks, pieces of over-long lines). The pieces of a streamed
 * message (AGENT_MESSAGE_DELTA) go through a stream per message (by turn
 * and the provider's message keys), so a secret split across pieces is
 * found whole and no piece of it is stored; text a piece holds back is
 * stored, redacted, as a piece of its own before the next event of another
 * kind. Every other event is redacted on its own. The `error` text and
 * every string in `data` are redacted too.
 */
export class EventRedactor {
  private readonly stdout: StreamRedactor;
  private readonly stderr: StreamRedactor;
  private readonly deltas = new Map<string, DeltaStream>();

  constructor(private readonly secrets: SecretRedactor) {
    this.stdout = new StreamRedactor(secrets);
    this.stderr = new StreamRedactor(secrets);
  }

  /** What to store for `ev`, in order: none (a piece that waits), it, or held-back pieces and it. */
  events(ev: AgentEvent): AgentEvent[] {
    if (ev.type === 'AGENT_MESSAGE_DELTA' && ev.text !== '') {
      const key = messageKey(ev);
      let stream = this.deltas.get(key);
      if (!stream) {
        stream = { redactor: new DeltaRedactor(this.secrets), last: ev };
        this.deltas.set(key, stream);
      }
      stream.last = ev;
      const text = stream.redactor.next(ev.text);
      return text === '' ? [] : [this.redacted(ev, text)];
    }
    const out = this.held(MESSAGE_ENDS.has(ev.type));
    const stream =
      ev.type === 'STDOUT' ? this.stdout : ev.type === 'STDERR' ? this.stderr : undefined;
    out.push(
      this.redacted(
        ev,
        stream ? stream.next(ev.text, ev.data?.continued === true) : this.secrets.redact(ev.text),
      ),
    );
    return out;
  }

  /**
   * The output still held back, as final events (normally none: the last
   * piece of a line is never `continued`, and the agent's output is read to
   * its end before the session ends).
   */
  flush(): AgentEvent[] {
    const out = this.held(true);
    const stdout = this.stdout.flush();
    if (stdout) out.push({ type: 'STDOUT', stream: 'stdout', text: stdout });
    const stderr = this.stderr.flush();
    if (stderr) out.push({ type: 'STDERR', stream: 'stderr', text: stderr });
    return out;
  }

  /** The text streamed messages hold back, as pieces; `ended`: their messages are over. */
  private held(ended: boolean): AgentEvent[] {
    const out: AgentEvent[] = [];
    for (const { redactor, last } of this.deltas.values()) {
      const text = redactor.flush();
      if (text !== '') out.push(this.redacted(last, text));
    }
    if (ended) this.deltas.clear();
    return out;
  }

  private redacted(ev: AgentEvent, text: string): AgentEvent {
    // Most events: nothing changed and nothing else to redact.
    if (text === ev.text && !ev.error && !ev.data) return ev;
    const out: AgentEvent = { ...ev, text };
    if (ev.error) out.error = this.secrets.redact(ev.error);
    if (ev.data) out.data = this.secrets.redactData(ev.data);
    return out;
  }
}

/** Which message a piece belongs to: its turn and the keys providers give pieces of one message. */
function messageKey(ev: AgentEvent): string {
  const d = ev.data ?? {};
  return JSON.stringify([
    ev.turnId ?? '',
    d.index ?? null,
    d.item_id ?? null,
    d.thought ?? null,
    d.parent_tool_use_id ?? null,
  ]);
}
