import { codeOf, collect, status, waitFor } from '@agent-bridge/harness';
import { EventType, type SessionEvent, SessionStatus } from '@agent-bridge/proto';
import { describe, expect, it } from 'vitest';
import { fleetDaemon, fleetReader, useFleet } from './fleet-fixture.js';

// Two daemons of one fleet on a real 3-node NATS cluster (R3, mutual TLS):
// a session's history outlives the daemon it ran on.

const fleet = useFleet();

const daemon = async (daemonId: string) => {
  const b = await fleetDaemon(fleet.cluster, fleet.pki, {
    daemonId,
    fleet: 'one',
    providers: { echo: ['echo'] },
  });
  fleet.bridges.push(b);
  return b;
};

/** Where a session's history in JetStream ends, as the fleet itself says. */
async function fleetTail(projectId: string, sessionId: string): Promise<number> {
  const reader = await fleetReader(fleet.cluster, 'one');
  try {
    return await reader.tail(projectId, sessionId);
  } finally {
    await reader.close();
  }
}

const shape = (e: SessionEvent) => [Number(e.seq), e.type, e.text];

describe('a fleet on NATS JetStream: history that outlives its host', () => {
  it('serves the whole history of a SIGKILLed daemon from another, in order, ending with host_lost; writes refused', async () => {
    const [a, b] = await Promise.all([daemon('daemon-a'), daemon('daemon-b')]);
    const session = await a.sessions().start('echo');
    const id = session.sessionId;
    for (let i = 0; i < 5; i++) await session.send(`line ${i}`);
    const onA = await collect(
      a.stream({ sessionId: id, afterSeq: 0n }),
      (e) => e.text === 'echo: line 4',
    );
    const lastOnA = Number(onA.events.at(-1)!.seq);

    // While A lives, B names it instead of serving the session.
    const live = b.call((c) => c.getSession, { sessionId: id });
    expect(await codeOf(live)).toBe(status.FAILED_PRECONDITION);
    await expect(live).rejects.toThrow(/runs on daemon daemon-a at 127\.0\.0\.1:\d+/);

    await waitFor(
      'the fleet to hold every event A served',
      async () => (await fleetTail(a.project, id)) >= lastOnA,
      30_000,
      250,
    );
    const agentPid = (await a.call((c) => c.getSession, { sessionId: id })).pid;
    a.daemon.proc.kill('SIGKILL');
    process.kill(-agentPid, 'SIGKILL');
    await a.daemon.exited;

    // Once A's directory entry has run out, B serves the history read-only.
    await waitFor(
      'B to report the session lost',
      async () => {
        const got = await b.call((c) => c.getSession, { sessionId: id }).catch(() => undefined);
        return got?.status === SessionStatus.SESSION_STATUS_FAILED;
      },
      30_000,
      250,
    );
    const onB = await collect(b.stream({ sessionId: id, afterSeq: 0n }));
    const seqs = onB.events.map((e) => Number(e.seq));
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));
    expect(onB.events.slice(0, onA.events.length).map(shape)).toEqual(onA.events.map(shape));
    const end = onB.events.at(-1)!;
    expect(end.type).toBe(EventType.EVENT_TYPE_SESSION_FAILED);
    expect(end.data).toMatchObject({ reason: 'host_lost', daemon_id: 'daemon-a' });
    expect(end.sessionId).toBe(id);
    expect(end.provider).toBe('echo');

    // From a position, too: the rest and the same end.
    const rest = await collect(b.stream({ sessionId: id, afterSeq: BigInt(lastOnA - 2) }));
    expect(rest.events.map(shape)).toEqual(onB.events.slice(lastOnA - 2).map(shape));

    const got = await b.call((c) => c.getSession, { sessionId: id });
    expect(Number(got.lastSeq)).toBe(Number(end.seq));
    const listed = await b.call((c) => c.listSessions, {
      projectId: '',
      statuses: [],
      pageSize: 0,
      pageToken: '',
    });
    expect(listed.sessions.map((s) => [s.sessionId, s.status])).toContainEqual([
      id,
      SessionStatus.SESSION_STATUS_FAILED,
    ]);

    const write = b.call((c) => c.sendInput, { sessionId: id, text: 'more', idempotencyKey: '' });
    expect(await codeOf(write)).toBe(status.FAILED_PRECONDITION);
    await expect(write).rejects.toThrow(
      /lived on daemon daemon-a at 127\.0\.0\.1:\d+, which has left the fleet/,
    );
    const stop = b.call((c) => c.stopSession, { sessionId: id, force: false });
    expect(await codeOf(stop)).toBe(status.FAILED_PRECONDITION);

    // Another project's caller learns nothing of it.
    const beta = await b.bearerFor('beta');
    const other = b.call((c) => c.getSession, { sessionId: id }, beta);
    expect(await codeOf(other)).toBe(status.NOT_FOUND);
    const otherRead = await collect(b.stream({ sessionId: id, afterSeq: 0n }, beta));
    expect(otherRead.events).toEqual([]);
    expect(otherRead.error?.code).toBe(status.NOT_FOUND);
    const otherList = await b.call(
      (c) => c.listSessions,
      { projectId: '', statuses: [], pageSize: 0, pageToken: '' },
      beta,
    );
    expect(otherList.sessions).toEqual([]);
  }, 120_000);
});
