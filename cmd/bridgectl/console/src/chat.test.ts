import { describe, expect, it } from 'vitest';
import { Conversation } from './chat';
import type { SessionEvent } from './types';

let seq = 0;
const ev = (type: string, text = '', data: Record<string, unknown> = {}): SessionEvent => ({
  seq: ++seq,
  sessionId: 's',
  type,
  text,
  turnId: 't',
  timestamp: new Date(0).toISOString(),
  data,
});

describe('a conversation', () => {
  it('folds deltas into one reply (completed by its message, whatever came between), tools with their results, permissions with their outcome', () => {
    seq = 0;
    const c = new Conversation();
    for (const e of [
      ev('INPUT_RECEIVED', 'hi'),
      ev('AGENT_MESSAGE_DELTA', 'Hel'),
      ev('AGENT_MESSAGE_DELTA', 'lo'),
      ev('TOOL_CALL', 'Bash', { tool_use_id: 'u1', name: 'Bash', input: { command: 'ls' } }),
      ev('PERMISSION_REQUESTED', '', { request_id: 'r1', tool: 'Bash', summary: 'ls' }),
      ev('PERMISSION_RESOLVED', '', {
        request_id: 'r1',
        decision: 'allow_once',
        decided_by: 'caller',
      }),
      ev('TOOL_RESULT', 'a b', { tool_use_id: 'u1', is_error: false }),
      ev('AGENT_MESSAGE', 'Hello'),
      ev('TURN_COMPLETED', '', { usage: { input_tokens: 3, output_tokens: 5 }, cost_usd: 0.5 }),
    ]) {
      c.add(e);
    }
    expect(c.items).toEqual([
      { kind: 'input', seq: 1, text: 'hi' },
      { kind: 'agent', seq: 2, text: 'Hello', streaming: false },
      {
        kind: 'tool',
        seq: 4,
        id: 'u1',
        name: 'Bash',
        input: { command: 'ls' },
        result: { text: 'a b', isError: false },
      },
      {
        kind: 'permission',
        seq: 5,
        requestId: 'r1',
        tool: 'Bash',
        summary: 'ls',
        outcome: 'allow once by caller',
      },
      { kind: 'turn', seq: 9, summary: 'Turn done: 3 in / 5 out tokens · $0.5000' },
    ]);
  });

  it('ends a streamed reply with its full text and takes no event twice', () => {
    seq = 0;
    const c = new Conversation();
    const events = [
      ev('AGENT_MESSAGE_DELTA', 'a'),
      ev('AGENT_MESSAGE_DELTA', 'b'),
      ev('AGENT_MESSAGE', 'ab'),
    ];
    for (const e of events) expect(c.add(e)).toBe(true);
    // A feed that resumed from an earlier seq sends some again.
    for (const e of events) expect(c.add(e)).toBe(false);
    expect(c.items).toEqual([{ kind: 'agent', seq: 1, text: 'ab', streaming: false }]);
    expect(c.lastSeq).toBe(3);
  });
});
