import { turnSummaryParts } from '../../src/turn-summary';
import type { SessionEvent } from './types';

/** One entry of a session's conversation as the chat view shows it. */
export type ChatItem =
  | { kind: 'input'; seq: number; text: string }
  | { kind: 'agent'; seq: number; text: string; streaming: boolean }
  | {
      kind: 'tool';
      seq: number;
      id: string;
      name: string;
      input: unknown;
      result?: { text: string; isError: boolean };
    }
  | {
      kind: 'permission';
      seq: number;
      requestId: string;
      tool: string;
      summary: string;
      outcome?: string;
    }
  | { kind: 'turn'; seq: number; summary: string }
  | { kind: 'error'; seq: number; text: string }
  | { kind: 'note'; seq: number; text: string };

const str = (v: unknown) => (typeof v === 'string' ? v : '');

/** What ties a tool's result to its call, as the providers name it. */
const toolId = (d: Record<string, unknown>) =>
  str(d.tool_use_id) || str(d.call_id) || str(d.tool_call_id) || str(d.id);

function turnSummary(d: Record<string, unknown>): string {
  const parts = turnSummaryParts(d);
  return parts.length ? `Turn done: ${parts.join(' · ')}` : 'Turn done';
}

type Describe = (e: SessionEvent, d: Record<string, unknown>) => string;

/** Events shown as a line of their own. */
const NOTES: Partial<Record<string, Describe>> = {
  SESSION_STARTED: () => 'Session started',
  SESSION_STOPPED: (e) => `Session stopped${e.text ? `: ${e.text}` : ''}`,
  SESSION_RESUMED: () => 'The daemon restarted: the session resumed',
  CONTEXT_POSTED: (e, d) => `${str(d.from) || 'someone'} posted: ${e.text}`,
  MESSAGE_SENT: (e, d) => `Message to ${str(d.to) || '?'}: ${e.text}`,
  MESSAGE_RECEIVED: (e, d) => `Message from ${str(d.from) || '?'}: ${e.text}`,
};

/** Events shown as failures. */
const ERRORS: Partial<Record<string, Describe>> = {
  AGENT_ERROR: (e) => e.text || 'the agent reported an error',
  SESSION_FAILED: (e, d) => `Session failed: ${e.text || str(d.reason) || 'no reason given'}`,
  BUFFER_OVERFLOW: () => 'Some events were dropped before they could be shown',
};

/**
 * Folds a session's events, in seq order, into its conversation: streamed
 * deltas into one growing reply, each tool call with its result, each
 * permission request with how it ended. `items` is changed in place and
 * returned; an event at or below `lastSeq` (a repeat) changes nothing.
 */
export class Conversation {
  readonly items: ChatItem[] = [];
  lastSeq = 0;
  /** The reply being streamed: deltas grow it, its AGENT_MESSAGE completes it, whatever came between. */
  private open: Extract<ChatItem, { kind: 'agent' }> | undefined;

  add(e: SessionEvent): boolean {
    if (e.seq <= this.lastSeq) return false;
    this.lastSeq = e.seq;
    const d = e.data ?? {};
    switch (e.type) {
      case 'INPUT_RECEIVED':
        this.items.push({ kind: 'input', seq: e.seq, text: e.text });
        break;
      case 'AGENT_MESSAGE_DELTA':
        if (this.open) this.open.text += e.text;
        else {
          this.open = { kind: 'agent', seq: e.seq, text: e.text, streaming: true };
          this.items.push(this.open);
        }
        break;
      case 'AGENT_MESSAGE':
        if (this.open) {
          this.open.streaming = false;
          if (e.text) this.open.text = e.text;
          this.open = undefined;
        } else if (e.text) {
          this.items.push({ kind: 'agent', seq: e.seq, text: e.text, streaming: false });
        }
        break;
      case 'TOOL_CALL':
        this.items.push({
          kind: 'tool',
          seq: e.seq,
          id: toolId(d),
          name: str(d.name) || e.text || 'tool',
          input: d.input,
        });
        break;
      case 'TOOL_RESULT': {
        const id = toolId(d);
        const call = [...this.items]
          .reverse()
          .find((i) => i.kind === 'tool' && !i.result && (id === '' || i.id === id));
        const result = {
          text: typeof d.output === 'string' ? d.output : e.text,
          isError: d.is_error === true,
        };
        if (call?.kind === 'tool') call.result = result;
        else
          this.items.push({ kind: 'tool', seq: e.seq, id, name: 'tool', input: undefined, result });
        break;
      }
      case 'PERMISSION_REQUESTED':
        this.items.push({
          kind: 'permission',
          seq: e.seq,
          requestId: str(d.request_id),
          tool: str(d.tool),
          summary: str(d.summary) || e.text,
        });
        break;
      case 'PERMISSION_RESOLVED': {
        const req = this.items.find(
          (i) => i.kind === 'permission' && i.requestId === str(d.request_id),
        );
        const outcome = `${str(d.decision).replace('_', ' ')} by ${str(d.decided_by) || 'unknown'}${str(d.reason) ? `: ${str(d.reason)}` : ''}`;
        if (req?.kind === 'permission') req.outcome = outcome;
        break;
      }
      case 'TURN_COMPLETED':
        // A reply still streaming is all there is of it.
        if (this.open) this.open.streaming = false;
        this.open = undefined;
        this.items.push({ kind: 'turn', seq: e.seq, summary: turnSummary(d) });
        break;
      default: {
        const note = NOTES[e.type];
        const error = ERRORS[e.type];
        if (note) this.items.push({ kind: 'note', seq: e.seq, text: note(e, d) });
        else if (error) this.items.push({ kind: 'error', seq: e.seq, text: error(e, d) });
      }
    }
    return true;
  }
}
