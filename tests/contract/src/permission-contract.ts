import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { PermissionDecision, type SessionEvent } from '@agent-bridge/proto';
import { describe, expect, it } from 'vitest';
import {
  type contractDaemon,
  expectOneTurn,
  expectPermission,
  ofType,
  show,
  T,
  turnsDone,
} from './contract-harness.js';
import type { FakeModelApi, Recorded } from './fake-apis/index.js';

type Bridge = Awaited<ReturnType<typeof contractDaemon>>;
type Session = Awaited<ReturnType<Bridge['start']>>;
type ProviderConfig = Record<string, unknown>;

/** What the test's client is, as PERMISSION_RESOLVED names it (see contractDaemon). */
const CALLER = {
  subject: 'tester',
  issuer: 'control',
  certificate: expect.stringContaining('control-plane'),
};

/**
 * The providers the approval-gate cases use, `<id>_ask…`, each made by
 * `make` from the gate settings: `permissions: ask` answered by the client;
 * unanswered for 1 s with `permission_default` deny, then allow; and
 * `auto_allow` of the CLI's tool name.
 */
export function gateProviders(
  id: string,
  tool: string,
  make: (gate: ProviderConfig) => ProviderConfig,
): Record<string, ProviderConfig> {
  const ask = { permissions: 'ask' };
  return {
    [`${id}_ask`]: make(ask),
    [`${id}_ask_timeout`]: make({
      ...ask,
      permission_timeout: '1s',
      permission_default: 'deny',
    }),
    [`${id}_ask_timeout_allow`]: make({
      ...ask,
      permission_timeout: '1s',
      permission_default: 'allow',
    }),
    [`${id}_auto`]: make({ ...ask, auto_allow: [tool] }),
  };
}

/** What a refused USE_TOOL turn left behind, for `GateContract.refused`. */
export interface Refusal {
  /** The session's events up to the end of the turn. */
  all: SessionEvent[];
  /** The model requests the CLI made since the input was sent (a getter: later turns add to it). */
  requests(): Recorded[];
  /** What the driver told the agent, where its protocol carries a message. */
  message: string;
  /** The session, still running (the hook may take another turn). */
  session: Session;
}

export interface GateContract {
  /** The provider id the `gateProviders` names start with. */
  id: string;
  bridge(): Bridge;
  api: FakeModelApi;
  /** The tool name the CLI's request carries (PERMISSION_REQUESTED `tool`, and what `auto_allow` lists). */
  tool: string;
  /** What else every PERMISSION_REQUESTED of the USE_TOOL turn carries. */
  requested: Record<string, unknown>;
  /** The TOOL_RESULT data of the command when it ran. */
  ran: Record<string, unknown>;
  /**
   * The refusal reached the agent: checked on the turn's events and the
   * model requests the CLI made after the input was sent; `message` is what
   * the driver told the agent (claude and codex carry it, ACP cannot).
   */
  refused(r: Refusal): void | Promise<void>;
}

/**
 * `permissions: ask` through the daemon with a real CLI: the client's
 * answer (allow, deny with a reason), no answer (the default after
 * `permission_timeout`), and `auto_allow`. Each case runs the fake model's
 * USE_TOOL script (`touch created.txt`) in the daemon's repository.
 */
export function gateContract(c: GateContract): void {
  const created = () => join(c.bridge().daemon.repo, 'created.txt');
  /** Starts a session, sends USE_TOOL; `requests` are the model requests made since. */
  const useTool = async (provider: string) => {
    rmSync(created(), { force: true });
    const s = await c.bridge().start(provider);
    const from = c.api.requests.length;
    await s.send('please USE_TOOL');
    return { s, requests: () => c.api.requests.slice(from) };
  };
  const firstRequest = async (s: Session) => {
    const seen = await s.events((all) => ofType(all, T.EVENT_TYPE_PERMISSION_REQUESTED).length > 0);
    return ofType(seen, T.EVENT_TYPE_PERMISSION_REQUESTED)[0]!;
  };
  const expectRan = (all: SessionEvent[]) => {
    const why = show(all);
    expect(existsSync(created()), why).toBe(true);
    expect(ofType(all, T.EVENT_TYPE_TOOL_RESULT).at(-1)?.data, why).toMatchObject(c.ran);
    expect(ofType(all, T.EVENT_TYPE_AGENT_MESSAGE).at(-1)?.text, why).toBe('Tool ran fine.');
  };
  /** The request waited `timeoutMs` from when it was recorded, by its `expires_at`. */
  const expectWindow = (req: SessionEvent, timeoutMs: number) => {
    const expires = Date.parse(String(req.data?.expires_at));
    const at = req.timestamp?.getTime() ?? Number.NaN;
    expect(Math.abs(expires - at - timeoutMs), show([req])).toBeLessThan(1000);
  };

  describe(`${c.id}: permissions: ask (the approval gate)`, () => {
    it('a request the client allows (allow_once) runs, decided by the caller', async () => {
      const { s } = await useTool(`${c.id}_ask`);
      const req = await firstRequest(s);
      const shape = {
        tool: c.tool,
        mode: 'ask',
        options: expect.arrayContaining(['allow_once', 'deny']),
        ...c.requested,
      };
      expect(req.data, show([req])).toMatchObject({
        ...shape,
        expires_at: expect.any(String),
        default: 'deny',
      });
      // permission_timeout's default, 5 minutes.
      expectWindow(req, 300_000);
      const { seq } = await c
        .bridge()
        .respond(
          s.sessionId,
          String(req.data?.request_id),
          PermissionDecision.PERMISSION_DECISION_ALLOW_ONCE,
        );
      const all = await s.events(turnsDone(1));
      expectOneTurn(all);
      const { resolved } = expectPermission(all, shape, {
        decision: 'allow_once',
        decided_by: 'caller',
        caller: CALLER,
      });
      expect(Number(resolved.seq)).toBe(Number(seq));
      expectRan(all);
      expect(c.api.served).toContain('after-tool');
      await s.stop();
    });

    it('a request the client denies with a reason does not run, and the agent is told', async () => {
      const { s, requests } = await useTool(`${c.id}_ask`);
      const req = await firstRequest(s);
      const reason = 'not in this repository';
      await c
        .bridge()
        .respond(
          s.sessionId,
          String(req.data?.request_id),
          PermissionDecision.PERMISSION_DECISION_DENY,
          reason,
        );
      const all = await s.events(turnsDone(1));
      expectOneTurn(all);
      expectPermission(
        all,
        { tool: c.tool, mode: 'ask' },
        { decision: 'deny', decided_by: 'caller', reason, caller: CALLER },
      );
      expect(existsSync(created()), show(all)).toBe(false);
      await c.refused({
        all,
        requests,
        message: `denied by the bridge client: ${reason}`,
        session: s,
      });
      await s.stop();
    });

    it('an unanswered request falls to permission_default deny after permission_timeout', async () => {
      const { s, requests } = await useTool(`${c.id}_ask_timeout`);
      const all = await s.events(turnsDone(1));
      expectOneTurn(all);
      const { requested, resolved } = expectPermission(
        all,
        { tool: c.tool, mode: 'ask', default: 'deny', expires_at: expect.any(String) },
        { decision: 'deny', decided_by: 'timeout' },
      );
      expectWindow(requested, 1000);
      expect(resolved.data?.caller, show(all)).toBeUndefined();
      expect(existsSync(created()), show(all)).toBe(false);
      await c.refused({ all, requests, message: 'denied by the bridge (timeout)', session: s });
      await s.stop();
    });

    it('an unanswered request with permission_default allow runs after permission_timeout', async () => {
      const { s } = await useTool(`${c.id}_ask_timeout_allow`);
      const all = await s.events(turnsDone(1));
      expectOneTurn(all);
      expectPermission(
        all,
        { tool: c.tool, mode: 'ask', default: 'allow_once', expires_at: expect.any(String) },
        { decision: 'allow_once', decided_by: 'timeout' },
      );
      expectRan(all);
      await s.stop();
    });

    it('an interrupt while a request waits resolves it (decided_by interrupt) and ends the turn', async () => {
      const { s } = await useTool(`${c.id}_ask`);
      const req = await firstRequest(s);
      const res = await s.interrupt();
      const all = await s.events(turnsDone(1));
      const why = show(all);
      expectOneTurn(all);
      expectPermission(
        all,
        { tool: c.tool, mode: 'ask' },
        { decision: 'deny', decided_by: 'interrupt' },
      );
      expect(res.turnId, why).toBe(req.turnId);
      expect(res.interrupted, why).toBe(true);
      expect(ofType(all, T.EVENT_TYPE_TURN_COMPLETED)[0]?.data, why).toMatchObject({
        interrupted: true,
      });
      expect(existsSync(created()), why).toBe(false);
      await s.send('hello');
      const next = await s.events(turnsDone(2));
      expect(ofType(next, T.EVENT_TYPE_TURN_COMPLETED)[1]?.data, show(next)).toMatchObject({
        interrupted: false,
      });
      await s.stop();
    });

    it(`auto_allow [${c.tool}] runs the tool without asking`, async () => {
      const { s } = await useTool(`${c.id}_auto`);
      const all = await s.events(turnsDone(1));
      expectOneTurn(all);
      const { requested } = expectPermission(
        all,
        { tool: c.tool, mode: 'ask', ...c.requested },
        { decision: 'allow_once', decided_by: 'auto_allow' },
      );
      expect(requested.data, show(all)).not.toHaveProperty('expires_at');
      expect(requested.data, show(all)).not.toHaveProperty('default');
      expectRan(all);
      await s.stop();
    });
  });
}
