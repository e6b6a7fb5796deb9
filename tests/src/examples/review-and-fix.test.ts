import { collect, REPO_ROOT, useDaemon } from '@agent-bridge/harness';
import { EventType, type SessionEvent, SessionStatus } from '@agent-bridge/proto';
import { describe, expect, it } from 'vitest';
import { credentialVars, exampleEnv, run } from './run-example.js';

// review-and-fix.mjs as a user runs it inside the workspace (from source, no
// build), against a real daemon whose built-in mock agents call the bridge's
// tools through `bridge mcp`. What the example prints is checked against
// what the daemon kept: the thread on the bus, each session's events.
const bridge = useDaemon();
const T = EventType;

const dataOf = (e: SessionEvent) => (e.data ?? {}) as Record<string, unknown>;

describe('examples', () => {
  it('review-and-fix.mjs: a reviewer and a fixer work through the bus and messages alone', async () => {
    const res = await run(
      process.execPath,
      ['--conditions=development', '--import', 'tsx', 'examples/review-and-fix.mjs'],
      {
        cwd: REPO_ROOT,
        env: exampleEnv({
          ...credentialVars(bridge.pki, bridge.scratch),
          BRIDGE_REPO: bridge.daemon.repo,
          BRIDGE_TARGET: `localhost:${bridge.daemon.port}`,
          BRIDGE_REVIEW_FILE: 'src/parser.ts',
        }),
        timeoutMs: 45_000,
      },
    );
    expect(res.stderr).toBe('');
    expect(res.code, res.stdout).toBe(0);
    const out = res.stdout;
    const started = [
      ...out.matchAll(
        /^(reviewer|fixer) ((?:reviewer|fixer)-\w+): session ([0-9a-f-]{36}) \(mock\)$/gm,
      ),
    ];
    expect(started.map((m) => m[1])).toEqual(['reviewer', 'fixer']);
    const [reviewer, fixer] = started.map((m) => ({ name: m[2]!, id: m[3]! }));
    const thread = /^review of src\/parser\.ts, thread (review-\w+):$/m.exec(out)?.[1];
    expect(thread).toBeDefined();

    // The thread as the daemon keeps it: findings by the reviewer, the fix, the verdict.
    const { posts } = await bridge.call((c) => c.readContext, {
      afterId: 0n,
      since: undefined,
      category: '',
      source: '',
      threadId: thread!,
      unacked: false,
      limit: 0,
    });
    expect(posts.map((p) => [p.category, p.from?.name, p.from?.role])).toEqual([
      ['finding', reviewer!.name, 'reviewer'],
      ['finding', reviewer!.name, 'reviewer'],
      ['fix', fixer!.name, 'fixer'],
      ['verdict', reviewer!.name, 'reviewer'],
    ]);
    expect(posts[0]!.targets).toEqual([fixer!.name]);
    expect(posts[0]!.metadata).toEqual({ file: 'src/parser.ts' });
    // ... and as the example printed it.
    for (const p of posts) {
      expect(out).toContain(`  #${p.id} ${p.from?.name} (${p.from?.role}) [${p.category}/`);
    }

    // Each session: what reached it was messages, each delivered as a turn.
    const eventsOf = async (id: string) =>
      (
        await collect(
          bridge.stream({ sessionId: id, afterSeq: 0n }),
          (e) => e.type === T.EVENT_TYPE_SESSION_STOPPED,
        )
      ).events;
    const rev = await eventsOf(reviewer!.id);
    const fix = await eventsOf(fixer!.id);
    const received = (all: SessionEvent[]) =>
      all
        .filter((e) => e.type === T.EVENT_TYPE_MESSAGE_RECEIVED)
        .map((e) => [dataOf(e).from_kind, dataOf(e).from, dataOf(e).deliver]);
    expect(received(rev)).toEqual([
      ['person', 'review-and-fix', 'turn'],
      ['session', fixer!.name, 'turn'],
    ]);
    expect(received(fix)).toEqual([['session', reviewer!.name, 'turn']]);
    expect(rev.filter((e) => e.type === T.EVENT_TYPE_TURN_COMPLETED)).toHaveLength(2);
    expect(fix.filter((e) => e.type === T.EVENT_TYPE_TURN_COMPLETED)).toHaveLength(1);
    // Every tool call of the agents succeeded (the mock's reply says "failed" otherwise).
    for (const e of [...rev, ...fix].filter((e) => e.type === T.EVENT_TYPE_AGENT_MESSAGE)) {
      expect(e.text).not.toContain('failed');
    }
    // The example stopped both (the streams above ended at SESSION_STOPPED).
    for (const s of [reviewer!, fixer!]) {
      const info = await bridge.call((c) => c.getSession, { sessionId: s.id });
      expect(info.status).toBe(SessionStatus.SESSION_STATUS_STOPPED);
    }
  }, 60_000);
});
