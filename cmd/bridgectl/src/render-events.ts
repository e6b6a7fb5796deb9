import {
  awaitsAnswer,
  type PermissionDecision,
  type PermissionRequest,
  type PermissionResolution,
  permissionRequest,
  permissionResolution,
  type SessionEvent,
} from '@agent-bridge/bridgeclient';

/** ANSI styles, or none: colour only for a terminal and when NO_COLOR is unset. */
interface Style {
  dim: (s: string) => string;
  bold: (s: string) => string;
  red: (s: string) => string;
  yellow: (s: string) => string;
  cyan: (s: string) => string;
  green: (s: string) => string;
}

const ansi = (code: number) => (s: string) => `\x1b[${code}m${s}\x1b[0m`;
const COLOURS: Style = {
  dim: ansi(2),
  bold: ansi(1),
  red: ansi(31),
  yellow: ansi(33),
  cyan: ansi(36),
  green: ansi(32),
};
const PLAIN: Style = {
  dim: (s) => s,
  bold: (s) => s,
  red: (s) => s,
  yellow: (s) => s,
  cyan: (s) => s,
  green: (s) => s,
};

/** Whether to colour: a terminal, and NO_COLOR unset or empty (no-color.org). */
export const useColour = (isTty: boolean, env: Record<string, string | undefined>): boolean =>
  isTty && !env.NO_COLOR;

const MAX_INLINE = 160;

/** One line of at most MAX_INLINE characters, saying how much was left out. */
function compact(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value ?? null);
  const lines = text.split('\n');
  let line = (lines[0] ?? '').trim();
  if (line.length > MAX_INLINE) line = `${line.slice(0, MAX_INLINE - 1)}…`;
  return lines.length > 1 ? `${line} (+${lines.length - 1} lines)` : line;
}

const num = (v: unknown) => (typeof v === 'number' ? v : undefined);

function turnSummary(data: Record<string, unknown>): string {
  const usage = (data.usage ?? {}) as Record<string, unknown>;
  const parts: string[] = [];
  const input = num(usage.input_tokens);
  const output = num(usage.output_tokens);
  if (input !== undefined || output !== undefined) {
    parts.push(`${input ?? 0} in / ${output ?? 0} out tokens`);
  }
  const cost = num(data.cost_usd) ?? num(data.total_cost_usd);
  if (cost !== undefined) parts.push(`$${cost.toFixed(4)}`);
  const ms = num(data.duration_ms);
  if (ms !== undefined) parts.push(`${(ms / 1000).toFixed(1)}s`);
  if (data.interrupted === true) parts.push('interrupted');
  return parts.join(' · ');
}

/** A decision as people say it. */
export const DECISION_WORDS: Record<PermissionDecision, string> = {
  allow_once: 'allowed once',
  allow_session: 'allowed for the session',
  deny: 'denied',
};

/** A time to the second, in UTC: the same on every terminal, and what the daemon logs. */
const isoSeconds = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * A permission request in two lines: what the agent wants, then (when it
 * waits for an answer) the answers offered and what happens if none comes.
 */
function requestLines(r: PermissionRequest, s: Style): string {
  const what = `${s.bold(s.yellow(`? ${r.tool || 'tool'}`))} ${compact(r.summary)}`;
  if (!awaitsAnswer(r)) return `${what} ${s.dim(`(permissions: ${r.mode})`)}`;
  const expiry = r.expiresAt
    ? ` · ${r.fallback ?? 'deny'} at ${isoSeconds(r.expiresAt)} unless answered`
    : '';
  return `${what}\n${s.dim(`  waits for an answer: ${r.options.join(', ')}${expiry} · request ${r.requestId}`)}`;
}

/** Who decided, and for a caller who they are (token subject and issuer, certificate). */
function decidedBy(r: PermissionResolution): string {
  if (r.decidedBy !== 'caller' || !r.caller) return `by ${r.decidedBy || 'unknown'}`;
  const { subject, issuer, certificate } = r.caller;
  return `by caller ${subject}${issuer ? ` (issuer ${issuer}${certificate ? `, certificate ${certificate}` : ''})` : ''}`;
}

function resolutionLine(r: PermissionResolution, s: Style): string {
  const denied = r.decision === 'deny';
  const head = `${denied ? '✗' : '✓'} ${r.tool || 'tool'} ${DECISION_WORDS[r.decision]}`;
  const reason = r.reason ? ` · reason: ${compact(r.reason)}` : '';
  return `${denied ? s.red(head) : s.green(head)} ${s.dim(`${decidedBy(r)}${reason}`)}`;
}

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
        return requestLines(permissionRequest(e) as PermissionRequest, s);
      case 'PERMISSION_RESOLVED':
        return resolutionLine(permissionResolution(e) as PermissionResolution, s);
      case 'STDOUT':
        return e.text;
      case 'STDERR':
        return s.dim(e.text);
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
