/**
 * A BridgeClient refuses bad options at construction with a TypeError that
 * names what is wrong, before anything goes on the wire; PEMs work given as
 * material (string or Buffer) or as the path of a file.
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BridgeClient, type BridgeClientOptions } from '@agent-bridge/bridgeclient';
import { useDaemon } from '@agent-bridge/harness';
import { afterAll, describe, expect, it } from 'vitest';
import { clientOptions, closeClients, sdkClient } from './helpers.js';

const bridge = useDaemon();
const dir = mkdtempSync(join(process.env.BRIDGE_TEST_TMPDIR ?? tmpdir(), 'sdk-pems-'));
afterAll(() => {
  closeClients();
  rmSync(dir, { recursive: true, force: true });
});

/** The TypeError `new BridgeClient(o)` throws; fails when it throws nothing or something else. */
function refusal(o: BridgeClientOptions): TypeError {
  let client: BridgeClient | undefined;
  try {
    client = new BridgeClient(o);
  } catch (err) {
    expect(err).toBeInstanceOf(TypeError);
    return err as TypeError;
  }
  client.close();
  throw new Error(`the client was built from ${JSON.stringify(o.target)}`);
}

const write = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text, { mode: 0o600 });
  return p;
};

describe('construction refuses bad options with a TypeError naming the problem', () => {
  it('missing mtls or jwt', () => {
    const o = clientOptions(bridge);
    expect(refusal({ ...o, mtls: undefined as never }).message).toBe(
      'mtls is required: the daemon only speaks mutual TLS',
    );
    expect(refusal({ ...o, jwt: undefined as never }).message).toBe(
      'jwt is required: every call carries a token',
    );
    for (const claim of ['issuer', 'subject', 'projectId'] as const) {
      expect(refusal({ ...o, jwt: { ...o.jwt, [claim]: '' } }).message).toBe(
        `jwt.${claim} is required`,
      );
    }
  });

  it('a JWT key that is not Ed25519, or not a key', () => {
    const o = clientOptions(bridge);
    const pem = (k: KeyObject) => k.export({ format: 'pem', type: 'pkcs8' }).toString();
    const ec = pem(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey);
    expect(refusal({ ...o, jwt: { ...o.jwt, privateKey: ec } }).message).toBe(
      'jwt.privateKey: an Ed25519 key is needed, got ec',
    );
    const rsa = pem(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey);
    expect(refusal({ ...o, jwt: { ...o.jwt, privateKey: rsa } }).message).toBe(
      'jwt.privateKey: an Ed25519 key is needed, got rsa',
    );
    // The public key is not something that signs.
    const pub = bridge.pki.issuers.control.publicPem;
    expect(refusal({ ...o, jwt: { ...o.jwt, privateKey: pub } }).message).toMatch(
      /^jwt\.privateKey: /,
    );
  });

  it('a TLS key that does not belong to the certificate', () => {
    const o = clientOptions(bridge);
    const e = refusal({ ...o, mtls: { ...o.mtls, key: bridge.pki.otherClient.keyPem } });
    expect(e.message).toMatch(/^mtls: .*key/i);
  });

  it('a certificate that is not one', () => {
    const o = clientOptions(bridge);
    const e = refusal({ ...o, mtls: { ...o.mtls, cert: bridge.pki.client.keyPem } });
    expect(e.message).toBe('mtls.cert: not a readable certificate');
  });

  it.each([
    '127.0.0.1',
    'localhost',
    '',
    ':9445',
    'http://127.0.0.1:9445',
    '127.0.0.1:9445/x',
    'a b:9445',
    '127.0.0.1:port',
    '::1:9445',
  ])('a bad target %j', (target) => {
    const o = clientOptions(bridge);
    expect(refusal({ ...o, target }).message).toBe(
      `target must be "host:port" with a port of 1-65535, got ${JSON.stringify(target)}`,
    );
  });

  it('a port beyond 65535, or port 0', () => {
    const o = clientOptions(bridge);
    for (const target of ['127.0.0.1:99999', '127.0.0.1:0']) {
      expect(refusal({ ...o, target }).message).toBe(
        `target must be "host:port" with a port of 1-65535, got ${JSON.stringify(target)}`,
      );
    }
  });

  it('a PEM path that does not exist, or a file without a PEM', () => {
    const o = clientOptions(bridge);
    const missing = join(dir, 'nowhere', 'ca.crt');
    expect(refusal({ ...o, mtls: { ...o.mtls, ca: missing } }).message).toBe(
      `mtls.ca: cannot read ${missing} (ENOENT)`,
    );
    expect(refusal({ ...o, mtls: { ...o.mtls, cert: missing } }).message).toBe(
      `mtls.cert: cannot read ${missing} (ENOENT)`,
    );
    expect(refusal({ ...o, mtls: { ...o.mtls, key: missing } }).message).toBe(
      `mtls.key: cannot read ${missing} (ENOENT)`,
    );
    expect(refusal({ ...o, jwt: { ...o.jwt, privateKey: missing } }).message).toBe(
      `jwt.privateKey: cannot read ${missing} (ENOENT)`,
    );
    const notPem = write('not-a-pem.txt', 'hello\n');
    expect(refusal({ ...o, mtls: { ...o.mtls, ca: notPem } }).message).toBe(
      `mtls.ca: ${notPem} holds no PEM`,
    );
    expect(refusal({ ...o, mtls: { ...o.mtls, ca: '' } }).message).toBe(
      'mtls.ca: give the PEM or the path of a file holding it',
    );
  });

  it('bad token lifetimes and retry settings', () => {
    const o = clientOptions(bridge);
    expect(refusal({ ...o, jwt: { ...o.jwt, ttl: '1s' } }).message).toBe(
      'jwt.ttl must be at least 2s',
    );
    expect(refusal({ ...o, jwt: { ...o.jwt, ttl: 'soon' } }).message).toBe(
      'jwt.ttl: bad duration "soon" (e.g. "30s", "5m")',
    );
    expect(refusal({ ...o, jwt: { ...o.jwt, ttl: -5 } }).message).toBe(
      'jwt.ttl must be a positive duration',
    );
    expect(refusal({ ...o, retry: { maxAttempts: 0 } }).message).toBe(
      'retry.maxAttempts must be an integer of at least 1',
    );
    expect(refusal({ ...o, retry: { initialDelayMs: 500, maxDelayMs: 100 } }).message).toBe(
      'retry delays must be positive, maxDelayMs at least initialDelayMs',
    );
  });

  it('bad event stream options, before any call', () => {
    const c = sdkClient(bridge);
    const id = '0b7c1d2e-6f3a-4c5b-9d8e-7f6a5b4c3d2e';
    expect(() => c.events(id, { afterSeq: -1 })).toThrow(
      new TypeError('afterSeq must be a non-negative safe integer, got -1'),
    );
    expect(() => c.events(id, { ackEvery: 0 })).toThrow(
      new TypeError('ackEvery must be a positive integer'),
    );
    const stream = c.events(id);
    stream[Symbol.asyncIterator]();
    expect(() => stream[Symbol.asyncIterator]()).toThrow(
      'an EventStream can be iterated only once',
    );
  });
});

describe('PEMs', () => {
  it('work as paths of files, as strings and as Buffers', async () => {
    const o = clientOptions(bridge);
    const paths = clientOptions(bridge, {
      mtls: {
        ca: write('ca.crt', bridge.pki.ca.certPem),
        cert: write('client.crt', bridge.pki.client.certPem),
        key: write('client.key', bridge.pki.client.keyPem),
        serverName: 'localhost',
      },
      jwt: { privateKey: write('jwt.key', bridge.pki.issuers.control.privatePem) },
    });
    const buffers = clientOptions(bridge, {
      mtls: {
        ca: Buffer.from(bridge.pki.ca.certPem),
        cert: Buffer.from(bridge.pki.client.certPem),
        key: Buffer.from(bridge.pki.client.keyPem),
        serverName: 'localhost',
      },
      jwt: { privateKey: Buffer.from(bridge.pki.issuers.control.privatePem) },
    });
    const ids = new Set<string>();
    for (const options of [o, paths, buffers]) {
      const c = sdkClient(bridge, options);
      const s = await c.startSession({ provider: 'mock', repoPath: bridge.daemon.repo });
      ids.add(s.sessionId);
      expect((await c.getSession(s.sessionId)).projectId).toBe('alpha');
      await c.stopSession(s.sessionId, { force: true });
    }
    expect(ids.size).toBe(3);
  });
});
