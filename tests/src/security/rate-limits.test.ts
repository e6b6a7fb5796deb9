/**
 * Catalogue row D2: per-identity rate limits on StartSession, SendInput and
 * failed authentications. The (burst + 1)th call in the window gets
 * RESOURCE_EXHAUSTED with a `grpc-retry-pushback-ms` trailer, is audited
 * as `rate_limited`, changes nothing, and leaves every other identity's
 * allowance whole; the bucket refills; the SDK waits out the pushback.
 */
import { randomUUID } from 'node:crypto';
import {
  bearer,
  call,
  connect,
  descendants,
  status,
  type UnaryMethod,
  waitFor,
} from '@agent-bridge/harness';
import { type BridgeServiceClient, EventType } from '@agent-bridge/proto';
import type { Metadata, ServiceError } from '@grpc/grpc-js';
import { afterAll, describe, expect, it } from 'vitest';
import { closeClients, sdkClient } from '../sdk/helpers.js';
import { expectNoSecret, outcome, useWorld } from './helpers.js';

// One token a second, two (three for input and failed auth) at once.
const w = useWorld({
  config: {
    sessions: { max_per_project: 20, max_global: 20 },
    rate_limits: {
      start_session: { per_minute: 60, burst: 2 },
      send_input: { per_minute: 60, burst: 3 },
      failed_auth: { per_minute: 60, burst: 3 },
    },
  },
});
afterAll(closeClients);

/** A call's error with its trailers, or 'ok'. */
async function settle<Req, Res>(
  method: (c: BridgeServiceClient) => UnaryMethod<Req, Res>,
  req: Req,
  md: Metadata,
  client: BridgeServiceClient = w.client,
): Promise<'ok' | ServiceError> {
  try {
    await call(client, method, req, md);
    return 'ok';
  } catch (err) {
    return err as ServiceError;
  }
}

const startReq = () => ({
  projectId: w.project,
  sessionId: randomUUID(),
  repoPath: w.daemon.repo,
  provider: 'mock',
  agentOpts: {},
});

/** The pushback a refusal carries, in ms. */
function pushbackOf(err: 'ok' | ServiceError): number {
  expect(err).not.toBe('ok');
  const e = err as ServiceError;
  expect(e.code).toBe(status.RESOURCE_EXHAUSTED);
  const values = e.metadata.get('grpc-retry-pushback-ms');
  expect(values).toHaveLength(1);
  return Number(values[0]);
}

describe('D2 rate limits per identity', () => {
  it('D2 StartSession: the third start in a burst of two → RESOURCE_EXHAUSTED with a pushback, audited, nothing spawned; another subject is unaffected; the bucket refills', async () => {
    const md = await w.bearerFor(w.project, { sub: 'starter' });
    const children = descendants(w.daemon.pid).length;
    const mark = w.daemon.audit.mark();
    const results = await Promise.all(
      [0, 1, 2].map(() => settle((c) => c.startSession, startReq(), md)),
    );
    const refused = results.filter((r) => r !== 'ok');
    expect(results.filter((r) => r === 'ok')).toHaveLength(2);
    expect(refused).toHaveLength(1);
    const wait = pushbackOf(refused[0]!);
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(1000);
    expect((refused[0] as ServiceError).details).toMatch(
      /StartSession rate limit reached for this caller; retry in \d+s/,
    );
    const records = w.daemon.audit.since(mark).filter((r) => r.kind === 'call');
    expect(records.filter((r) => r.outcome === 'deny')).toMatchObject([
      { method: 'StartSession', reason: 'rate_limited', sub: 'starter' },
    ]);
    await waitFor('the two agents', () => descendants(w.daemon.pid).length === children + 2);

    // Same certificate, another subject: its own bucket.
    expect(
      await settle(
        (c) => c.startSession,
        startReq(),
        await w.bearerFor(w.project, { sub: 'neighbour' }),
      ),
    ).toBe('ok');
    // The refused subject gets a token back within the pushback.
    await waitFor(
      'the starter bucket to refill',
      async () => (await settle((c) => c.startSession, startReq(), md)) === 'ok',
      5000,
      Math.max(50, wait / 2),
    );
  });

  it('D2 SendInput: the fourth input in a burst of three → RESOURCE_EXHAUSTED, nothing delivered, audited', async () => {
    const md = await w.bearerFor(w.project, { sub: 'typist' });
    const before = (await w.call((c) => c.getSession, { sessionId: w.ref })).lastSeq;
    const mark = w.daemon.audit.mark();
    const results = await Promise.all(
      [1, 2, 3, 4].map((i) =>
        settle((c) => c.sendInput, { sessionId: w.ref, text: `line ${i}`, idempotencyKey: '' }, md),
      ),
    );
    const refused = results.filter((r) => r !== 'ok');
    expect(refused).toHaveLength(1);
    pushbackOf(refused[0]!);
    expect(
      w.daemon.audit.since(mark).filter((r) => r.kind === 'call' && r.outcome === 'deny'),
    ).toMatchObject([{ method: 'SendInput', reason: 'rate_limited', sub: 'typist' }]);
    // Three inputs were recorded, not four.
    const inputs = (
      await w
        .sessions()
        .session(w.ref)
        .events(
          (all) =>
            all.filter((e) => e.seq > before && e.type === EventType.EVENT_TYPE_INPUT_RECEIVED)
              .length >= 3,
        )
    ).filter((e) => e.seq > before && e.type === EventType.EVENT_TYPE_INPUT_RECEIVED);
    expect(inputs).toHaveLength(3);
  });

  it('D2 failed authentications: after three bad tokens from a certificate, even a valid token from it is refused unchecked; another certificate is unaffected; the bucket refills', async () => {
    // A certificate of its own, so the other tests' calls do not share its bucket.
    const c = connect({ port: w.daemon.port, caPem: w.pki.ca.certPem, client: w.pki.otherClient });
    try {
      const bad = await w.mint({ aud: 'not-bridge', bindCertPem: w.pki.otherClient.certPem });
      const good = bearer(await w.mint({ bindCertPem: w.pki.otherClient.certPem }));
      const mark = w.daemon.audit.mark();
      for (let i = 0; i < 3; i++) {
        const r = await outcome(call(c, (x) => x.health, {}, bearer(bad)));
        expect(r.code).toBe(status.UNAUTHENTICATED);
      }
      const locked = await settle((x) => x.health, {}, good, c);
      const wait = pushbackOf(locked);
      expect((locked as ServiceError).details).toMatch(/too many failed authentications/);
      expectNoSecret((locked as ServiceError).details, [bad]);
      expect(
        w.daemon.audit.since(mark).map((r) => [r.method, r.outcome, r.reason, r.cert_identity]),
      ).toEqual([
        ['Health', 'deny', 'audience_mismatch', 'other-plane'],
        ['Health', 'deny', 'audience_mismatch', 'other-plane'],
        ['Health', 'deny', 'audience_mismatch', 'other-plane'],
        ['Health', 'deny', 'rate_limited_failed_auth', 'other-plane'],
      ]);
      // The control-plane certificate still works.
      expect(await settle((x) => x.health, {}, w.md)).toBe('ok');
      await waitFor(
        'the failed-auth bucket to refill',
        async () => (await settle((x) => x.health, {}, good, c)) === 'ok',
        5000,
        Math.max(50, wait / 2),
      );
    } finally {
      c.close();
    }
  });

  it('D2 the SDK waits out the pushback: five starts in a row with a burst of two all succeed', async () => {
    const sdk = sdkClient(w, { jwt: { subject: 'sdk-burst' } });
    const mark = w.daemon.audit.mark();
    const started = [];
    for (let i = 0; i < 5; i++) {
      started.push(await sdk.startSession({ provider: 'mock', repoPath: w.daemon.repo }));
    }
    expect(started).toHaveLength(5);
    const denies = w.daemon.audit
      .since(mark)
      .filter((r) => r.kind === 'call' && r.outcome === 'deny' && r.sub === 'sdk-burst');
    // The limit did bite, and the SDK retried after each refusal.
    expect(denies.length).toBeGreaterThan(0);
    expect(denies.every((r) => r.reason === 'rate_limited')).toBe(true);
    for (const s of started) await sdk.stopSession(s.sessionId, { force: true });
  });
});
