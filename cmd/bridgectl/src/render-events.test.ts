import type { EventType, SessionEvent } from '@agent-bridge/bridgeclient';
import { describe, expect, it } from 'vitest';
import { EventRenderer, useColour } from './render-events.js';

let seq = 0;
const ev = (type: EventType, more: Partial<SessionEvent> = {}): SessionEvent => ({
  seq: ++seq,
  timestamp: new Date(0),
  sessionId: 's1',
  projectId: 'p',
  provider: 'mock',
  type,
  stream: 'system',
  text: '',
  done: false,
  error: '',
  turnId: 't1',
  data: undefined,
  ...more,
});

/** A recorded turn with a tool call, as a structured provider reports it. */
const TURN: SessionEvent[] = [
  ev('SESSION_STARTED', { data: { pid: 42 } }),
  ev('INPUT_RECEIVED', { text: 'list files' }),
  ev('TURN_STARTED'),
  ev('AGENT_MESSAGE_DELTA', { text: 'Let me ' }),
  ev('AGENT_MESSAGE_DELTA', { text: 'look.' }),
  ev('AGENT_MESSAGE', { text: 'Let me look.' }),
  ev('TOOL_CALL', { data: { tool_call_id: 'c1', name: 'Bash', input: { command: 'ls' } } }),
  ev('TOOL_RESULT', { data: { tool_call_id: 'c1', output: 'a.txt\nb.txt', is_error: false } }),
  ev('AGENT_MESSAGE', { text: 'Two files.' }),
  ev('TURN_COMPLETED', {
    data: {
      usage: { input_tokens: 10, output_tokens: 20 },
      total_cost_usd: 0.0123,
      duration_ms: 1500,
    },
  }),
  ev('AGENT_ERROR', { error: 'rate limited' }),
  ev('BUFFER_OVERFLOW', { missing: { first: 20, last: 29 } }),
  ev('SESSION_FAILED', { error: 'exit code 1' }),
];

function render(events: SessionEvent[], colour: boolean): string {
  let out = '';
  const r = new EventRenderer(
    (t) => {
      out += t;
    },
    { colour },
  );
  for (const e of events) r.render(e);
  r.endLine();
  return out;
}

describe('EventRenderer', () => {
  it('shows a turn as running text, compact tool blocks and a summary', () => {
    expect(render(TURN, false)).toBe(
      [
        '● session s1 started: mock (pid 42)',
        '> list files',
        'Let me look.',
        '┌ Bash {"command":"ls"}',
        '└ result a.txt (+1 lines)',
        'Two files.',
        '── turn done · 10 in / 20 out tokens · $0.0123 · 1.5s',
        '✗ agent error: rate limited',
        "! events 20-29 were lost: the daemon's buffer overflowed",
        '✗ session failed: exit code 1',
        '',
      ].join('\n'),
    );
  });

  it("shows a tool's output from the event's text when data has none (claude)", () => {
    const claudeResult = ev('TOOL_RESULT', {
      text: 'total 0\ncreated.txt',
      data: { tool_use_id: 'toolu_1', is_error: false },
    });
    expect(render([claudeResult], false)).toBe('└ result total 0 (+1 lines)\n');
  });

  it('shows a daemon restart: the turn it cut short, then the resume with what to send again', () => {
    const restart = [
      ev('AGENT_MESSAGE_DELTA', { text: 'Work' }),
      ev('TURN_COMPLETED', {
        turnId: 't7',
        data: { interrupted: true, reason: 'daemon_restarted' },
      }),
      ev('SESSION_STARTED', { data: { pid: 43 } }),
      ev('SESSION_RESUMED', {
        data: { reason: 'daemon_restarted', conversation_id: 'c-9', interrupted_turn_id: 't7' },
      }),
    ];
    expect(render(restart, false)).toBe(
      [
        'Work',
        '── turn done · interrupted by a daemon restart',
        '● session s1 started: mock (pid 43)',
        "● the daemon restarted: session resumed on the agent's conversation c-9 (turn t7 was cut short: send its input again)",
        '',
      ].join('\n'),
    );
  });

  it('ends a reply cut short by the end of the stream with a newline', () => {
    expect(render([ev('AGENT_MESSAGE_DELTA', { text: 'half a' })], false)).toBe('half a\n');
  });

  it('colours errors red only when asked', () => {
    const failed = [ev('SESSION_FAILED', { error: 'boom' })];
    expect(render(failed, true)).toContain('\x1b[31m');
    expect(render(failed, false)).not.toContain('\x1b[');
  });

  it('colours only a terminal, and never under NO_COLOR', () => {
    expect(useColour(true, {})).toBe(true);
    expect(useColour(true, { NO_COLOR: '1' })).toBe(false);
    expect(useColour(false, {})).toBe(false);
  });

  describe('permission requests', () => {
    const asked = (more: Record<string, unknown> = {}) =>
      ev('PERMISSION_REQUESTED', {
        text: 'Bash: ls -la',
        data: {
          request_id: 'r1',
          tool: 'Bash',
          summary: 'ls -la',
          input: { command: 'ls -la' },
          options: ['allow_once', 'allow_session', 'deny'],
          mode: 'ask',
          expires_at: '2030-01-01T00:05:00.000Z',
          default: 'deny',
          ...more,
        },
      });

    it('shows one that waits with its options, its default and when that applies', () => {
      expect(render([asked()], false)).toBe(
        [
          '? Bash ls -la',
          '  waits for an answer: allow_once, allow_session, deny · deny at 2030-01-01T00:05:00Z unless answered · request r1',
          '',
        ].join('\n'),
      );
    });

    it('shows one a policy answers at once in a line, with the policy', () => {
      const policy = asked({ mode: 'allow', expires_at: undefined, default: undefined });
      expect(render([policy], false)).toBe('? Bash ls -la (permissions: allow)\n');
    });

    it('shows who decided: a caller with their identity and reason, or the cause', () => {
      const resolved = (data: Record<string, unknown>) =>
        ev('PERMISSION_RESOLVED', { data: { request_id: 'r1', tool: 'Bash', ...data } });
      expect(
        render(
          [
            resolved({
              decision: 'allow_once',
              decided_by: 'caller',
              caller: { subject: 'alice', issuer: 'control', certificate: 'CN=ops' },
            }),
            resolved({ decision: 'deny', decided_by: 'caller', reason: 'not here\nnor there' }),
            resolved({ decision: 'allow_session', decided_by: 'session_grant' }),
            resolved({ decision: 'deny', decided_by: 'timeout' }),
          ],
          false,
        ),
      ).toBe(
        [
          '✓ Bash allowed once by caller alice (issuer control, certificate CN=ops)',
          '✗ Bash denied by caller · reason: not here (+1 lines)',
          '✓ Bash allowed for the session by session_grant',
          '✗ Bash denied by timeout',
          '',
        ].join('\n'),
      );
    });

    it('ends a reply mid-line before a request, and colours a denial red', () => {
      const out = render(
        [
          ev('AGENT_MESSAGE_DELTA', { text: 'Let me run' }),
          asked(),
          ev('PERMISSION_RESOLVED', {
            data: { request_id: 'r1', tool: 'Bash', decision: 'deny', decided_by: 'timeout' },
          }),
        ],
        true,
      );
      expect(out.startsWith('Let me run\n')).toBe(true);
      expect(out).toContain('\x1b[31m✗ Bash denied\x1b[0m');
    });
  });
});
