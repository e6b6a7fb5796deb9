import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PermissionAsk } from '@agent-bridge/providers';
import { within } from '@agent-bridge/waits';
import { afterAll, describe, expect, it } from 'vitest';
import type { BridgeEvent } from '../events/event.js';
import { gateFixture } from '../testing/gate-fixture.js';
import type { Caller } from '../types.js';

// Each lifetime a permission request lives in (daemon ⊃ session ⊃ turn ⊃
// request) ends it exactly once, with its own cause, and leaves no timer.

const root = realpathSync(mkdtempSync(join(tmpdir(), 'scopes-')));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const alice: Caller = { projectId: 'alpha', subject: 'alice' };
// Well inside the idle timeout of the test settings, so only the request's own deadline fires.
const TIMEOUT_MS = 5_000;
const ask = (turnId: string): PermissionAsk => ({
  tool: 'Bash',
  summary: 'make',
  input: { command: 'make' },
  options: ['allow_once', 'deny'],
  turnId,
});

const setup = () =>
  gateFixture({ root, caller: alice, timeoutMs: TIMEOUT_MS, policy: { fallback: 'allow' } });

const resolutions = (events: BridgeEvent[]) =>
  events
    .filter((e) => e.type === 'PERMISSION_RESOLVED')
    .map((e) => `${e.turnId} ${String(e.data?.decision)} ${String(e.data?.decided_by)}`);

describe('permission requests end with the scope they live in', () => {
  it('a turn: its own requests, once, before its TURN_COMPLETED; the other turn waits; no timer left for them', async () => {
    const { clock, start } = setup();
    const s = await start();
    const idle = clock.pending;
    const mine = s.agent.ask(ask('turn-1'));
    const other = s.agent.ask(ask('turn-2'));
    expect(clock.pending).toBe(idle + 2);
    s.agent.completeTurn('turn-1');
    expect(await within('the turn-1 answer', mine)).toMatchObject({ decidedBy: 'turn_end' });
    expect(clock.pending).toBe(idle + 1);
    s.agent.completeTurn('turn-1'); // a second end of the same turn changes nothing
    clock.advance(TIMEOUT_MS);
    expect(await within('the turn-2 answer', other)).toMatchObject({ decidedBy: 'timeout' });
    expect(resolutions(await s.sofar())).toEqual([
      'turn-1 deny turn_end',
      'turn-2 allow_once timeout',
    ]);
    expect(clock.pending).toBe(idle);
  });

  it('a session: a stop ends every turn in it, each request once, before the terminal event', async () => {
    const { clock, manager, start } = setup();
    const s = await start();
    const idle = clock.pending;
    const answers = [s.agent.ask(ask('turn-1')), s.agent.ask(ask('turn-2'))];
    await within('the stop', manager.stop(alice, s.id, false));
    for (const a of answers)
      expect(await within('an answer', a)).toMatchObject({ decidedBy: 'stop' });
    clock.advance(TIMEOUT_MS);
    const events = await s.history();
    expect(resolutions(events)).toEqual(['turn-1 allow_once stop', 'turn-2 allow_once stop']);
    expect(events.at(-1)?.type).toBe('SESSION_STOPPED');
    expect(clock.pending).toBeLessThanOrEqual(idle);
    // Asked after the session ended: answered at once, never left waiting.
    expect(await within('a late answer', s.agent.ask(ask('turn-3')))).toMatchObject({
      decidedBy: 'stop',
    });
  });

  it('the daemon: shutdown ends every session, each request once, as "shutdown"', async () => {
    const { clock, manager, start } = setup();
    const a = await start();
    const b = await start();
    const answers = [a.agent.ask(ask('turn-1')), b.agent.ask(ask('turn-1'))];
    await within('the shutdown', manager.shutdown());
    for (const x of answers) {
      expect(await within('an answer', x)).toMatchObject({ decidedBy: 'shutdown' });
    }
    clock.advance(TIMEOUT_MS);
    for (const s of [a, b]) {
      expect(resolutions(await s.history())).toEqual(['turn-1 allow_once shutdown']);
    }
    expect(clock.pending).toBe(0);
  });

  it('a call: a reader that goes leaves the requests waiting and nothing of its own behind', async () => {
    const { clock, manager, start } = setup();
    const s = await start();
    const waiting = s.agent.ask(ask('turn-1'));
    const call = new AbortController();
    const reader = manager
      .openStream(alice, { sessionId: s.id, afterSeq: 0, subscriberId: '' }, call.signal, {
        maxEvents: 100,
        maxBytes: 1 << 20,
      })
      [Symbol.asyncIterator]();
    await within('the first batch', reader.next());
    const next = reader.next();
    call.abort();
    expect((await within('the reader to end', next)).done).toBe(true);
    await reader.return?.();
    expect(manager.get(alice, s.id).subscriberCount).toBe(0);
    clock.advance(TIMEOUT_MS);
    expect(await within('the answer', waiting)).toMatchObject({ decidedBy: 'timeout' });
  });
});
