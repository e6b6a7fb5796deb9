import type { AgentEvent } from '../contract/events.js';
import { isRecord, type JsonObject } from '../contract/json-value.js';

/** Protocol lines up to this size are parsed whole; longer ones are reported and dropped. */
export const MAX_PROTOCOL_LINE_BYTES = 16 * 1024 * 1024;

export interface ProtocolLineOptions {
  /** One JSON object from the agent. May throw: that becomes an AGENT_ERROR, never a crash. */
  onMessage(msg: JsonObject): void;
  emit(event: AgentEvent): void;
  /** Also keep every raw line as a STDOUT event (`data.raw`). */
  emitRaw: boolean;
  /** The running turn's id, for the errors reported here. */
  turnId(): string | undefined;
}

/**
 * Turns an agent's stdout lines (as the line splitter delivers them, pieces
 * of an over-long line marked `continued`) into protocol messages. Stray
 * text (a banner, a warning, malformed JSON) is kept as STDOUT, never
 * dropped or fatal; a line over MAX_PROTOCOL_LINE_BYTES is reported once.
 */
export function protocolLineReader(
  opts: ProtocolLineOptions,
): (text: string, continued: boolean) => void {
  let oversize = false;
  const error = (text: string, error: string) =>
    opts.emit({ type: 'AGENT_ERROR', stream: 'system', text, error, turnId: opts.turnId() });
  return (text, continued) => {
    if (continued || oversize) {
      if (!oversize) {
        error(
          `the agent wrote a protocol line over ${MAX_PROTOCOL_LINE_BYTES} bytes; it was dropped`,
          'protocol line too long',
        );
      }
      oversize = continued;
      return;
    }
    if (opts.emitRaw) opts.emit({ type: 'STDOUT', stream: 'stdout', text, data: { raw: true } });
    const msg = parseJsonLine(text);
    if (msg === undefined) {
      if (!opts.emitRaw && text.length > 0) opts.emit({ type: 'STDOUT', stream: 'stdout', text });
      return;
    }
    try {
      opts.onMessage(msg);
    } catch (err) {
      error(
        `could not handle a message from the agent: ${(err as Error).message}`,
        'protocol error',
      );
    }
  };
}

/** Parses a stdout line as a JSON object; undefined for anything else. */
function parseJsonLine(text: string): JsonObject | undefined {
  const t = text.trim();
  if (!t.startsWith('{')) return undefined;
  try {
    const v: unknown = JSON.parse(t);
    return isRecord(v) ? v : undefined;
  } catch {
    return undefined;
  }
}
