import type { AgentEvent } from '@agent-bridge/providers';
import type { SecretRedactor } from './redactor.js';
import { StreamRedactor } from './stream-redactor.js';

/**
 * Redaction of one session's events before they enter its ring. STDOUT and
 * STDERR lines each go through their own stream (state carried from line
 * to line: PEM blocks, pieces of over-long lines); every other event (input
 * echoes, lifecycle, structured agent events) is redacted on its own. The
 * `error` text and every string in `data` are redacted too.
 */
export class EventRedactor {
  private readonly stdout: StreamRedactor;
  private readonly stderr: StreamRedactor;

  constructor(private readonly secrets: SecretRedactor) {
    this.stdout = new StreamRedactor(secrets);
    this.stderr = new StreamRedactor(secrets);
  }

  event(ev: AgentEvent): AgentEvent {
    const stream =
      ev.type === 'STDOUT' ? this.stdout : ev.type === 'STDERR' ? this.stderr : undefined;
    const out: AgentEvent = {
      ...ev,
      text: stream
        ? stream.next(ev.text, ev.data?.continued === true)
        : this.secrets.redact(ev.text),
    };
    if (ev.error) out.error = this.secrets.redact(ev.error);
    if (ev.data) out.data = this.secrets.redactData(ev.data);
    return out;
  }

  /**
   * The output still held back, as final events (normally none: the last
   * piece of a line is never `continued`, and the agent's output is read to
   * its end before the session ends).
   */
  flush(): AgentEvent[] {
    const out: AgentEvent[] = [];
    const stdout = this.stdout.flush();
    if (stdout) out.push({ type: 'STDOUT', stream: 'stdout', text: stdout });
    const stderr = this.stderr.flush();
    if (stderr) out.push({ type: 'STDERR', stream: 'stderr', text: stderr });
    return out;
  }
}
