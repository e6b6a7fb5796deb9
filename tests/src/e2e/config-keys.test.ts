import { collect, status, useDaemon, waitFor } from '@agent-bridge/harness';
import { EventType } from '@agent-bridge/proto';
import { describe, expect, it } from 'vitest';

// Keys not covered elsewhere: sessions.event_buffer_bytes, sessions.max_subscribers,
// providers.<id>.env, logging.level and logging.redact_patterns.
const bridge = useDaemon({
  config: {
    sessions: { event_buffer_size: 100_000, event_buffer_bytes: '64KiB', max_subscribers: 2 },
    providers: { envcheck: { env: { AGENT_API_BASE: 'http://127.0.0.1:1/v1' } } },
    logging: { level: 'debug', redact_patterns: ['(?i)customer-id=\\S+'] },
  },
  fakeProviders: {
    lines: ['lines', '300', '1000'],
    envcheck: ['argv'],
    secrets: ['secrets'],
    echo: ['echo'],
  },
});

const start = async (provider: string) => (await bridge.sessions().start(provider)).sessionId;

const get = (sessionId: string) => bridge.call((c) => c.getSession, { sessionId });

describe('config keys change behaviour', () => {
  it('sessions.event_buffer_bytes bounds the ring by bytes, not only by count', async () => {
    const sessionId = await start('lines');
    await waitFor(
      'the 300 lines (seq 302)',
      async () => Number((await get(sessionId)).lastSeq) >= 302,
    );
    const s = await get(sessionId);
    const retained = Number(s.lastSeq) - Number(s.oldestSeq) + 1;
    // 300 lines of 1000 bytes fit the 100k-event count easily; only the 64 KiB byte bound evicts.
    expect(retained).toBeGreaterThan(40);
    // 64 KiB / (1000 bytes + ~30 of protobuf + 13 of index) ≈ 62, less a chunk of free room.
    expect(retained).toBeLessThan(70);
    expect(Number(s.oldestSeq)).toBeGreaterThan(1);
  });

  it('sessions.max_subscribers bounds concurrent readers of a session', async () => {
    const sessionId = await start('echo');
    const a = bridge.stream({ sessionId });
    const b = bridge.stream({ sessionId });
    const ra = collect(a);
    const rb = collect(b);
    await waitFor('two readers', async () => (await get(sessionId)).subscriberCount === 2);
    const third = await collect(bridge.stream({ sessionId }));
    expect(third.error?.code).toBe(status.RESOURCE_EXHAUSTED);
    a.cancel();
    b.cancel();
    await Promise.all([ra, rb]);
    await waitFor('no readers', async () => (await get(sessionId)).subscriberCount === 0);
    const fourth = await collect(bridge.stream({ sessionId }), () => true);
    expect(fourth.error).toBeUndefined();
  });

  it('providers.<id>.env reaches the child explicitly; the daemon environment does not', async () => {
    const sessionId = await start('envcheck');
    const { events } = await collect(bridge.stream({ sessionId, afterSeq: 0n }), (e) =>
      e.text.startsWith('{"cwd"'),
    );
    const { cwd, env } = JSON.parse(events.at(-1)!.text) as {
      cwd: string;
      env: Record<string, string>;
    };
    expect(cwd).toBe(bridge.daemon.repo);
    expect(env.AGENT_API_BASE).toBe('http://127.0.0.1:1/v1');
    expect(env.PATH).toBeTruthy();
    expect(env.BRIDGE_READY_FD).toBeUndefined();
    expect(Object.keys(env).filter((k) => k.startsWith('npm_') || k.startsWith('VITEST'))).toEqual(
      [],
    );
  });

  it('logging.redact_patterns and the built-in patterns redact events and logs', async () => {
    const sessionId = await start('secrets');
    await bridge.call((c) => c.sendInput, {
      sessionId,
      text: 'customer-id=C-998877 please',
      idempotencyKey: '',
    });
    const { events } = await collect(bridge.stream({ sessionId, afterSeq: 0n }), (e) =>
      e.text.startsWith('echo:'),
    );
    const text = events.map((e) => e.text).join('\n');
    expect(text).not.toContain('sk-live-1234567890');
    expect(text).not.toContain('abcdefghijklmnopqrstuvwxyz');
    expect(text).not.toContain('C-998877');
    expect(text).toContain('[REDACTED]');
    expect(events.find((e) => e.type === EventType.EVENT_TYPE_INPUT_RECEIVED)?.text).toBe(
      '[REDACTED] please',
    );
    // logging.level debug logs each call; the token never appears.
    expect(bridge.daemon.output()).toMatch(/"method":"SendInput".*"outcome":"allow".*"msg":"call"/);
    expect(bridge.daemon.output()).not.toContain(bridge.token);
  });
});
