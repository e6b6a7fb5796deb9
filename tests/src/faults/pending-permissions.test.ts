/**
 * Every permission request an agent is waiting on is resolved, one way or
 * another, in every fault case: an interrupt, a stop, the agent killed, the
 * daemon shut down, and nobody answering. Each time the request gets exactly
 * one PERMISSION_RESOLVED (before the turn's or the session's end), decided
 * by the provider's permission_default, with an audit record, and no process
 * is left behind. The mock agent asks for a "/tool" line and waits.
 */
import { EventType, type SessionEvent } from '@agent-bridge/proto';
import { describe, expect, it } from 'vitest';
import {
  type Bridge,
  isAlive,
  leftoverGroups,
  showGroups,
  useDaemon,
  waitFor,
  watchEvents,
  within,
} from '../harness/index.js';

const T = EventType;
const config = {
  sessions: { stop_grace_period: '2s' },
  providers: {
    mock_ask: { adapter: 'mock', permissions: 'ask' },
    mock_ask_short: {
      adapter: 'mock',
      permissions: 'ask',
      permission_timeout: '1s',
      permission_default: 'allow',
    },
  },
};

const isRequest = (e: SessionEvent) => e.type === T.EVENT_TYPE_PERMISSION_REQUESTED;
const isResolution = (e: SessionEvent) => e.type === T.EVENT_TYPE_PERMISSION_RESOLVED;
const isTerminal = (e: SessionEvent) =>
  e.type === T.EVENT_TYPE_SESSION_STOPPED || e.type === T.EVENT_TYPE_SESSION_FAILED;

/** A session of `provider` whose agent is waiting for an answer to "/tool Bash rm -rf build". */
async function waitingSession(bridge: Bridge, provider = 'mock_ask') {
  const s = await bridge.sessions().start(provider);
  const reader = watchEvents(bridge.stream({ sessionId: s.sessionId, afterSeq: 0n }));
  await s.send('/tool Bash rm -rf build');
  const seen = await reader.until('the permission request', (all) => all.some(isRequest));
  const request = seen.find(isRequest)!;
  expect(request.data).toMatchObject({ tool: 'Bash', summary: 'rm -rf build', mode: 'ask' });
  const pid = (await s.get()).pid;
  return { s, reader, requestId: request.data?.request_id as string, pid };
}

/** The one resolution of `requestId` in `events`: decided as expected, before the end given. */
function expectResolvedOnce(
  events: SessionEvent[],
  requestId: string,
  decidedBy: string,
  decision: string,
  before: (e: SessionEvent) => boolean,
) {
  const resolutions = events.filter((e) => isResolution(e) && e.data?.request_id === requestId);
  expect(resolutions.map((e) => e.data)).toEqual([
    { request_id: requestId, tool: 'Bash', decision, decided_by: decidedBy },
  ]);
  const end = events.findIndex(before);
  expect(end, 'the end the resolution must precede').toBeGreaterThan(-1);
  expect(events.indexOf(resolutions[0]!)).toBeLessThan(end);
}

async function expectAudited(bridge: Bridge, sessionId: string, requestId: string, by: string) {
  const [record] = await bridge.daemon.audit.waitFor(
    `the permission decision of ${requestId}`,
    (r) =>
      r.kind === 'permission' && r.session_id === sessionId && (r.detail ?? '').includes(requestId),
  );
  expect(record?.detail).toContain(`by ${by}`);
}

async function expectNothingLeft(pid: number) {
  await waitFor(`the agent ${pid} to be gone`, () => !isAlive(pid));
  const left = leftoverGroups([pid]);
  expect(left.size, showGroups(left)).toBe(0);
}

describe('pending permission requests, resolved in every fault case', () => {
  const bridge = useDaemon({ config });

  it('an interrupt resolves it by the default ("interrupt"); the turn ends and the session takes the next input', async () => {
    const { s, reader, requestId } = await waitingSession(bridge);
    const answer = await s.interrupt();
    expect(answer.interrupted).toBe(true);
    const seen = await reader.until('the interrupted turn to end', (all) =>
      all.some((e) => e.type === T.EVENT_TYPE_TURN_COMPLETED),
    );
    expectResolvedOnce(
      seen,
      requestId,
      'interrupt',
      'deny',
      (e) => e.type === T.EVENT_TYPE_TURN_COMPLETED,
    );
    await expectAudited(bridge, s.sessionId, requestId, 'interrupt');
    await s.send('hello');
    const next = await reader.until(
      'the next turn',
      (all) => all.filter((e) => e.type === T.EVENT_TYPE_TURN_COMPLETED).length === 2,
    );
    expect(next.filter((e) => e.type === T.EVENT_TYPE_AGENT_MESSAGE).at(-1)?.text).toContain(
      'received "hello"',
    );
    await s.stop();
  });

  it('a stop resolves it ("stop") before SESSION_STOPPED', async () => {
    const { s, reader, requestId, pid } = await waitingSession(bridge);
    await s.stop();
    const { events, error } = await reader.ended();
    expect(error).toBeUndefined();
    expect(events.at(-1)?.type).toBe(T.EVENT_TYPE_SESSION_STOPPED);
    expectResolvedOnce(events, requestId, 'stop', 'deny', isTerminal);
    await expectAudited(bridge, s.sessionId, requestId, 'stop');
    await expectNothingLeft(pid);
  });

  it('the agent killed with SIGKILL: resolved ("exit") before SESSION_FAILED', async () => {
    const { s, reader, requestId, pid } = await waitingSession(bridge);
    process.kill(pid, 'SIGKILL');
    const { events } = await reader.ended();
    expect(events.at(-1)).toMatchObject({ type: T.EVENT_TYPE_SESSION_FAILED });
    expectResolvedOnce(events, requestId, 'exit', 'deny', isTerminal);
    await expectAudited(bridge, s.sessionId, requestId, 'exit');
    await expectNothingLeft(pid);
  });

  it('nobody answers: permission_default applies after permission_timeout ("timeout"), and the agent goes on', async () => {
    const { s, reader, requestId } = await waitingSession(bridge, 'mock_ask_short');
    const seen = await reader.until('the turn to end', (all) =>
      all.some((e) => e.type === T.EVENT_TYPE_TURN_COMPLETED),
    );
    expectResolvedOnce(
      seen,
      requestId,
      'timeout',
      'allow_once',
      (e) => e.type === T.EVENT_TYPE_TURN_COMPLETED,
    );
    // The default here is allow: the agent was told so.
    expect(seen.filter((e) => e.type === T.EVENT_TYPE_AGENT_MESSAGE).at(-1)?.text).toContain(
      'Bash was allowed',
    );
    await expectAudited(bridge, s.sessionId, requestId, 'timeout');
    await s.stop();
  });
});

describe('pending permission requests when the daemon shuts down', () => {
  const bridge = useDaemon({ config });

  it('SIGTERM: a streaming reader gets the resolution ("shutdown") before the terminal event; nothing is left', async () => {
    const { s, reader, requestId, pid } = await waitingSession(bridge);
    bridge.daemon.proc.kill('SIGTERM');
    const { events, error } = await reader.ended();
    expect(error).toBeUndefined();
    expect(events.at(-1)).toMatchObject({
      type: T.EVENT_TYPE_SESSION_STOPPED,
      data: expect.objectContaining({ reason: 'shutdown' }),
    });
    expectResolvedOnce(events, requestId, 'shutdown', 'deny', isTerminal);
    await expectAudited(bridge, s.sessionId, requestId, 'shutdown');
    const { code } = await within('the daemon to exit', bridge.daemon.exited, 20_000);
    expect(code).toBe(0);
    await expectNothingLeft(pid);
  });
});
