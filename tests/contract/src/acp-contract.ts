import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { type ProviderAuthState, SessionStatus } from '@agent-bridge/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  contractDaemon,
  expectConcurrentStart,
  expectInterruptAgreement,
  expectInterruptAtTurnStart,
  expectOneTurn,
  expectPermission,
  expectToolTurn,
  ofType,
  show,
  T,
  tempHome,
  turnsDone,
} from './contract-harness.js';
import type { FakeModelApi } from './fake-apis/index.js';
import { gateContract, gateProviders, type Refusal } from './permission-contract.js';

type ProviderConfig = Record<string, unknown>;

export interface AcpContract {
  /** Provider id in the daemon's config (also the adapter's flavour). */
  id: string;
  version: string;
  authState: ProviderAuthState;
  api: FakeModelApi;
  /** The provider's config for an API key, with its own HOME under `home`. */
  provider(key: string, home: string, extra?: ProviderConfig): ProviderConfig;
  /** The usage the text turn's TURN_COMPLETED carries (from the fake API, through the CLI). */
  textUsage: Record<string, number>;
  /** The refusal of a USE_TOOL turn reached the model (see GateContract.refused). */
  refused(r: Refusal): void | Promise<void>;
}

/**
 * The contract every ACP agent is held to through the daemon: the same
 * cases for opencode and gemini, each file with its own fake API and daemon.
 */
export function acpContract(c: AcpContract): void {
  const home = tempHome(c.id);
  let bridge: Awaited<ReturnType<typeof contractDaemon>>;
  const acp = (extra: ProviderConfig = {}): ProviderConfig => ({
    adapter: 'acp',
    turn_timeout: '90s',
    // opencode needs several seconds for its first start on a loaded machine.
    startup_timeout: '60s',
    ...extra,
  });

  beforeAll(async () => {
    await c.api.start();
    bridge = await contractDaemon({
      [c.id]: acp(c.provider('sk-test', join(home.home, 'plain'))),
      [`${c.id}_allow`]: acp(
        c.provider('sk-test', join(home.home, 'allow'), { permissions: 'allow' }),
      ),
      [`${c.id}_bad`]: acp(c.provider('sk-bad', join(home.home, 'bad'))),
      // Seven opencode processes starting side by side on two cores took over
      // 60 s each here, with or without the bridge's tool server (the eight
      // starts and turns took 145 s in all).
      [`${c.id}_fresh`]: acp({
        ...c.provider('sk-test', join(home.home, 'fresh')),
        startup_timeout: '240s',
      }),
      ...gateProviders(c.id, 'execute', (gate) =>
        acp(c.provider('sk-test', join(home.home, `gate-${Object.values(gate).join('-')}`), gate)),
      ),
    });
  });

  afterAll(async () => {
    await bridge?.close();
    await c.api.stop();
    home.cleanup();
  });

  describe(`${c.id} ${c.version} (ACP) through the daemon`, () => {
    it('ListProviders reports the real version and an auth state', async () => {
      expect(await bridge.probed(c.id)).toMatchObject({
        available: true,
        version: c.version,
        authState: c.authState,
      });
    });

    it('a text turn with deltas, then a second turn in the same session', async () => {
      const s = await bridge.start(c.id);
      await s.send('hello');
      const first = await s.events(turnsDone(1));
      expectOneTurn(first);
      expect(ofType(first, T.EVENT_TYPE_AGENT_MESSAGE).at(-1)?.text, show(first)).toBe(
        'Hello from fake model.',
      );
      expect(
        ofType(first, T.EVENT_TYPE_AGENT_MESSAGE_DELTA)
          .map((e) => e.text)
          .join(''),
      ).toBe('Hello from fake model.');
      expect(ofType(first, T.EVENT_TYPE_TURN_COMPLETED)[0]?.data).toMatchObject({
        stop_reason: 'end_turn',
        interrupted: false,
        usage: c.textUsage,
      });
      await s.send('again');
      const both = await s.events(turnsDone(2));
      expect(ofType(both, T.EVENT_TYPE_TURN_COMPLETED)[1]?.data, show(both)).toMatchObject({
        stop_reason: 'end_turn',
      });
      expect(ofType(both, T.EVENT_TYPE_AGENT_MESSAGE)).toHaveLength(2);
      await s.stop();
    });

    it('a tool call: the permission request is answered by policy, the tool runs', async () => {
      rmSync(join(bridge.daemon.repo, 'created.txt'), { force: true });
      const s = await bridge.start(`${c.id}_allow`);
      await s.send('please USE_TOOL');
      const all = await s.events(turnsDone(1));
      expectOneTurn(all);
      const result = expectToolTurn(all, 'Tool ran fine.');
      expect(result.data, show(all)).toMatchObject({ status: 'completed', is_error: false });
      expectPermission(
        all,
        { tool: 'execute', options: ['allow_once', 'allow_session', 'deny'], mode: 'allow' },
        { decision: 'allow_once', decided_by: 'policy' },
      );
      expect(ofType(all, T.EVENT_TYPE_PERMISSION_REQUESTED)[0]?.data).not.toHaveProperty(
        'expires_at',
      );
      expect(existsSync(join(bridge.daemon.repo, 'created.txt'))).toBe(true);
      expect(c.api.served).toContain('after-tool');
      await s.stop();
    });

    it('a tool call under permissions: deny is refused, recorded, and nothing runs', async () => {
      rmSync(join(bridge.daemon.repo, 'created.txt'), { force: true });
      const s = await bridge.start(c.id);
      await s.send('please USE_TOOL');
      const all = await s.events(turnsDone(1));
      expectPermission(
        all,
        { tool: 'execute', mode: 'deny' },
        { decision: 'deny', decided_by: 'policy' },
      );
      expect(existsSync(join(bridge.daemon.repo, 'created.txt'))).toBe(false);
      await s.stop();
    });

    it('an interrupt ends a hanging turn; the session lives on', async () => {
      const s = await bridge.start(c.id);
      await s.send('HANG now');
      await s.events((all) => ofType(all, T.EVENT_TYPE_AGENT_MESSAGE_DELTA).length > 0);
      expect((await s.interrupt()).interrupted).toBe(true);
      const all = await s.events(turnsDone(1));
      expect(ofType(all, T.EVENT_TYPE_TURN_COMPLETED)[0]?.data, show(all)).toMatchObject({
        stop_reason: 'cancelled',
        interrupted: true,
      });
      await s.send('hello');
      const next = await s.events(turnsDone(2));
      expect(ofType(next, T.EVENT_TYPE_TURN_COMPLETED)[1]?.data, show(next)).toMatchObject({
        stop_reason: 'end_turn',
      });
      expect(ofType(next, T.EVENT_TYPE_AGENT_MESSAGE).at(-1)?.text).toBe('Hello from fake model.');
      expect((await s.get()).status).toBe(SessionStatus.SESSION_STATUS_RUNNING);
      await s.stop();
    });

    it('an interrupt sent right at TURN_STARTED is not lost', async () => {
      await expectInterruptAtTurnStart(await bridge.start(c.id), { stop_reason: 'cancelled' });
    });

    it('an interrupt racing the end of a turn: the answer and TURN_COMPLETED agree', async () => {
      await expectInterruptAgreement(await bridge.start(c.id));
    });

    it('sessions started at the same moment in a fresh HOME all start', async () => {
      await expectConcurrentStart(() => bridge.start(`${c.id}_fresh`));
    }, 400_000);

    it('a rejected API key surfaces as a clear AGENT_ERROR', async () => {
      const s = await bridge.start(`${c.id}_bad`);
      await s.send('hello');
      const all = await s.events(
        (evs) => turnsDone(1)(evs) && ofType(evs, T.EVENT_TYPE_AGENT_ERROR).length > 0,
      );
      const errors = ofType(all, T.EVENT_TYPE_AGENT_ERROR);
      expect(errors.map((e) => e.text).join('\n'), show(all)).toMatch(
        /API key|401|invalid|authentic/i,
      );
      await s.stop();
    });
  });

  gateContract({
    id: c.id,
    bridge: () => bridge,
    api: c.api,
    tool: 'execute',
    requested: { options: ['allow_once', 'allow_session', 'deny'] },
    ran: { status: 'completed', is_error: false },
    refused: c.refused,
  });
}
