/**
 * Catalogue rows J1–J10 and J12–J14 (J11 is in isolation.test.ts): forged,
 * mis-signed, foreign, expired, malformed and dangerous-header tokens, bad
 * authorization metadata, certificate binding, issuer identities and
 * tokens that expire under an open stream. Every bad token is refused on
 * every RPC with its exact code, a message that never echoes it, one deny
 * audit record per call with the stable reason, no state change, and no
 * trace of it in the daemon's log or audit file; the boundary cases just
 * inside each rule are accepted.
 */
import { createHash, createPublicKey, randomUUID, X509Certificate } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  bearer,
  call,
  collect,
  connect,
  type mintToken,
  STREAM_WAIT_MS,
  status,
  streamEvents,
  useDaemon,
  within,
} from '@agent-bridge/harness';
import { type BridgeServiceClient, EventType, PermissionDecision } from '@agent-bridge/proto';
import { Metadata } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { algNone, claims, foreignAlg, hs256, nowSec, signEdDSA, without } from './forge.js';
import { expectNoSecret, expectUnchanged, outcome, snapshot, useWorld } from './helpers.js';

const SKEW = 5; // auth.clock_skew below
const MAX_TTL = 300; // auth.jwt_max_ttl default (5m)

// The "other" issuer's tokens may only be presented over the other-plane certificate (J13).
const w = useWorld({
  config: { auth: { clock_skew: `${SKEW}s` } },
  clientIdentities: { other: ['other-plane'] },
});
/** Every token (or metadata value) a test had rejected, for the log check. */
const rejected: string[] = [];

const control = () => w.pki.issuers.control;
const other = () => w.pki.issuers.other;
const mint = (o: Partial<Parameters<typeof mintToken>[0]> = {}) => w.mint(o);
const edCtl = (payload: Record<string, unknown>, header: Record<string, unknown> = {}) =>
  signEdDSA(control().privatePem, bound(payload), header);
/** `payload` with the cnf claim binding it to the `client` certificate. */
const bound = (payload: Record<string, unknown>) =>
  Array.isArray(payload) ? payload : { ...payload, cnf: { 'x5t#S256': x5t(w.pki.client.certPem) } };

const METHODS = ['StartSession', 'SendInput', 'StopSession', 'GetSession', 'RespondPermission'];

/** A RespondPermission request: allow_once for request perm-1 of `sessionId`. */
const allowOnce = (sessionId: string) => ({
  sessionId,
  requestId: 'perm-1',
  decision: PermissionDecision.PERMISSION_DECISION_ALLOW_ONCE,
  reason: '',
});

/**
 * Runs a mutating call of each kind with `md` and checks each is refused
 * with `code`, a clear message free of `secrets`, nothing changed, and one
 * `call` deny audit record per call with `reason`, naming the certificate.
 */
async function expectRejected(
  md: Metadata,
  secrets: string[],
  reason: string,
  code: number = status.UNAUTHENTICATED,
): Promise<string[]> {
  const before = await snapshot(w);
  const mark = w.daemon.audit.mark();
  const newId = randomUUID();
  const results = await Promise.all([
    outcome(
      call(
        w.client,
        (c) => c.startSession,
        {
          projectId: 'alpha',
          sessionId: newId,
          repoPath: w.daemon.repo,
          provider: 'mock',
          agentOpts: {},
        },
        md,
      ),
    ),
    outcome(
      call(w.client, (c) => c.sendInput, { sessionId: w.ref, text: 'x', idempotencyKey: '' }, md),
    ),
    outcome(call(w.client, (c) => c.stopSession, { sessionId: w.ref, force: true }, md)),
    outcome(call(w.client, (c) => c.getSession, { sessionId: w.ref }, md)),
    outcome(call(w.client, (c) => c.respondPermission, allowOnce(w.ref), md)),
  ]);
  for (const r of results) {
    expect(r.code).toBe(code);
    expect(r.details).toMatch(/token|bearer|authorization|issuer|audience|kid|claim|certificate/i);
    expectNoSecret(r.details, secrets);
    expectNoSecret(r.message, secrets);
  }
  const records = w.daemon.audit.since(mark);
  expect(records.map((r) => r.method).sort()).toEqual([...METHODS].sort());
  for (const r of records) {
    expect(r).toMatchObject({ kind: 'call', outcome: 'deny', reason });
    expect(r.cert_serial).toMatch(/^[0-9A-F]+$/i);
    expect(r.cert_fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(r.cert_identity).toBe('control-plane');
    expectNoSecret(JSON.stringify(r), secrets);
  }
  await expectUnchanged(w, before);
  return results.map((r) => r.details);
}

async function expectAccepted(token: string): Promise<void> {
  const before = await snapshot(w);
  const mark = w.daemon.audit.mark();
  const got = await call(w.client, (c) => c.getSession, { sessionId: w.ref }, bearer(token));
  expect(got.sessionId).toBe(w.ref);
  expect(w.daemon.audit.since(mark)).toMatchObject([
    { kind: 'call', method: 'GetSession', outcome: 'allow', reason: 'ok' },
  ]);
  await expectUnchanged(w, before);
}

type TokenCase = [name: string, reason: string, make: () => string | Promise<string>];

/** A local HTTP server standing in for a key URL: it must never be asked for anything (J9). */
const keyServer = { requests: 0, url: '' };
const server = createServer((_req, res) => {
  keyServer.requests++;
  res.end('{}');
});
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  keyServer.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/keys`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('bad bearer tokens: UNAUTHENTICATED on every RPC, audited with their reason, no state change', () => {
  const cases: TokenCase[] = [
    ['J1 alg none, empty signature', 'alg_not_allowed', () => algNone(bound(claims()))],
    [
      'J1 alg none with a signature appended',
      'alg_not_allowed',
      () => `${algNone(bound(claims()))}${'A'.repeat(86)}`,
    ],
    [
      'J2 HS256 keyed with the issuer public key PEM',
      'alg_not_allowed',
      () => hs256(control().publicPem, bound(claims())),
    ],
    [
      'J2 HS256 keyed with the issuer public key DER',
      'alg_not_allowed',
      () =>
        hs256(
          Buffer.from(control().publicPem.replace(/-----[^-]+-----|\s/g, ''), 'base64'),
          bound(claims()),
        ),
    ],
    ['J3 RS256', 'alg_not_allowed', () => foreignAlg('RS256', bound(claims()))],
    ['J3 ES256', 'alg_not_allowed', () => foreignAlg('ES256', bound(claims()))],
    [
      'J3 EdDSA signed by the other issuer key under iss control',
      'signature_invalid',
      () => mint({ privatePem: other().privatePem, iss: 'control' }),
    ],
    [
      'J3 alg "Ed25519" signed by the wrong key',
      'signature_invalid',
      () => signEdDSA(other().privatePem, bound(claims()), { alg: 'Ed25519' }),
    ],
    [
      'J3 a valid token with a flipped signature bit',
      'signature_invalid',
      async () => {
        const t = await mint();
        const [h, p, s] = t.split('.') as [string, string, string];
        const sig = Buffer.from(s, 'base64url');
        sig[0] = (sig[0] ?? 0) ^ 1;
        return `${h}.${p}.${sig.toString('base64url')}`;
      },
    ],
    [
      'J3 a valid signature over a tampered payload (project beta)',
      'signature_invalid',
      async () => {
        const t = await mint();
        const [h, , s] = t.split('.') as [string, string, string];
        const p = Buffer.from(JSON.stringify(bound(claims('beta')))).toString('base64url');
        return `${h}.${p}.${s}`;
      },
    ],
    ['J4 wrong aud', 'audience_mismatch', () => mint({ aud: 'not-bridge' })],
    [
      'J4 aud array with ours plus another (one audience only, as SPIFFE recommends)',
      'audience_mismatch',
      () => mint({ aud: ['bridge', 'other-service'] }),
    ],
    ['J4 aud array without ours', 'audience_mismatch', () => mint({ aud: ['other-service'] })],
    ['J5 unknown iss', 'issuer_unknown', () => mint({ iss: 'mallory' })],
    ['J5 iss control with an unknown kid', 'kid_unknown', () => mint({ header: { kid: 'nope' } })],
    [
      'J5 iss control with the kid of the other issuer (RFC 8725 §3.8)',
      'kid_unknown',
      () => mint({ privatePem: other().privatePem, header: { kid: kidOf(other().publicPem) } }),
    ],
    ['J5 iss other but signed by control', 'signature_invalid', () => mint({ iss: 'other' })],
    [
      'J6 exp = now - skew - 2',
      'token_expired',
      () => mint({ iatOffset: -60, ttl: 60 - SKEW - 2 }),
    ],
    [
      'J6 nbf = now + skew + 2',
      'token_not_yet_valid',
      () => mint({ extra: { nbf: nowSec() + SKEW + 2 } }),
    ],
    ['J6 iat = now + skew + 2', 'issued_in_future', () => mint({ iatOffset: SKEW + 2, ttl: 60 })],
    ['J7 exp - iat = max_ttl + 1 s', 'lifetime_too_long', () => mint({ ttl: MAX_TTL + 1 })],
    [
      'J7 iat older than max_ttl',
      'lifetime_too_long',
      () => mint({ iatOffset: -(MAX_TTL + 100), ttl: MAX_TTL + 160 }),
    ],
    ['J7 a one-day token', 'lifetime_too_long', () => mint({ ttl: 86_400 })],
    ...(['sub', 'project_id', 'aud', 'iss', 'iat', 'exp'] as const).map(
      (k): TokenCase => [`J8 missing ${k}`, 'claim_invalid', () => edCtl(without(claims(), k))],
    ),
    ['J8 exp "9999" (string)', 'claim_invalid', () => edCtl(claims('alpha', { exp: '9999' }))],
    [
      'J8 exp a far-future string',
      'claim_invalid',
      () => edCtl(claims('alpha', { exp: String(nowSec() + 60) })),
    ],
    ['J8 iat a string', 'claim_invalid', () => edCtl(claims('alpha', { iat: String(nowSec()) }))],
    ['J8 project_id []', 'claim_invalid', () => edCtl(claims('alpha', { project_id: [] }))],
    [
      'J8 project_id ["alpha"]',
      'claim_invalid',
      () => edCtl(claims('alpha', { project_id: ['alpha'] })),
    ],
    ['J8 project_id ""', 'claim_invalid', () => edCtl(claims(''))],
    ['J8 project_id a number', 'claim_invalid', () => edCtl(claims('alpha', { project_id: 7 }))],
    ['J8 sub a number', 'claim_invalid', () => edCtl(claims('alpha', { sub: 123 }))],
    ['J8 sub ""', 'claim_invalid', () => edCtl(claims('alpha', { sub: '' }))],
    ['J8 nbf a string', 'claim_invalid', () => edCtl(claims('alpha', { nbf: String(nowSec()) }))],
    [
      'J8 payload not JSON',
      'token_malformed',
      () => {
        const h = Buffer.from('{"alg":"EdDSA"}').toString('base64url');
        return `${h}.${Buffer.from('not json').toString('base64url')}.AAAA`;
      },
    ],
    [
      'J8 payload a JSON array',
      'token_malformed',
      () => edCtl([] as unknown as Record<string, unknown>),
    ],
    ...(['jku', 'x5u'] as const).map(
      (h): TokenCase => [
        `J9 ${h} header pointing at a key server`,
        'header_not_allowed',
        () => mint({ header: { [h]: keyServer.url } }),
      ],
    ),
    [
      'J9 jwk header (embedded attacker key)',
      'header_not_allowed',
      () => mint({ header: { jwk: { kty: 'OKP', crv: 'Ed25519', x: 'A'.repeat(43) } } }),
    ],
    ['J9 x5c header', 'header_not_allowed', () => mint({ header: { x5c: ['MIIB'] } })],
    ['J9 kid ../../dev/null', 'kid_unknown', () => mint({ header: { kid: '../../dev/null' } })],
    ["J9 kid ' OR 1=1 --", 'kid_unknown', () => mint({ header: { kid: "' OR 1=1 --" } })],
    ['J9 kid of 10 KB', 'token_too_large', () => mint({ header: { kid: 'k'.repeat(10_240) } })],
    [
      'J9 unknown crit header',
      'header_not_allowed',
      () => edCtl(claims(), { crit: ['x-unknown'], 'x-unknown': true }),
    ],
    [
      'J9 typ at+jwt (not a bridge token type)',
      'typ_not_allowed',
      () => mint({ header: { typ: 'at+jwt' } }),
    ],
    [
      'J10 two segments only',
      'token_malformed',
      async () => (await mint()).split('.').slice(0, 2).join('.'),
    ],
    ['J10 four segments', 'token_malformed', async () => `${await mint()}.AAAA`],
    ['J10 garbage', 'token_malformed', () => 'not-a-jwt-at-all-xxxxxxxx'],
    ['J10 a 16 KB token', 'token_too_large', () => mint({ extra: { pad: 'p'.repeat(16 * 1024) } })],
    [
      'J12 a token bound to another certificate (replayed from elsewhere)',
      'cert_binding_mismatch',
      () => mint({ bindCertPem: w.pki.otherClient.certPem }),
    ],
    [
      'J12 an unbound token (auth.require_cert_binding is on by default)',
      'cert_binding_missing',
      () => mint({ bindCertPem: undefined }),
    ],
    [
      'J12 cnf without x5t#S256',
      'cert_binding_missing',
      () => mint({ bindCertPem: undefined, extra: { cnf: { jkt: 'abc' } } }),
    ],
  ];

  it.each(cases)('%s → UNAUTHENTICATED (%s)', async (_name, reason, make) => {
    const token = await make();
    rejected.push(token);
    await expectRejected(bearer(token), [token], reason);
  });

  it('J9 nothing was fetched from the key URLs the headers named', () => {
    expect(keyServer.url).not.toBe('');
    expect(keyServer.requests).toBe(0);
  });
});

describe('boundary partners pass (the failing cases above are not failing for another reason)', () => {
  const cases: [string, () => string | Promise<string>][] = [
    ['J6 exp = now - skew + 2', () => mint({ iatOffset: -60, ttl: 60 - SKEW + 2 })],
    ['J6 nbf = now + skew - 2', () => mint({ extra: { nbf: nowSec() + SKEW - 2 } })],
    ['J6 iat = now + skew - 2', () => mint({ iatOffset: SKEW - 2, ttl: 60 })],
    ['J7 exp - iat = max_ttl', () => mint({ ttl: MAX_TTL })],
    ['J4 aud as a one-element array', () => mint({ aud: ['bridge'] })],
    ['J8 all claims hand-built (the forge itself is sound)', () => edCtl(claims())],
    ['J3 alg "Ed25519" (RFC 9864 name)', () => edCtl(claims(), { alg: 'Ed25519' })],
    ['J9 typ JWT', () => mint({ header: { typ: 'JWT' } })],
  ];
  it.each(cases)('%s', async (_name, make) => {
    await expectAccepted(await make());
  });
});

describe('authorization metadata (J10)', () => {
  const mdWith = (entries: [string, string][]) => {
    const md = new Metadata();
    for (const [k, v] of entries) md.add(k, v);
    return md;
  };
  const cases: [string, string, (t: string) => Metadata][] = [
    ['J10 no metadata at all', 'token_missing', () => new Metadata()],
    ['J10 missing "Bearer " prefix', 'token_malformed', (t) => mdWith([['authorization', t]])],
    ['J10 "Basic" scheme', 'token_malformed', (t) => mdWith([['authorization', `Basic ${t}`]])],
    // gRPC metadata values are trimmed: "Bearer " arrives as an empty header.
    ['J10 "Bearer" with no token', 'token_missing', () => mdWith([['authorization', 'Bearer ']])],
    [
      'J10 two spaces after Bearer',
      'token_malformed',
      (t) => mdWith([['authorization', `Bearer  ${t}`]]),
    ],
    [
      'J10 trailing junk after the token',
      'token_malformed',
      (t) => mdWith([['authorization', `Bearer ${t} extra`]]),
    ],
    [
      'J10 the token in x-authorization',
      'token_missing',
      (t) => mdWith([['x-authorization', `Bearer ${t}`]]),
    ],
    ['J10 the token in "token"', 'token_missing', (t) => mdWith([['token', t]])],
    [
      'J10 two values joined in one header (as a proxy would)',
      'token_malformed',
      (t) => mdWith([['authorization', `Bearer ${t}, Bearer ${t}`]]),
    ],
  ];
  it.each(cases)('%s → UNAUTHENTICATED (%s)', async (_name, reason, build) => {
    const token = await mint();
    await expectRejected(build(token), [token], reason);
  });

  it('J10 two authorization values never leave a grpc-js client (HTTP/2 single-value header)', async () => {
    // Node's http2 refuses a repeated `authorization` header on the client side,
    // so the daemon's own "several values" check cannot be reached from Node;
    // the joined form above is what an intermediary could deliver instead.
    const token = await mint();
    const md = mdWith([
      ['authorization', `Bearer ${token}`],
      ['authorization', `Bearer ${token}`],
    ]);
    const before = await snapshot(w);
    const mark = w.daemon.audit.mark();
    const r = await outcome(
      call(w.client, (c) => c.stopSession, { sessionId: w.ref, force: true }, md),
    );
    expect(r.code).not.toBe('ok');
    expect(r.details).toMatch(/multiple values/);
    expectNoSecret(r.details, [token]);
    // Nothing reached the daemon, so nothing was decided there.
    expect(w.daemon.audit.since(mark)).toEqual([]);
    await expectUnchanged(w, before);
  });

  it('J10 the valid token itself is accepted (control)', async () => {
    await expectAccepted(await mint());
  });
});

describe('every RPC requires a bearer token', () => {
  const sid = () => w.ref;
  const unary: [string, (c: BridgeServiceClient, md: Metadata) => Promise<unknown>][] = [
    ['Health', (c, md) => call(c, (x) => x.health, {}, md)],
    ['ListProviders', (c, md) => call(c, (x) => x.listProviders, {}, md)],
    [
      'ListSessions',
      (c, md) =>
        call(
          c,
          (x) => x.listSessions,
          { projectId: '', statuses: [], pageSize: 0, pageToken: '' },
          md,
        ),
    ],
    ['GetSession', (c, md) => call(c, (x) => x.getSession, { sessionId: sid() }, md)],
    ['InterruptTurn', (c, md) => call(c, (x) => x.interruptTurn, { sessionId: sid() }, md)],
    ['RespondPermission', (c, md) => call(c, (x) => x.respondPermission, allowOnce(sid()), md)],
    [
      'AckEvents',
      (c, md) =>
        call(
          c,
          (x) => x.ackEvents,
          { sessionId: sid(), subscriberId: 'a', ackSeq: 1n, historyId: '' },
          md,
        ),
    ],
  ];
  it.each(unary)('J10 %s without a token → UNAUTHENTICATED (token_missing)', async (name, fn) => {
    const before = await snapshot(w);
    const mark = w.daemon.audit.mark();
    const r = await outcome(fn(w.client, new Metadata()));
    expect(r.code).toBe(status.UNAUTHENTICATED);
    expect(w.daemon.audit.since(mark)).toMatchObject([
      { kind: 'call', method: name, outcome: 'deny', reason: 'token_missing' },
    ]);
    await expectUnchanged(w, before);
  });

  it.each(['StreamEvents', 'StreamEventBatches'])(
    'J1 %s with an alg-none token → UNAUTHENTICATED, no events',
    async (name) => {
      const token = algNone(bound(claims()));
      rejected.push(token);
      const mark = w.daemon.audit.mark();
      const md = bearer(token);
      const stream =
        name === 'StreamEvents'
          ? streamEvents(w.client, { sessionId: w.ref }, md)
          : w.client.streamEventBatches({ sessionId: w.ref, subscriberId: '' }, md);
      const events: unknown[] = [];
      const error = await within(
        `the ${name} call to end`,
        new Promise<{ code: number; details: string } | undefined>((resolve) => {
          stream.on('data', (e: unknown) => events.push(e));
          stream.on('error', (e: { code: number; details: string }) => resolve(e));
          stream.on('end', () => resolve(undefined));
        }),
        STREAM_WAIT_MS,
      );
      expect(events).toEqual([]);
      expect(error?.code).toBe(status.UNAUTHENTICATED);
      expectNoSecret(error?.details ?? '', [token]);
      expect(w.daemon.audit.since(mark)).toMatchObject([
        { kind: 'call', method: name, outcome: 'deny', reason: 'alg_not_allowed' },
      ]);
    },
  );
});

describe('certificate binding and client identities (J12, J13)', () => {
  it('J12 the same bound token reused within its lifetime works (bearer reuse is allowed; binding stops replay elsewhere)', async () => {
    const token = await mint();
    for (let i = 0; i < 3; i++) await expectAccepted(token);
  });

  it('J12 bound to otherClient, used from otherClient → OK', async () => {
    const c = connect({ port: w.daemon.port, caPem: w.pki.ca.certPem, client: w.pki.otherClient });
    try {
      const token = await mint({ bindCertPem: w.pki.otherClient.certPem });
      const got = await call(c, (x) => x.getSession, { sessionId: w.ref }, bearer(token));
      expect(got.sessionId).toBe(w.ref);
    } finally {
      c.close();
    }
  });

  it('J13 a token of the "other" issuer (client_identities: other-plane) over the control-plane certificate → PERMISSION_DENIED (identity_not_allowed)', async () => {
    const token = await mint({ privatePem: other().privatePem, iss: 'other', project: 'beta' });
    rejected.push(token);
    const details = await expectRejected(
      bearer(token),
      [token],
      'identity_not_allowed',
      status.PERMISSION_DENIED,
    );
    expect(details[0]).toMatch(/certificate may not present tokens of issuer/);
    // The token was verified: its issuer and subject are known, and audited.
    const records = w.daemon.audit.all().filter((r) => r.reason === 'identity_not_allowed');
    expect(records.length).toBeGreaterThan(0);
    for (const r of records) expect(r).toMatchObject({ iss: 'other', sub: 'tester' });
  });

  it('J13 the same issuer over its own certificate works, for its own project only', async () => {
    const c = connect({ port: w.daemon.port, caPem: w.pki.ca.certPem, client: w.pki.otherClient });
    try {
      const token = await mint({
        privatePem: other().privatePem,
        iss: 'other',
        project: 'beta',
        bindCertPem: w.pki.otherClient.certPem,
      });
      const list = await call(
        c,
        (x) => x.listSessions,
        { projectId: '', statuses: [], pageSize: 0, pageToken: '' },
        bearer(token),
      );
      expect(list.sessions).toEqual([]);
      const r = await outcome(call(c, (x) => x.getSession, { sessionId: w.ref }, bearer(token)));
      expect(r.code).toBe(status.NOT_FOUND);
    } finally {
      c.close();
    }
  });
});

describe('secrets', () => {
  it('a valid token still works after all the rejections, and the ref session is intact', async () => {
    const got = await call(w.client, (c) => c.getSession, { sessionId: w.ref }, w.md);
    expect(got.status).toBe(2 /* RUNNING */);
    const { events } = await collect(
      streamEvents(w.client, { sessionId: w.ref }, w.md),
      (_e, all) => all.length >= Number(got.lastSeq),
    );
    expect(events.some((e) => e.type === EventType.EVENT_TYPE_INPUT_RECEIVED)).toBe(false);
  });

  it('no rejected token appears in the daemon log or the audit file', async () => {
    expect(rejected.length).toBeGreaterThan(50);
    const valid = String(w.md.get('authorization')[0]).slice('Bearer '.length);
    expectNoSecret(w.daemon.output(), [...rejected, valid]);
    expectNoSecret(JSON.stringify(w.daemon.audit.all()), [...rejected, valid]);
  });
});

describe('J14 a stream ends with UNAUTHENTICATED when the token that opened it expires', () => {
  // No skew: the token is refused, and its streams end, the moment it expires.
  const d = useDaemon({ config: { auth: { clock_skew: '0s' } } });

  it('J14 the stream ends at expiry with the bridge-auth-expired trailer, audited; a fresh token resumes after the last seq with nothing lost', async () => {
    const s = await d.sessions().start('mock');
    const sessionId = s.sessionId;
    await s.send('before the expiry');
    const token = await d.mint({ ttl: 2 });
    const mark = d.daemon.audit.mark();
    const stream = streamEvents(d.client, { sessionId, afterSeq: 0n }, bearer(token));
    const got: bigint[] = [];
    stream.on('data', (e: { seq: bigint }) => got.push(e.seq));
    const end = await within(
      'the stream to end at the token expiry',
      new Promise<{ code: number; details: string; metadata: Metadata }>((resolve) =>
        stream.on('error', resolve),
      ),
      STREAM_WAIT_MS,
    );
    expect(end.code).toBe(status.UNAUTHENTICATED);
    expect(end.details).toMatch(/expired/);
    expect(end.metadata.get('bridge-auth-expired')).toEqual(['true']);
    expectNoSecret(end.details, [token]);
    expect(got.length).toBeGreaterThan(0);
    expect(d.daemon.audit.since(mark)).toMatchObject([
      { kind: 'call', method: 'StreamEvents', outcome: 'allow' },
      { kind: 'call', method: 'StreamEvents', outcome: 'deny', reason: 'token_expired' },
    ]);
    // The session is untouched, and a fresh token picks up where the stream stopped.
    expect((await s.get()).status).toBe(2 /* RUNNING */);
    await s.send('after the expiry');
    const last = got.at(-1)!;
    const { events } = await collect(
      streamEvents(d.client, { sessionId, afterSeq: last }, await d.bearerFor(d.project)),
      (e) => e.text.includes('after the expiry') && e.type === EventType.EVENT_TYPE_INPUT_RECEIVED,
    );
    expect(events[0]?.seq).toBe(last + 1n);
  });
});

/** RFC 8705 `x5t#S256` of a PEM certificate. */
function x5t(certPem: string): string {
  return createHash('sha256').update(new X509Certificate(certPem).raw).digest('base64url');
}

/** The kid `bridge-ca jwt-mint` would put in a token of this key: its RFC 7638 thumbprint. */
function kidOf(publicPem: string): string {
  const { crv, kty, x } = createPublicKey(publicPem).export({ format: 'jwk' }) as Record<
    string,
    string
  >;
  return createHash('sha256').update(JSON.stringify({ crv, kty, x })).digest('base64url');
}
