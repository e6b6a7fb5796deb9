import { readFileSync } from 'node:fs';
import { BridgeClient, ResourceExhaustedError } from '@agent-bridge/bridgeclient';
import { createTestPki, type TestPki } from '@agent-bridge/harness';
import {
  BridgeServiceService,
  type HealthResponse,
  type ListProvidersResponse,
} from '@agent-bridge/proto';
import {
  Metadata,
  Server,
  ServerCredentials,
  type ServiceError,
  type sendUnaryData,
  status,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// RESOURCE_EXHAUSTED is retried only when the server marks it retryable with
// gRPC's retry pushback trailer. Today's daemon never marks one (it has no
// rate limit yet), so a loopback stand-in for it answers Health with the
// refusals this needs: the SDK side of the contract, ready for the daemon's.

let pki: TestPki;
let server: Server;
let port = 0;
/** How the next Health calls are refused, in order; then they succeed. */
let refusals: { pushbackMs?: number }[] = [];
let calls = 0;

const healthy: HealthResponse = {
  status: 'serving',
  providers: [],
  version: 'stand-in',
  serverInstanceId: 'i',
  historyId: 'h',
  startedAt: undefined,
  activeSessions: 0,
  retainedSessions: 0,
  sessionLimit: 1,
  projectActiveSessions: 0,
  projectSessionLimit: 1,
};

beforeAll(async () => {
  pki = await createTestPki();
  server = new Server();
  const impl: UntypedServiceImplementation = {
    health: (_call: unknown, cb: sendUnaryData<HealthResponse>) => {
      calls++;
      const refusal = refusals.shift();
      if (!refusal) return cb(null, healthy);
      const metadata = new Metadata();
      if (refusal.pushbackMs !== undefined) {
        metadata.set('grpc-retry-pushback-ms', String(refusal.pushbackMs));
      }
      const err: Partial<ServiceError> = {
        code: status.RESOURCE_EXHAUSTED,
        details: 'too many calls',
        metadata,
      };
      cb(err as ServiceError, null);
    },
    listProviders: (_call: unknown, cb: sendUnaryData<ListProvidersResponse>) =>
      cb(null, { providers: [] }),
  };
  server.addService(BridgeServiceService, impl);
  const creds = ServerCredentials.createSsl(
    Buffer.from(pki.ca.certPem),
    [{ private_key: Buffer.from(serverKey()), cert_chain: Buffer.from(serverCert()) }],
    true,
  );
  port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', creds, (err, p) => (err ? reject(err) : resolve(p))),
  );
});

afterAll(async () => {
  await new Promise<void>((resolve) => server?.tryShutdown(() => resolve()));
});

// The test PKI keeps the server's certificate and key as files.
const serverCert = () => readFileSync(pki.serverCertPath, 'utf8');
const serverKey = () => readFileSync(pki.serverKeyPath, 'utf8');

function client(): BridgeClient {
  return new BridgeClient({
    target: `127.0.0.1:${port}`,
    mtls: {
      ca: pki.ca.certPem,
      cert: pki.client.certPem,
      key: pki.client.keyPem,
      serverName: 'localhost',
    },
    jwt: {
      privateKey: pki.issuers.control.privatePem,
      issuer: 'control',
      subject: 'sdk-test',
      projectId: 'alpha',
    },
  });
}

describe('RESOURCE_EXHAUSTED and the retry pushback', () => {
  it('is retried when the server marks it retryable', async () => {
    const c = client();
    refusals = [{ pushbackMs: 50 }, { pushbackMs: 50 }];
    calls = 0;
    expect((await c.health()).version).toBe('stand-in');
    expect(calls).toBe(3);
    c.close();
  });

  it('is not retried without the mark, and carries no retryAfterMs', async () => {
    const c = client();
    refusals = [{}];
    calls = 0;
    const err = await c.health().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ResourceExhaustedError);
    expect(err).toMatchObject({ code: 'RESOURCE_EXHAUSTED', retryAfterMs: undefined });
    expect((err as Error).message).toBe('Health: too many calls');
    expect(calls).toBe(1);
    c.close();
  });

  // The pause honours the pushback: one longer than the deadline leaves nothing to retry within it.
  it('gives up with the refusal when the pushback would outlast the call deadline', async () => {
    const c = client();
    refusals = [{ pushbackMs: 60_000 }];
    calls = 0;
    const err = await c.health({ timeoutMs: 2000 }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'RESOURCE_EXHAUSTED', retryAfterMs: 60_000 });
    expect(calls).toBe(1);
    c.close();
  });
});
