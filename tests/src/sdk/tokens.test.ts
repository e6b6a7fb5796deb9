/**
 * The SDK's tokens: minted locally, renewed before they expire (a client
 * with 5 s tokens keeps working through a 20 s stream, which the daemon
 * cuts each time the token that opened it expires and the SDK resumes),
 * bound to the client certificate unless `bindToCert: false`, which only a
 * daemon with `require_cert_binding: false` accepts.
 *
 * To see a token the SDK minted, a small gRPC server of our own (the test
 * PKI's server certificate, mutual TLS) answers Health and keeps the
 * `authorization` it was given; the token is then replayed to the daemon
 * over a connection of our choosing.
 */
import { createHash, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';
import { UnauthenticatedError } from '@agent-bridge/bridgeclient';
import { bearer, call, codeOf, connect, mintToken, status, useDaemon } from '@agent-bridge/harness';
import type { CertAndKey } from '@agent-bridge/pki';
import {
  BridgeServiceClient,
  type BridgeServiceServer,
  BridgeServiceService,
  HealthResponse,
} from '@agent-bridge/proto';
import { credentials, type Metadata, Server, ServerCredentials } from '@grpc/grpc-js';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { afterAll, describe, expect, it } from 'vitest';
import { type clientOptions, closeClients, range, rejection, sdkClient } from './helpers.js';

// No clock skew allowed: a token is refused the moment it expires, so a
// client that did not renew its 5 s tokens would fail within seconds.
const bridge = useDaemon({ config: { auth: { clock_skew: '0s' } } });
afterAll(closeClients);

type Overrides = Parameters<typeof clientOptions>[1];

/** The tokens an SDK client built with `over` sent on `calls` Health calls to our capture server. */
async function tokensOf(over: Overrides, calls = 1): Promise<string[]> {
  const seen: string[] = [];
  const server = new Server();
  server.addService(BridgeServiceService, {
    health: (c: { metadata: Metadata }, cb: (err: null, res: HealthResponse) => void) => {
      seen.push(String(c.metadata.get('authorization')[0]).replace(/^Bearer /, ''));
      cb(null, HealthResponse.fromPartial({ status: 'serving', serverInstanceId: 'capture' }));
    },
  } as unknown as BridgeServiceServer);
  const creds = ServerCredentials.createSsl(
    Buffer.from(bridge.pki.ca.certPem),
    [
      {
        cert_chain: readFileSync(bridge.pki.serverCertPath),
        private_key: readFileSync(bridge.pki.serverKeyPath),
      },
    ],
    true,
  );
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', creds, (err, p) => (err ? reject(err) : resolve(p))),
  );
  const client = sdkClient(bridge, { ...over, target: `127.0.0.1:${port}` });
  try {
    for (let i = 0; i < calls; i++) {
      expect((await client.health()).serverInstanceId).toBe('capture');
    }
  } finally {
    client.close();
    server.forceShutdown();
  }
  expect(seen).toHaveLength(calls);
  return seen;
}

/** RFC 8705 `x5t#S256` of a certificate: base64url of the SHA-256 of its DER. */
const x5t = (c: CertAndKey) =>
  createHash('sha256').update(new X509Certificate(c.certPem).raw).digest('base64url');

/** A Health call with `token` over a connection with the certificate `cert`: "ok" or the code. */
const healthWith = (cert: CertAndKey, token: string) => {
  const raw = connect({ port: bridge.daemon.port, caPem: bridge.pki.ca.certPem, client: cert });
  return codeOf(call(raw, (c) => c.health, {}, bearer(token))).finally(() => raw.close());
};

describe('tokens', () => {
  it('are EdDSA tokens with the configured claims, the lifetime asked for, cached between calls', async () => {
    const [first, second] = await tokensOf({ jwt: { ttl: '5s', subject: 'sdk-claims' } }, 2);
    expect(second).toBe(first);
    const header = decodeProtectedHeader(first!);
    expect(header).toMatchObject({ alg: 'EdDSA', typ: 'JWT' });
    expect(typeof header.kid).toBe('string');
    const claims = decodeJwt(first!);
    expect(claims).toMatchObject({
      iss: 'control',
      sub: 'sdk-claims',
      aud: 'bridge',
      project_id: 'alpha',
      cnf: { 'x5t#S256': x5t(bridge.pki.client) },
    });
    expect(claims.exp! - claims.iat!).toBe(5);
    expect(claims.jti).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('keep a 5 s-token client working through a 20 s stream: inputs and acks all authenticated', {
    timeout: 60_000,
  }, async () => {
    // The control: the daemon refuses a token 1 s after it expired.
    const expired = await bridge.mint({ iatOffset: -6, ttl: 5 });
    expect(await codeOf(bridge.call((c) => c.health, {}, bearer(expired)))).toBe(
      status.UNAUTHENTICATED,
    );
    const c = sdkClient(bridge, { jwt: { ttl: '5s', subject: 'sdk-renew' } });
    const mark = bridge.daemon.audit.mark();
    const { sessionId } = await c.startSession({ provider: 'mock', repoPath: bridge.daemon.repo });
    const began = Date.now();
    // The mock streams a "slow" answer over a couple of seconds: one turn
    // after another until 20 s have passed, each input sent from the loop.
    await c.sendInput(sessionId, 'slow turn 1');
    let turns = 1;
    const seqs: number[] = [];
    const stream = c.events(sessionId, { subscriberId: 'renew', ackEvery: 5 });
    for await (const e of stream) {
      seqs.push(e.seq);
      if (e.type !== 'TURN_COMPLETED') continue;
      if (Date.now() - began < 20_000) await c.sendInput(sessionId, `slow turn ${++turns}`);
      else await c.stopSession(sessionId);
    }
    const last = seqs.at(-1)!;
    expect(seqs).toEqual(range(1, last));
    expect(turns).toBeGreaterThanOrEqual(5);
    // Every processed event was acknowledged, the last one included.
    expect(await c.ackEvents(sessionId, 'renew', 0)).toBe(last);
    // The daemon refused nothing but streams that outlived their token, and
    // it did cut the stream (20 s on 5 s tokens), which the SDK resumed.
    const mine = bridge.daemon.audit
      .since(mark)
      .filter((r) => r.kind === 'call' && r.sub === 'sdk-renew');
    const refused = mine.filter((r) => r.outcome !== 'allow');
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.filter((r) => r.reason !== 'token_expired')).toEqual([]);
    expect(refused.every((r) => r.method === 'StreamEventBatches')).toBe(true);
    const acks = mine.filter((r) => r.method === 'AckEvents' && r.outcome === 'allow');
    // Acks went out all along, also long after the first token's end.
    expect(acks.filter((r) => Date.parse(r.time) > began + 10_000).length).toBeGreaterThan(0);
    expect(mine.filter((r) => r.method === 'SendInput')).toHaveLength(turns);
  });
});

describe('a token function (tokens minted elsewhere)', () => {
  it('keeps a client working through a stream that outlives its tokens, asking again with renew after an expiry', {
    timeout: 60_000,
  }, async () => {
    const asked: boolean[] = [];
    // A KMS stand-in: 4 s tokens for the test project, bound to the client certificate.
    const token = async ({ renew }: { renew: boolean }) => {
      asked.push(renew);
      return mintToken({
        privatePem: bridge.pki.issuers.control.privatePem,
        sub: 'sdk-hook',
        project: 'alpha',
        ttl: 4,
        bindCertPem: bridge.pki.client.certPem,
      });
    };
    const c = sdkClient(bridge, { jwt: { token, projectId: 'alpha' } });
    expect(c.projectId).toBe('alpha');
    const mark = bridge.daemon.audit.mark();
    const { sessionId } = await c.startSession({ provider: 'mock', repoPath: bridge.daemon.repo });
    const began = Date.now();
    await c.sendInput(sessionId, 'slow turn 1');
    let turns = 1;
    const seqs: number[] = [];
    for await (const e of c.events(sessionId, { subscriberId: 'hook', ackEvery: 5 })) {
      seqs.push(e.seq);
      if (e.type !== 'TURN_COMPLETED') continue;
      if (Date.now() - began < 14_000) await c.sendInput(sessionId, `slow turn ${++turns}`);
      else await c.stopSession(sessionId);
    }
    const last = seqs.at(-1)!;
    expect(seqs).toEqual(range(1, last));
    expect(await c.ackEvents(sessionId, 'hook', 0)).toBe(last);
    // Asked again and again as tokens neared their end, and with renew after
    // the daemon ended a stream for an expired token.
    expect(asked.length).toBeGreaterThanOrEqual(4);
    expect(asked[0]).toBe(false);
    const mine = bridge.daemon.audit
      .since(mark)
      .filter((r) => r.kind === 'call' && r.sub === 'sdk-hook');
    const refused = mine.filter((r) => r.outcome !== 'allow');
    expect(refused.filter((r) => r.reason !== 'token_expired')).toEqual([]);
    expect(asked.filter(Boolean)).toHaveLength(refused.length);
  });

  it('a function that returns no JWT, or fails, fails the call saying so', async () => {
    const notJwt = sdkClient(bridge, {
      jwt: { token: async () => 'not-a-jwt', projectId: 'alpha' },
      timeouts: { callMs: 2000 },
    });
    const err = await notJwt.health().catch((e: unknown) => e);
    expect((err as Error).message).toContain(
      'jwt.token: the token function must return a JWT (a compact JWS) with an exp claim',
    );
    const failing = sdkClient(bridge, {
      jwt: {
        token: async () => {
          throw new Error('kms unreachable');
        },
        projectId: 'alpha',
      },
      timeouts: { callMs: 2000 },
    });
    const err2 = await failing.health().catch((e: unknown) => e);
    expect((err2 as Error).message).toContain(
      'jwt.token: the token function failed: kms unreachable',
    );
  });
});

describe('certificate binding', () => {
  it('a token bound to another certificate is refused: UNAUTHENTICATED, UnauthenticatedError in the SDK', async () => {
    const other = bridge.pki.otherClient;
    // An SDK client with the other certificate binds its tokens to it.
    const [bound] = await tokensOf({
      mtls: {
        cert: other.certPem,
        key: other.keyPem,
        ca: bridge.pki.ca.certPem,
        serverName: 'localhost',
      },
    });
    expect(decodeJwt(bound!).cnf).toEqual({ 'x5t#S256': x5t(other) });
    expect(await healthWith(other, bound!)).toBe('ok');
    expect(await healthWith(bridge.pki.client, bound!)).toBe(status.UNAUTHENTICATED);
    // The same through the SDK: a client on `client`'s connection whose
    // calls carry that token (its channel's generated client swapped for
    // one that sends it; the channel object is shared by all its calls).
    const sdk = sdkClient(bridge);
    const swapped = connectWithToken(bridge.pki.client, bound!);
    Object.defineProperty((sdk as unknown as { channel: object }).channel, 'raw', {
      get: () => swapped,
    });
    try {
      await rejection(sdk.health(), UnauthenticatedError, 'UNAUTHENTICATED', 'Health');
      await rejection(sdk.listSessions(), UnauthenticatedError, 'UNAUTHENTICATED', 'ListSessions');
    } finally {
      swapped.close();
    }
  });

  it('an SDK token from a wrong issuer or audience is refused with UnauthenticatedError', async () => {
    for (const jwt of [{ issuer: 'nobody' }, { audience: 'elsewhere' }, { issuer: 'other' }]) {
      const c = sdkClient(bridge, { jwt });
      await rejection(c.health(), UnauthenticatedError, 'UNAUTHENTICATED', 'Health');
    }
  });

  it('bindToCert: false makes unbound tokens, which a daemon requiring binding refuses', async () => {
    const [unbound] = await tokensOf({ jwt: { bindToCert: false } });
    expect(decodeJwt(unbound!).cnf).toBeUndefined();
    expect(await healthWith(bridge.pki.client, unbound!)).toBe(status.UNAUTHENTICATED);
    const c = sdkClient(bridge, { jwt: { bindToCert: false } });
    await rejection(c.health(), UnauthenticatedError, 'UNAUTHENTICATED', 'Health');
  });
});

describe('unbound tokens where the daemon allows them', () => {
  const lax = useDaemon({ config: { auth: { require_cert_binding: false } } });

  it('bindToCert: false tokens work from any trusted certificate', async () => {
    for (const cert of [lax.pki.client, lax.pki.otherClient]) {
      const raw = connect({ port: lax.daemon.port, caPem: lax.pki.ca.certPem, client: cert });
      try {
        const token = await lax.mint({ bindCertPem: undefined });
        expect(await codeOf(call(raw, (x) => x.health, {}, bearer(token)))).toBe('ok');
      } finally {
        raw.close();
      }
    }
    const c = sdkClient(lax, { jwt: { bindToCert: false } });
    const s = await c.startSession({ provider: 'mock', repoPath: lax.daemon.repo });
    expect((await c.getSession(s.sessionId)).status).toBe('RUNNING');
    await c.stopSession(s.sessionId, { force: true });
  });
});

/** A client over `cert`'s connection whose call credentials always send `token`. */
function connectWithToken(cert: CertAndKey, token: string): BridgeServiceClient {
  const tls = createSecureContext({
    minVersion: 'TLSv1.3',
    ca: bridge.pki.ca.certPem,
    cert: cert.certPem,
    key: cert.keyPem,
  });
  const always = credentials.createFromMetadataGenerator((_params, done) => {
    done(null, bearer(token));
  });
  return new BridgeServiceClient(
    `127.0.0.1:${bridge.daemon.port}`,
    credentials.combineChannelCredentials(credentials.createFromSecureContext(tls), always),
    { 'grpc.ssl_target_name_override': 'localhost' },
  );
}
