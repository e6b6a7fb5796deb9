import { randomUUID } from 'node:crypto';
import { within } from '@agent-bridge/waits';
import type { AuditRecord } from '../audit.js';
import type { BridgeEvent } from '../events/event.js';
import type { PermissionPolicy } from '../permissions/permission-policy.js';
import { SessionManager } from '../sessions/session-manager.js';
import type { Caller } from '../types.js';
import { FakeClock } from './fake-clock.js';
import { FakeProvider } from './fake-provider.js';
import { readToEnd, silentLogger, testSettings } from './fixtures.js';

/**
 * A manager whose sessions run interruptible fake agents under the `ask`
 * permission policy (changed by `policy`), on a fake clock, in `root`, for
 * `caller`'s project; the audit records it writes. `start` starts a session
 * and gives its agent and two views of its events.
 */
export function gateFixture(o: {
  root: string;
  caller: Caller;
  timeoutMs: number;
  policy?: Partial<PermissionPolicy>;
}) {
  const clock = new FakeClock();
  const provider = new FakeProvider('fake', { interrupt: true });
  const audit: AuditRecord[] = [];
  const manager = new SessionManager({
    settings: testSettings({
      allowedPaths: [o.root],
      permissionPolicy: () => ({
        mode: 'ask',
        timeoutMs: o.timeoutMs,
        fallback: 'deny',
        autoAllow: [],
        ...o.policy,
      }),
    }),
    providers: new Map([[provider.id, provider]]),
    logger: silentLogger,
    clock,
    timers: clock,
    audit: (r) => audit.push(r),
  });
  const start = async () => {
    const snap = await within(
      'the start',
      manager.start(o.caller, {
        projectId: o.caller.projectId,
        sessionId: randomUUID(),
        repoPath: o.root,
        provider: 'fake',
        agentOpts: {},
      }),
    );
    const agent = provider.agents.at(-1)!;
    const id = snap.sessionId;
    const events = () =>
      manager
        .openStream(
          o.caller,
          { sessionId: id, afterSeq: 0, subscriberId: '' },
          AbortSignal.timeout(5000),
          { maxEvents: 10_000, maxBytes: 1 << 24 },
        )
        [Symbol.asyncIterator]();
    /** Every event so far (the session keeps running). */
    const sofar = async (): Promise<BridgeEvent[]> => {
      const it = events();
      const r = await within('the stored events', it.next());
      await it.return?.();
      return r.done ? [] : r.value.events();
    };
    /** Every event to the terminal one (the session must end). */
    const history = () => readToEnd(events());
    return { id, agent, sofar, history };
  };
  return { clock, manager, audit, start };
}
