/**
 * Agents working together through the bridge, end to end: a real daemon
 * over mTLS, fake claude CLIs that run the MCP server the bridge gives them
 * (`bridge mcp`, from --mcp-config) and call its tools when the fake model
 * says BRIDGE_TOOL. Each agent acts as its own session: what it posts and
 * sends carries its session, whatever it says.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import {
  collect,
  FAKE_CLAUDE,
  ofType,
  REPO_ROOT,
  turnsDone,
  useDaemon,
} from '@agent-bridge/harness';
import { EventType, type SessionEvent } from '@agent-bridge/proto';
import { describe, expect, it } from 'vitest';

const T = EventType;
const bridge = useDaemon({
  config: {
    sessions: { max_per_project: 10, max_global: 10 },
    providers: {
      claude: { adapter: 'claude', binary: FAKE_CLAUDE, permissions: 'ask' },
      codex: {
        adapter: 'codex',
        binary: join(REPO_ROOT, 'tests/fixtures/fake-codex.mjs'),
        env: { FAKE_CODEX_LOGGED_IN: '1' },
      },
      opencode: {
        adapter: 'acp',
        binary: join(REPO_ROOT, 'tests/fixtures/fake-opencode.mjs'),
        args: ['acp'],
      },
    },
  },
});

async function agent(name: string, role: string, provider = 'claude') {
  const sessionId = randomUUID();
  await bridge.call((c) => c.startSession, {
    projectId: 'alpha',
    sessionId,
    repoPath: bridge.daemon.repo,
    provider,
    agentOpts: {},
    name,
    role,
  });
  const s = bridge.sessions().session(sessionId);
  let turns = 0;
  /** Sends `text` and resolves with the agent's answer once its turn is done. */
  const ask = async (text: string) => {
    await s.send(text);
    turns++;
    const all = await s.events(turnsDone(turns), 60_000);
    return { answer: ofType(all, T.EVENT_TYPE_AGENT_MESSAGE).at(-1)?.text ?? '', all };
  };
  return { sessionId, s, ask };
}

/** The capability file of a live session: tools-<daemon pid>/<session id>.cap in the state directory. */
function capabilityFileOf(sessionId: string): string {
  const found = readdirSync(bridge.daemon.dir, { recursive: true, encoding: 'utf8' }).filter((p) =>
    p.endsWith(`${sessionId}.cap`),
  );
  expect(found).toHaveLength(1);
  return join(bridge.daemon.dir, found[0]!);
}

const tool = (name: string, args: Record<string, unknown>) =>
  `BRIDGE_TOOL ${name} ${JSON.stringify(args)}`;
const resultOf = (answer: string, name: string) => {
  const prefix = `TOOL ${name}: `;
  expect(answer.startsWith(prefix), answer).toBe(true);
  return JSON.parse(answer.slice(prefix.length)) as Record<string, unknown>;
};

describe('agents collaborating through the bridge (fake claude, real MCP)', () => {
  it('one posts a finding, another reads and acks it; posts are events on both', async () => {
    const lead = await agent('lead', 'planner');
    const dev = await agent('dev', 'implementer');
    const posted = resultOf(
      (
        await lead.ask(
          tool('context_post', {
            category: 'finding',
            content: 'the cache key ignores the locale',
            targets: ['implementer'],
          }),
        )
      ).answer,
      'context_post',
    );
    expect(posted.post_id).toEqual(expect.any(Number));
    const read = resultOf(
      (await dev.ask(tool('context_read', { unacked: true }))).answer,
      'context_read',
    );
    expect(read.posts).toEqual([
      expect.objectContaining({
        id: posted.post_id,
        from: 'lead',
        from_role: 'planner',
        content: 'the cache key ignores the locale',
      }),
    ]);
    expect(
      resultOf(
        (await dev.ask(tool('context_ack', { post_ids: [posted.post_id] }))).answer,
        'context_ack',
      ),
    ).toEqual({ acked: 1 });
    const { all } = await dev.ask(tool('context_read', { unacked: true }));
    expect(ofType(all, T.EVENT_TYPE_CONTEXT_POSTED).map((e) => e.data?.post_id)).toEqual([
      posted.post_id,
    ]);
    await lead.s.stop();
    await dev.s.stop();
  });

  it('a message with deliver: turn becomes the other agent’s next turn; wait_for_message wakes on a send', async () => {
    const lead = await agent('lead2', 'planner');
    const dev = await agent('dev2', 'implementer');
    const sent = resultOf(
      (
        await lead.ask(
          tool('message_send', {
            to: 'dev2',
            content: 'please start on the cache fix',
            deliver: 'turn',
          }),
        )
      ).answer,
      'message_send',
    );
    expect(sent.to).toEqual(['dev2']);
    // dev2's next turn is the message, given as input.
    const all = await dev.s.events(turnsDone(1), 60_000);
    const input = ofType(all, T.EVENT_TYPE_INPUT_RECEIVED)[0];
    expect(input?.text).toContain('from lead2 (planner)');
    expect(ofType(all, T.EVENT_TYPE_MESSAGE_RECEIVED)[0]?.data).toMatchObject({
      from: 'lead2',
      deliver: 'turn',
    });

    // A wait that a message ends: the agent's turn is under way while it waits.
    await dev.s.send(tool('wait_for_message', { timeout_seconds: 60 }));
    const waiting = collect(
      bridge.stream({ sessionId: dev.sessionId, afterSeq: 0n }),
      (_e: SessionEvent, seen: SessionEvent[]) =>
        ofType(seen, T.EVENT_TYPE_TURN_COMPLETED).length >= 2,
      { timeoutMs: 60_000 },
    );
    await lead.ask(tool('message_send', { to: 'dev2', content: 'wake up' }));
    const { events } = await waiting;
    const woke = ofType(events, T.EVENT_TYPE_AGENT_MESSAGE).at(-1)?.text ?? '';
    expect(resultOf(woke, 'wait_for_message').message).toMatchObject({
      from: 'lead2',
      content: 'wake up',
    });
    await lead.s.stop();
    await dev.s.stop();
  });

  it('an ACP agent (opencode) messages a claude session, which gets it as a turn', async () => {
    const reviewer = await agent('acp-reviewer', 'reviewer', 'opencode');
    const coder = await agent('claude-coder', 'implementer');
    const sent = resultOf(
      (
        await reviewer.ask(
          tool('message_send', { to: 'claude-coder', content: 'rename the flag', deliver: 'turn' }),
        )
      ).answer,
      'message_send',
    );
    expect(sent.to).toEqual(['claude-coder']);
    const all = await coder.s.events(turnsDone(1), 60_000);
    expect(ofType(all, T.EVENT_TYPE_INPUT_RECEIVED)[0]?.text).toContain(
      'from acp-reviewer (reviewer)',
    );
    expect(ofType(all, T.EVENT_TYPE_AGENT_MESSAGE).at(-1)?.text).toBe('Hello from fake model.');
    await reviewer.s.stop();
    await coder.s.stop();
  });

  it('codex reads what claude posted and writes back to the bus', async () => {
    const claude = await agent('claude-finder', 'reviewer');
    const codex = await agent('codex-fixer', 'implementer', 'codex');
    const { post_id } = resultOf(
      (
        await claude.ask(
          tool('context_post', { category: 'finding', content: 'README has a typo' }),
        )
      ).answer,
      'context_post',
    );
    const read = resultOf(
      (await codex.ask(tool('context_read', { source: 'claude-finder' }))).answer,
      'context_read',
    );
    expect(read.posts).toEqual([
      expect.objectContaining({ id: post_id, content: 'README has a typo' }),
    ]);
    const reply = resultOf(
      (
        await codex.ask(
          tool('context_post', { category: 'fix', content: 'fixed', reply_to: post_id }),
        )
      ).answer,
      'context_post',
    );
    const page = await bridge.call((c) => c.readContext, {
      afterId: 0n,
      since: undefined,
      category: 'fix',
      source: 'codex-fixer',
      threadId: '',
      unacked: false,
      limit: 0,
    });
    expect(page.posts.map((p) => [Number(p.id), Number(p.replyTo), p.from?.role])).toEqual([
      [reply.post_id, post_id, 'implementer'],
    ]);
    await claude.s.stop();
    await codex.s.stop();
  });

  it('a session\u2019s capability is in its 0600 file only: never in events, the log or the audit file', async () => {
    const a = await agent('keeper', 'qa');
    const capFile = capabilityFileOf(a.sessionId);
    expect(statSync(capFile).mode & 0o777).toBe(0o600);
    const capability = readFileSync(capFile, 'utf8').trim();
    expect(capability.length).toBeGreaterThanOrEqual(40);
    const { all } = await a.ask(
      tool('context_post', { category: 'note', content: 'checking the secret stays put' }),
    );
    await a.s.stop();
    const seen = [
      JSON.stringify(all, (_k, v) => (typeof v === 'bigint' ? String(v) : v)),
      bridge.daemon.output(),
      readFileSync(bridge.daemon.audit.path, 'utf8'),
    ];
    for (const text of seen) expect(text.includes(capability)).toBe(false);
    // Ended with its session: the file goes.
    expect(existsSync(capFile)).toBe(false);
  });

  it('who shows the live sessions; a stopped one leaves', async () => {
    const a = await agent('watcher', 'qa');
    const b = await agent('leaver', 'qa');
    const names = async () =>
      (resultOf((await a.ask(tool('who', {}))).answer, 'who').sessions as { name: string }[])
        .map((s) => s.name)
        .filter((n) => n === 'watcher' || n === 'leaver')
        .sort();
    expect(await names()).toEqual(['leaver', 'watcher']);
    await b.s.stop();
    expect(await names()).toEqual(['watcher']);
    await a.s.stop();
  });
});
