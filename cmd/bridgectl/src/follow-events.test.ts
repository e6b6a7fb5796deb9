// The permission prompt of `events --follow`, driven through CtlIo with a
// fake terminal (readAnswer) and a fake client holding one session's events.
import {
  type BridgeClient,
  BridgeError,
  type EventType,
  type PermissionDecision,
  type SessionEvent,
} from '@agent-bridge/bridgeclient';
import { describe, expect, it, vi } from 'vitest';
import type { CtlIo } from './ctl-io.js';
import { followEvents } from './follow-events.js';

const SESSION = 's1';

/** A session's event log that streams like the daemon: history, then what comes, until the end. */
class FakeSession {
  readonly events: SessionEvent[] = [];
  readonly answers: { requestId: string; decision: PermissionDecision }[] = [];
  private wake: (() => void)[] = [];

  push(type: EventType, data?: Record<string, unknown>): SessionEvent {
    const e: SessionEvent = {
      seq: this.events.length + 1,
      timestamp: new Date(0),
      sessionId: SESSION,
      projectId: 'p',
      provider: 'mock_ask',
      type,
      stream: 'system',
      text: '',
      done: false,
      error: '',
      turnId: 't1',
      data,
    };
    this.events.push(e);
    for (const w of this.wake.splice(0)) w();
    return e;
  }

  ask(requestId: string, options: PermissionDecision[] = ['allow_once', 'deny']): void {
    this.push('PERMISSION_REQUESTED', {
      request_id: requestId,
      tool: 'Bash',
      summary: 'ls -la',
      options,
      mode: 'ask',
      expires_at: '2030-01-01T00:05:00.000Z',
      default: 'deny',
    });
  }

  resolve(requestId: string, decision: PermissionDecision, decidedBy: string): number {
    const resolved = this.events.some(
      (e) => e.type === 'PERMISSION_RESOLVED' && e.data?.request_id === requestId,
    );
    if (resolved) {
      throw new BridgeError(
        'FAILED_PRECONDITION',
        `permission request ${requestId} is already resolved: deny (decided by timeout)`,
      );
    }
    return this.push('PERMISSION_RESOLVED', {
      request_id: requestId,
      tool: 'Bash',
      decision,
      decided_by: decidedBy,
    }).seq;
  }

  /** What BridgeClient.events returns, reduced to what followEvents uses. */
  stream(afterSeq: number) {
    let closed = false;
    let processedSeq: number | undefined;
    const session = this;
    return {
      get processedSeq() {
        return processedSeq;
      },
      close() {
        closed = true;
        for (const w of session.wake.splice(0)) w();
      },
      async *[Symbol.asyncIterator]() {
        let next = afterSeq;
        while (!closed) {
          const e = session.events[next];
          if (e === undefined) {
            await new Promise<void>((r) => session.wake.push(r));
            continue;
          }
          yield e;
          processedSeq = next = e.seq;
          if (e.type === 'SESSION_STOPPED') return;
        }
      },
    };
  }

  client(opts: { refuse?: BridgeError } = {}): BridgeClient {
    return {
      getSession: async () => ({ lastSeq: this.events.length }),
      events: (_id: string, o: { afterSeq?: number }) => this.stream(o.afterSeq ?? 0),
      respondPermission: async (_id: string, requestId: string, decision: PermissionDecision) => {
        if (opts.refuse) throw opts.refuse;
        this.answers.push({ requestId, decision });
        return this.resolve(requestId, decision, 'caller');
      },
    } as unknown as BridgeClient;
  }
}

/**
 * A terminal that answers each question with the next of `replies`; a
 * reply of undefined leaves the question open until it is withdrawn.
 * `asked` resolves at each question, for the test to act on.
 */
function fakeTerminal(replies: (string | undefined)[]) {
  const questions: string[] = [];
  let onAsk: () => void = () => undefined;
  let out = '';
  const io: CtlIo = {
    stdout: (t) => {
      out += t;
    },
    stderr: () => undefined,
    // A terminal, but plain text to compare.
    env: { NO_COLOR: '1' },
    cwd: '/',
    now: () => new Date(0),
    stdoutIsTty: true,
    stderrIsTty: false,
    readAnswer: (question, signal) => {
      questions.push(question);
      onAsk();
      const reply = replies.shift();
      if (reply !== undefined) return Promise.resolve(reply);
      return new Promise((resolve) =>
        signal.addEventListener('abort', () => resolve(undefined), { once: true }),
      );
    },
  };
  return {
    io,
    questions,
    output: () => out,
    asked: () =>
      new Promise<void>((resolve) => {
        onAsk = resolve;
      }),
  };
}

const follow = (session: FakeSession, io: CtlIo, client = session.client(), prompt = true) =>
  followEvents(client, SESSION, io, { json: false, promptPermissions: prompt });

describe('events --follow at a terminal: permission prompts', () => {
  it('asks with only the offered options, re-asks after a wrong key, and sends the answer', async () => {
    const session = new FakeSession();
    session.push('SESSION_STARTED');
    session.ask('r1');
    const terminal = fakeTerminal(['x', 'o']);
    const done = follow(session, terminal.io);
    // Stop once the answer is recorded, so the follow ends.
    await vi.waitFor(() => expect(session.answers).toHaveLength(1));
    session.push('SESSION_STOPPED');
    expect(await done).toBe(4);
    expect(session.answers).toEqual([{ requestId: 'r1', decision: 'allow_once' }]);
    expect(terminal.questions).toEqual(['  allow Bash? [o]nce / [d]eny > ', expect.any(String)]);
    expect(terminal.output()).toContain('  answer [o]nce / [d]eny\n');
    expect(terminal.output()).toMatch(/✓ Bash allowed once by caller\n■ session stopped/);
  });

  it('withdraws the question when someone else answers first, and carries on', async () => {
    const session = new FakeSession();
    session.ask('r1', ['allow_once', 'allow_session', 'deny']);
    const terminal = fakeTerminal([undefined]);
    const asked = terminal.asked();
    const done = follow(session, terminal.io);
    await asked;
    expect(terminal.questions).toEqual(['  allow Bash? [o]nce / [s]ession / [d]eny > ']);
    session.resolve('r1', 'deny', 'caller');
    session.push('SESSION_STOPPED');
    expect(await done).toBe(3);
    expect(terminal.output()).toContain('! no longer waiting for your answer: denied by caller\n');
    expect(terminal.output()).toContain('✗ Bash denied by caller\n');
    expect(session.answers).toEqual([]);
  });

  it('says so when the answer comes too late (FAILED_PRECONDITION), and carries on', async () => {
    const session = new FakeSession();
    session.ask('r1');
    const refuse = new BridgeError(
      'FAILED_PRECONDITION',
      'permission request r1 is already resolved: deny (decided by timeout)',
    );
    const terminal = fakeTerminal(['d']);
    const done = follow(session, terminal.io, session.client({ refuse }));
    await vi.waitFor(() => expect(terminal.output()).toContain('too late'));
    session.push('SESSION_STOPPED');
    expect(await done).toBe(2);
    expect(terminal.output()).toContain(
      '! too late: permission request r1 is already resolved: deny (decided by timeout)\n',
    );
  });

  it('does not ask about a request the history shows resolved', async () => {
    const session = new FakeSession();
    session.ask('r1');
    session.resolve('r1', 'deny', 'timeout');
    session.push('SESSION_STOPPED');
    const terminal = fakeTerminal([]);
    expect(await follow(session, terminal.io)).toBe(3);
    expect(terminal.questions).toEqual([]);
    expect(terminal.output()).toContain('✗ Bash denied by timeout\n');
  });

  it('never asks without a terminal (no readAnswer) or with prompting off', async () => {
    const session = new FakeSession();
    session.ask('r1');
    session.push('SESSION_STOPPED');
    const off = fakeTerminal([]);
    expect(await follow(session, off.io, session.client(), false)).toBe(2);
    expect(off.questions).toEqual([]);
    const { readAnswer: _, ...pipe } = fakeTerminal([]).io;
    let out = '';
    expect(await follow(session, { ...pipe, stdout: (t) => (out += t) })).toBe(2);
    expect(out).toContain('waits for an answer: allow_once, deny');
  });

  it('stops asking on Ctrl-C', async () => {
    const session = new FakeSession();
    session.ask('r1');
    const terminal = fakeTerminal([undefined]);
    const interrupt = new AbortController();
    const asked = terminal.asked();
    const done = follow(session, { ...terminal.io, signal: interrupt.signal });
    await asked;
    interrupt.abort();
    expect(await done).toBe(1);
    expect(session.answers).toEqual([]);
    expect(terminal.output()).not.toContain('no longer waiting');
  });
});
