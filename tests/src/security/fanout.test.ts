/**
 * Catalogue row D5: 10,000 concurrent StreamEvents readers (20 sessions of
 * 500, over twelve connections, since one carries at most 1,000 streams)
 * all receive every event; the daemon's memory grows within a generous
 * bound (about 12 KiB of RSS per idle grpc-js stream was measured); every
 * reader is released when the streams end.
 */
import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';
import { useDaemon, waitFor } from '@agent-bridge/harness';
import { BridgeServiceClient, type SessionEvent } from '@agent-bridge/proto';
import { type ClientReadableStream, credentials } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';

const SESSIONS = 20;
const READERS = 500; // per session
const CONNECTIONS = 12;

const d = useDaemon({
  config: {
    sessions: { max_per_project: SESSIONS, max_global: SESSIONS, max_subscribers: READERS },
  },
  fakeProviders: { echo: ['echo'] },
});

const rssKiB = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);

/** A client on its own connection (grpc-js would otherwise share one between clients). */
function ownConnection(): BridgeServiceClient {
  const tls = createSecureContext({
    minVersion: 'TLSv1.3',
    ca: d.pki.ca.certPem,
    cert: d.pki.client.certPem,
    key: d.pki.client.keyPem,
  });
  return new BridgeServiceClient(
    `127.0.0.1:${d.daemon.port}`,
    credentials.createFromSecureContext(tls),
    { 'grpc.ssl_target_name_override': 'localhost', 'grpc.use_local_subchannel_pool': 1 },
  );
}

describe('D5 many concurrent subscribers', () => {
  it(`D5 ${SESSIONS * READERS} readers over ${CONNECTIONS} connections all receive every event; memory stays bounded; all are released`, async () => {
    const s = d.sessions();
    const ids: string[] = [];
    for (let i = 0; i < SESSIONS; i++) ids.push((await s.start('echo')).sessionId);
    const rssBefore = rssKiB(d.daemon.pid);
    const clients = Array.from({ length: CONNECTIONS }, ownConnection);
    const got = new Map<ClientReadableStream<SessionEvent>, string[]>();
    const streams: ClientReadableStream<SessionEvent>[] = [];
    try {
      ids.forEach((sessionId, i) => {
        for (let r = 0; r < READERS; r++) {
          const client = clients[(i * READERS + r) % CONNECTIONS]!;
          const stream = client.streamEvents({ sessionId, subscriberId: '' }, d.md);
          const texts: string[] = [];
          stream.on('data', (e: SessionEvent) => texts.push(e.text));
          stream.on('error', () => undefined);
          got.set(stream, texts);
          streams.push(stream);
        }
      });
      await waitFor(
        `${SESSIONS * READERS} open readers`,
        async () => {
          const counts = await Promise.all(
            ids.map((sessionId) =>
              s
                .session(sessionId)
                .get()
                .then((g) => g.subscriberCount),
            ),
          );
          return counts.every((c) => c === READERS);
        },
        60_000,
        250,
      );
      for (const sessionId of ids) await s.session(sessionId).send(`hello ${sessionId}`);
      await waitFor(
        'every reader to receive its session’s input and echo',
        () => [...got.values()].every((t) => t.some((x) => x.startsWith('echo: hello'))),
        60_000,
        250,
      );
      streams.forEach((stream, n) => {
        const sessionId = ids[Math.floor(n / READERS)]!;
        // From the session's first event (a stream without after_seq replays what is retained).
        expect(got.get(stream)).toEqual([
          expect.stringMatching(/^echo started \(pid \d+\)/),
          'ready',
          `hello ${sessionId}`,
          `echo: hello ${sessionId}`,
        ]);
      });
      // About 12 KiB per idle stream was measured; allow four times that, plus slack.
      const grownKiB = rssKiB(d.daemon.pid) - rssBefore;
      expect(grownKiB).toBeLessThan(SESSIONS * READERS * 48 + 64 * 1024);
    } finally {
      for (const stream of streams) stream.cancel();
      for (const c of clients) c.close();
    }
    await waitFor(
      'every reader to be released',
      async () => {
        const counts = await Promise.all(
          ids.map((sessionId) =>
            s
              .session(sessionId)
              .get()
              .then((g) => g.subscriberCount),
          ),
        );
        return counts.every((c) => c === 0);
      },
      30_000,
      250,
    );
    for (const sessionId of ids) await s.session(sessionId).stop(true);
  }, 120_000);
});
