import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type TLSSocket } from 'node:tls';
import type { AuditRecord } from '@agent-bridge/bridge';
import { type CertAndKey, createCA, issueCert } from '@agent-bridge/pki';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTlsListener, type TlsListener, type TlsListenerOptions } from './tls-listener.js';
import { loadTlsMaterial } from './tls-material.js';

let dir: string;
let ca: CertAndKey;
let client: CertAndKey;
let rogue: CertAndKey;
const listeners: TlsListener[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tls-listener-'));
  ca = await createCA({ name: 'listener test CA' });
  const server = await issueCert({ type: 'server', cn: 'localhost', sans: ['localhost'], ca });
  client = await issueCert({ type: 'client', cn: 'client', ca });
  rogue = await issueCert({ type: 'client', cn: 'client', ca: await createCA({ name: 'rogue' }) });
  writeFileSync(join(dir, 'ca.crt'), ca.certPem);
  writeFileSync(join(dir, 'server.crt'), server.certPem);
  writeFileSync(join(dir, 'server.key'), server.keyPem, { mode: 0o600 });
});

afterAll(async () => {
  for (const l of listeners.splice(0)) {
    l.destroyAll();
    await l.close();
  }
  rmSync(dir, { recursive: true, force: true });
});

async function listen(
  over: Partial<Pick<TlsListenerOptions, 'audit' | 'onConnection'>>,
): Promise<TlsListener> {
  const material = await loadTlsMaterial({
    caBundle: join(dir, 'ca.crt'),
    cert: join(dir, 'server.crt'),
    key: join(dir, 'server.key'),
    crl: [],
  });
  const l = await startTlsListener({
    listen: '127.0.0.1:0',
    material,
    handshakeTimeoutMs: 5000,
    audit: () => undefined,
    logger: pino({ level: 'silent' }),
    onConnection: () => undefined,
    ...over,
  });
  listeners.push(l);
  return l;
}

/** Connects with `cert` and resolves once the daemon side has closed the connection. */
function closedByServer(port: number, cert: CertAndKey): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('the listener left the connection open for 5 s'));
    }, 5000);
    const socket = connect({
      port,
      host: '127.0.0.1',
      servername: 'localhost',
      ca: ca.certPem,
      cert: cert.certPem,
      key: cert.keyPem,
      ALPNProtocols: ['h2'],
      minVersion: 'TLSv1.3',
    });
    socket.on('error', () => undefined);
    socket.resume();
    socket.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

describe('startTlsListener', () => {
  it('closes a refused connection even when writing its audit record throws', async () => {
    const handed: TLSSocket[] = [];
    const tried: AuditRecord[] = [];
    const l = await listen({
      audit: (r) => {
        tried.push(r);
        throw new Error('audit disk full');
      },
      onConnection: (s) => handed.push(s),
    });
    await closedByServer(l.port, rogue);
    expect(tried.map((r) => r.reason)).toEqual(['untrusted_issuer']);
    expect(handed).toHaveLength(0);
  });

  it('closes an accepted connection when handing it to HTTP/2 throws', async () => {
    const l = await listen({
      onConnection: () => {
        throw new Error('injector gone');
      },
    });
    await closedByServer(l.port, client);
  });

  it('hands over only a connection that passed every check, after the handshake', async () => {
    const handed: TLSSocket[] = [];
    const refused: string[] = [];
    const l = await listen({
      audit: (r) => refused.push(r.reason),
      onConnection: (s) => {
        handed.push(s);
        s.destroy();
      },
    });
    await closedByServer(l.port, rogue);
    await closedByServer(l.port, client);
    expect(refused).toEqual(['untrusted_issuer']);
    expect(handed).toHaveLength(1);
    expect(handed[0]?.authorized).toBe(true);
    expect(handed[0]?.alpnProtocol).toBe('h2');
  });
});
