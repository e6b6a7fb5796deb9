import type { SessionEvent } from '@agent-bridge/bridgeclient';
import { permissionLines } from './permission-lines.js';
import { COLOURS, compact, PLAIN, type Style } from './terminal-style.js';
import { turnSummaryParts } from './turn-summary.js';

export { useColour } from './terminal-style.js';

const num = (v: unknown) => (typeof v === 'number' ? v : undefined);
const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);

const turnSummary = (data: Record<string, unknown>) => turnSummaryParts(data).join(' · ');

/**
 * Renders a session's events for a person as they arrive: the agent's reply
 * as running text, tool calls and results as one-line blocks, a summary per
 * turn, errors marked. It keeps the little state running text needs.
 */
export class EventRenderer {
  private readonly s: Style;
  /** A reply is being written and its line is not ended yet. */
  private midLine = false;
  /** Deltas were shown since the last complete message, which would repeat them. */
  private streamed = false;

  constructor(
    private readonly write: (text: string) => void,
    opts: { colour: boolean },
  ) {
    this.s = opts.colour ? COLOURS : PLAIN;
  }

  render(e: SessionEvent): void {
    const data = e.data ?? {};
    switch (e.type) {
      case 'AGENT_MESSAGE_DELTA':
        this.write(e.text);
        this.midLine = !e.text.endsWith('\n');
        this.streamed = true;
        return;
      case 'AGENT_MESSAGE':
        if (this.streamed) this.endLine();
        else if (e.text) this.line(e.text);
        this.streamed = false;
        return;
      case 'TURN_STARTED':
        this.streamed = false;
        return;
      default: {
        const text = this.lineFor(e, data);
        if (text !== undefined) this.line(text);
      }
    }
  }

  /** The line an event other than the reply's text shows as, if any. */
  private lineFor(e: SessionEvent, data: Record<string, unknown>): string | undefined {
    const { s } = this;
    switch (e.type) {
      case 'SESSION_STARTED':
        return s.dim(
          `● session ${e.sessionId} started: ${e.provider}${num(data.pid) ? ` (pid ${data.pid})` : ''}`,
        );
      case 'SESSION_RESUMED': {
        const cut = str(data.interrupted_turn_id);
        return s.yellow(
          `● the daemon restarted: session resumed on the agent's conversation ${str(data.conversation_id) ?? '?'}${cut ? ` (turn ${cut} was cut short: send its input again)` : ''}`,
        );
      }
      case 'INPUT_RECEIVED':
        return s.bold(s.cyan(`> ${compact(e.text)}`));
      case 'TOOL_CALL':
        return `${s.yellow(`┌ ${String(data.name ?? 'tool')}`)} ${s.dim(compact(data.input ?? {}))}`;
      case 'TOOL_RESULT': {
        const failed = data.is_error === true;
        const head = failed ? s.red('└ error') : s.yellow('└ result');
        // claude's adapter carries the output as the event's text; the others also in data.output.
        const output = typeof data.output === 'string' ? data.output : e.text;
        return `${head} ${s.dim(compact(output))}`;
      }
      case 'TURN_COMPLETED': {
        const summary = turnSummary(data);
        return s.dim(`── turn done${summary ? ` · ${summary}` : ''}`);
      }
      case 'AGENT_ERROR':
        return s.red(`✗ agent error: ${e.error || e.text}`);
      case 'SESSION_FAILED':
        return s.red(s.bold(`✗ session failed: ${e.error || e.text}`));
      case 'SESSION_STOPPED':
        return s.dim(`■ session stopped${e.text ? `: ${e.text}` : ''}`);
      case 'BUFFER_OVERFLOW': {
        const m = e.missing;
        const which = m ? `events ${m.first}-${m.last}` : 'some events';
        return s.yellow(`! ${which} were lost: the daemon's buffer overflowed`);
      }
      case 'PERMISSION_REQUESTED':
      case 'PERMISSION_RESOLVED':
        return permissionLines(e, s);
      case 'STDOUT':
        return e.text;
      case 'STDERR':
        return s.dim(e.text);
      case 'CONTEXT_POSTED':
        return s.magenta(
          `✎ ${str(data.from) ?? '?'} posted ${str(data.category) ?? ''} #${data.post_id} (${str(data.priority) ?? 'info'}): ${compact(e.text)}`,
        );
      case 'MESSAGE_SENT':
        return s.magenta(`✉ to ${str(data.to) ?? '?'} #${data.message_id}: ${compact(e.text)}`);
      case 'MESSAGE_RECEIVED':
        return s.magenta(`✉ from ${str(data.from) ?? '?'} #${data.message_id}: ${compact(e.text)}`);
      default:
        return undefined;
    }
  }

  /** Ends a reply left mid-line, e.g. before the stream stops. */
  endLine(): void {
    if (this.midLine) this.write('\n');
    this.midLine = false;
  }

  private line(text: string): void {
    this.endLine();
    this.write(`${text}\n`);
  }
}
