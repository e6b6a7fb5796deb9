import { ofType, type sessionClient, showEvents, turnsDone } from '@agent-bridge/harness';
import { EventType, type SessionEvent, SessionStatus } from '@agent-bridge/proto';
import { expect } from 'vitest';

const T = EventType;

// What every adapter promises, checked the same way for each real CLI.

/**
 * The turn's shape every adapter promises: TURN_STARTED after the input and
 * before any agent event, one turn id on all of them, TURN_COMPLETED last.
 */
export function expectOneTurn(all: SessionEvent[]): void {
  const started = all.findIndex((e) => e.type === EventType.EVENT_TYPE_TURN_STARTED);
  const input = all.findIndex((e) => e.type === EventType.EVENT_TYPE_INPUT_RECEIVED);
  const turn = all.slice(started);
  // The turn's own events (collaboration events the daemon records meanwhile carry no turn).
  const agent = turn.filter(
    (e) =>
      e.type >= EventType.EVENT_TYPE_TURN_STARTED &&
      e.type <= EventType.EVENT_TYPE_PERMISSION_RESOLVED,
  );
  const why = showEvents(all);
  expect(started, why).toBeGreaterThan(input);
  expect(input, why).toBeGreaterThanOrEqual(0);
  expect(new Set(agent.map((e) => e.turnId)).size, why).toBe(1);
  expect(agent[0]?.turnId, why).not.toBe('');
  expect(agent.at(-1)?.type, why).toBe(EventType.EVENT_TYPE_TURN_COMPLETED);
}

/**
 * A tool turn in the order the mapping promises: a TOOL_CALL, then the
 * TOOL_RESULT of the same call (by its id), then the model's final
 * AGENT_MESSAGE. Returns the result's event.
 */
export function expectToolTurn(all: SessionEvent[], finalText: string): SessionEvent {
  const why = showEvents(all);
  const result = all.findIndex((e) => e.type === EventType.EVENT_TYPE_TOOL_RESULT);
  expect(result, why).toBeGreaterThan(0);
  const id = idOf(all[result]);
  expect(id, why).toBeTruthy();
  const call = all.findIndex((e) => e.type === EventType.EVENT_TYPE_TOOL_CALL && idOf(e) === id);
  expect(call, why).toBeGreaterThanOrEqual(0);
  expect(call, why).toBeLessThan(result);
  const messages = all
    .map((e, i) => [e, i] as const)
    .filter(([e]) => e.type === EventType.EVENT_TYPE_AGENT_MESSAGE);
  const [last, at] = messages.at(-1) ?? [undefined, -1];
  expect(last?.text, why).toBe(finalText);
  expect(at, why).toBeGreaterThan(result);
  return all[result]!;
}

/**
 * A permission request and its resolution, as the gate records them: the
 * first PERMISSION_REQUESTED of `all` (matching `requested`), then the
 * PERMISSION_RESOLVED of the same request id and tool (matching
 * `resolved`), in the same turn; the request names a tool call the turn
 * announced, and that call's TOOL_RESULT, if any, comes after the decision.
 */
export function expectPermission(
  all: SessionEvent[],
  requested: Record<string, unknown>,
  resolved: Record<string, unknown>,
): { requested: SessionEvent; resolved: SessionEvent } {
  const why = showEvents(all);
  const asked = all.findIndex((e) => e.type === EventType.EVENT_TYPE_PERMISSION_REQUESTED);
  expect(asked, why).toBeGreaterThanOrEqual(0);
  const req = all[asked]!;
  const id = req.data?.request_id;
  expect(id, why).toMatch(/^perm-/);
  const done = all.findIndex(
    (e) => e.type === EventType.EVENT_TYPE_PERMISSION_RESOLVED && e.data?.request_id === id,
  );
  expect(done, why).toBeGreaterThan(asked);
  const res = all[done]!;
  expect(req.data, why).toMatchObject(requested);
  expect(res.data, why).toMatchObject({ tool: req.data?.tool, ...resolved });
  expect(res.turnId, why).toBe(req.turnId);
  expect(req.turnId, why).not.toBe('');
  const callId = req.data?.tool_call_id;
  expect(callId, why).toBeTruthy();
  expect(
    all.some((e) => e.type === EventType.EVENT_TYPE_TOOL_CALL && idOf(e) === callId),
    why,
  ).toBe(true);
  const result = all.findIndex(
    (e) => e.type === EventType.EVENT_TYPE_TOOL_RESULT && idOf(e) === callId,
  );
  if (result >= 0) expect(result, why).toBeGreaterThan(done);
  return { requested: req, resolved: res };
}

const idOf = (e: SessionEvent | undefined) => e?.data?.tool_call_id ?? e?.data?.tool_use_id;

type Session = Awaited<ReturnType<ReturnType<typeof sessionClient>['start']>>;

/**
 * InterruptTurn sent the moment TURN_STARTED is seen, which can be before
 * the agent itself has begun the turn. The interrupt must not be lost: the
 * answer says interrupted, the turn's TURN_COMPLETED agrees (`interrupted:
 * true` beside the agent's own stop reason `stop`), and the session takes
 * another turn. The prompt hangs the fake model, so a lost interrupt shows
 * as a turn that never ends.
 */
export async function expectInterruptAtTurnStart(
  s: Session,
  stop: Record<string, unknown>,
): Promise<void> {
  await s.send('HANG at once');
  await s.events((all) => ofType(all, T.EVENT_TYPE_TURN_STARTED).length > 0);
  const res = await s.interrupt();
  const all = await s.events(turnsDone(1));
  const why = showEvents(all);
  expect(res.interrupted, why).toBe(true);
  expectOneTurn(all);
  const done = ofType(all, T.EVENT_TYPE_TURN_COMPLETED)[0];
  expect(res.turnId, why).toBe(done?.turnId);
  expect(done?.data, why).toMatchObject({ interrupted: true, ...stop });
  await s.send('hello');
  const next = await s.events(turnsDone(2));
  expect(ofType(next, T.EVENT_TYPE_TURN_COMPLETED)[1]?.data, showEvents(next)).toMatchObject({
    interrupted: false,
  });
  await s.stop();
}

/**
 * InterruptTurn racing the end of a short turn (sent at its first delta):
 * either outcome is fine, but the answer and TURN_COMPLETED must tell the
 * same story, and an interrupt that came too late says so.
 */
export async function expectInterruptAgreement(s: Session): Promise<void> {
  await s.send('hello');
  await s.events((all) => ofType(all, T.EVENT_TYPE_AGENT_MESSAGE_DELTA).length > 0);
  const res = await s.interrupt();
  const all = await s.events(turnsDone(1));
  const done = ofType(all, T.EVENT_TYPE_TURN_COMPLETED)[0];
  expect(done?.data?.interrupted, showEvents(all)).toBe(res.interrupted);
  // The delta was seen, but the turn may have ended before the interrupt
  // reached the daemon (its events are committed, and read, together): then
  // no turn was running, and the answer says so; else it names this turn.
  if (res.turnId === '') expect(res.interrupted, showEvents(all)).toBe(false);
  else expect(res.turnId, showEvents(all)).toBe(done?.turnId);
  await s.send('hello');
  const next = await s.events(turnsDone(2));
  expect(ofType(next, T.EVENT_TYPE_TURN_COMPLETED)[1]?.data, showEvents(next)).toMatchObject({
    interrupted: false,
  });
  await s.stop();
}

/** How many sessions of one CLI the contract starts at once in a fresh home. */
const CONCURRENT_STARTS = 8;

/**
 * Sessions of one provider in one fresh home, started at the same moment:
 * every one starts and takes a turn. The daemon runs the first start-up in
 * the home alone (the CLI creates its state there), then the others side
 * by side, none spending its startup_timeout while it waits. Other versions
 * of the CLIs break each other when they first start together (the fakes
 * of the default suite reproduce that); this shows that the real CLIs,
 * once their home exists, start side by side without harm.
 */
export async function expectConcurrentStart(
  start: () => Promise<Session>,
  sessions = CONCURRENT_STARTS,
): Promise<void> {
  const all = await Promise.all(Array.from({ length: sessions }, () => start()));
  // A start that failed says why in its events: show the first two.
  const failed = all.filter((s) => s.started.status !== SessionStatus.SESSION_STATUS_RUNNING);
  const why = await Promise.all(
    failed
      .slice(0, 2)
      .map(async (s) =>
        showEvents(
          await s.events((e) => ofType(e, T.EVENT_TYPE_SESSION_FAILED).length > 0, 30_000),
        ),
      ),
  );
  expect(
    all.map((s) => s.started.status),
    why.join('\n---\n'),
  ).toEqual(all.map(() => SessionStatus.SESSION_STATUS_RUNNING));
  await Promise.all(all.map((s) => s.send('hello')));
  for (const s of all) {
    const events = await s.events(turnsDone(1));
    expect(ofType(events, T.EVENT_TYPE_TURN_COMPLETED)[0]?.error, showEvents(events)).toBe('');
  }
  await Promise.all(all.map((s) => s.stop()));
}
