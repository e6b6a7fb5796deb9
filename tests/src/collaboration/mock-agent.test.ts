/**
 * The built-in mock agent's "/bridge <tool> <json>" lines: the collaboration
 * tools through the real `bridge mcp`, as a claude agent calls them, so a
 * fresh install can show agents working together with no CLI installed.
 */
import { randomUUID } from 'node:crypto';
import { ofType, turnsDone, useDaemon } from '@agent-bridge/harness';
import { EventType } from '@agent-bridge/proto';
import { describe, expect, it } from 'vitest';

const T = EventType;
const bridge = useDaemon({
  config: {
    providers: {
      mock: {},
      mock_solo: { adapter: 'mock', collaboration: 'off' },
    },
  },
});

async function mockSession(provider: string, name: string) {
  const sessionId = randomUUID();
  await bridge.call((c) => c.startSession, {
    projectId: 'alpha',
    sessionId,
    repoPath: bridge.daemon.repo,
    provider,
    agentOpts: {},
    name,
    role: 'tester',
  });
  const s = bridge.sessions().session(sessionId);
  let turns = 0;
  const ask = async (text: string) => {
    await s.send(text);
    const all = await s.events(turnsDone(++turns), 30_000);
    return { all, answer: ofType(all, T.EVENT_TYPE_AGENT_MESSAGE).at(-1)?.text ?? '' };
  };
  return { sessionId, ask };
}

describe('the mock agent and the bridge tools', () => {
  it('runs each /bridge line in order as an mcp__bridge__ tool call, as its session', async () => {
    const a = await mockSession('mock', 'mock-a');
    await mockSession('mock', 'mock-b');
    const { all, answer } = await a.ask(
      [
        'Post, then look around.',
        '/bridge context_post {"category":"note","content":"from the mock"}',
        '/bridge who {}',
      ].join('\n'),
    );
    const calls = ofType(all, T.EVENT_TYPE_TOOL_CALL).map((e) => e.data?.name);
    expect(calls).toEqual(['mcp__bridge__context_post', 'mcp__bridge__who']);
    const posted = ofType(all, T.EVENT_TYPE_CONTEXT_POSTED);
    expect(posted.map((e) => [e.text, e.data?.from, e.data?.from_kind])).toEqual([
      ['from the mock', 'mock-a', 'session'],
    ]);
    expect(answer).toMatch(
      /bridge context_post: \{"post_id":\d+,"posted_at":"[^"]+"\}; bridge who: /,
    );
    expect(answer).toContain('"name":"mock-b"');
    expect(answer).not.toContain('failed');
  });

  it('says why a call failed: arguments that are not JSON, an unknown argument, no tools', async () => {
    const a = await mockSession('mock', 'mock-c');
    const bad = await a.ask('/bridge context_post {category: note}');
    expect(bad.answer).toContain(
      'bridge context_post failed: the arguments are not JSON: {category: note}',
    );
    const forged = await a.ask(
      '/bridge context_post {"category":"note","content":"x","from":"mock-b"}',
    );
    expect(forged.answer).toMatch(/bridge context_post failed: .*from/);
    const solo = await mockSession('mock_solo', 'mock-solo');
    const none = await solo.ask('/bridge who {}');
    expect(none.answer).toContain(
      'bridge who failed: this session has no bridge tools (no "bridge" in --mcp-config)',
    );
    // Nothing was posted by any of these.
    for (const r of [bad, forged, none])
      expect(ofType(r.all, T.EVENT_TYPE_CONTEXT_POSTED)).toEqual([]);
  });
});
