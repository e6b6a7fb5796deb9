/**
 * Helpers for the TLS tests: clients with their own certificates and bound
 * tokens, an open StreamEvents to watch being cut, and certificates with
 * extensions internal/pki never writes (made by openssl, an independent tool).
 */
import { spawnSync } from 'node:child_process';
import { randomUUID, X509Certificate } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type AuditLine,
  bearer,
  connect,
  type DaemonFixture,
  streamEvents,
  waitFor,
  within,
} from '@agent-bridge/harness';
import { type CertAndKey, createCrl } from '@agent-bridge/pki';
import type { BridgeServiceClient } from '@agent-bridge/proto';
import type { Metadata, ServiceError } from '@grpc/grpc-js';

export interface CertClient {
  client: BridgeServiceClient;
  md: Metadata;
  cert: CertAndKey;
  /** The serial as the daemon's audit records write it (Node's upper-case hex). */
  serial: string;
}

/** A client over `cert` with a token bound to it. */
export async function clientWith(w: DaemonFixture, cert: CertAndKey): Promise<CertClient> {
  const client = connect({ port: w.daemon.port, caPem: w.pki.ca.certPem, client: cert });
  const md = bearer(await w.mint({ bindCertPem: cert.certPem }));
  return { client, md, cert, serial: new X509Certificate(cert.certPem).serialNumber };
}

/**
 * Opens StreamEvents on `sessionId` over `c` and waits until the daemon
 * allowed it (its call record). `ended` settles with the stream's error.
 */
export async function openStream(
  w: DaemonFixture,
  c: CertClient,
  sessionId: string,
): Promise<{ ended: Promise<ServiceError> }> {
  const mark = w.daemon.audit.mark();
  const s = streamEvents(c.client, { sessionId }, c.md);
  const ended = new Promise<ServiceError>((resolve) => {
    s.on('error', (err: ServiceError) => resolve(err));
    s.on('end', () => resolve({ code: 0 } as ServiceError));
  });
  s.on('data', () => undefined);
  await w.daemon.audit.waitFor(
    'StreamEvents allowed',
    (r) => r.kind === 'call' && r.method === 'StreamEvents' && r.outcome === 'allow',
    mark,
  );
  return { ended };
}

/** Waits for the stream to end and returns its status code. */
export async function endCode(stream: { ended: Promise<ServiceError> }): Promise<number> {
  return (await within('the open stream to end', stream.ended, 10_000)).code;
}

/** Writes a CRL of `ca` revoking `serials` (hex) to `path`. */
export async function writeCrl(path: string, ca: CertAndKey, serials: string[]): Promise<void> {
  writeFileSync(
    path,
    await createCrl({ ca, revoked: serials.map((serialHex) => ({ serialHex })) }),
  );
}

/** Waits until the daemon has logged `count` applied TLS reloads. */
export async function reloaded(w: DaemonFixture, count: number): Promise<void> {
  await waitFor(
    `TLS reload #${count}`,
    () => (w.daemon.output().match(/"TLS material reloaded"/g) ?? []).length >= count,
  );
}

/** The `connection` record of the closure of `serial`'s connection. */
export async function closureRecord(
  w: DaemonFixture,
  mark: number,
  serial: string,
): Promise<AuditLine> {
  const [r] = await w.daemon.audit.waitFor(
    `connection closed for ${serial}`,
    (x) => x.kind === 'connection' && x.cert_serial === serial,
    mark,
  );
  return r as AuditLine;
}

export const hasOpenssl = spawnSync('openssl', ['version']).status === 0;

/**
 * A leaf signed by `ca` with exactly the extensions `ext` (openssl -extfile
 * lines), CN `cn`, valid for a day.
 */
export function opensslLeaf(dir: string, ca: CertAndKey, cn: string, ext: string[]): CertAndKey {
  const tag = join(dir, randomUUID());
  writeFileSync(`${tag}.ca.crt`, ca.certPem);
  writeFileSync(`${tag}.ca.key`, ca.keyPem, { mode: 0o600 });
  writeFileSync(`${tag}.ext`, `${ext.join('\n')}\n`);
  const run = (args: string[]) => {
    const r = spawnSync('openssl', args, { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`openssl ${args[0]} failed: ${r.stderr}`);
  };
  run(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', `${tag}.key`]);
  run(['req', '-new', '-key', `${tag}.key`, '-subj', `/CN=${cn}`, '-out', `${tag}.csr`]);
  run([
    'x509',
    '-req',
    '-in',
    `${tag}.csr`,
    '-CA',
    `${tag}.ca.crt`,
    '-CAkey',
    `${tag}.ca.key`,
    '-set_serial',
    `0x${randomUUID().replace(/-/g, '').slice(0, 16)}`,
    '-days',
    '1',
    '-extfile',
    `${tag}.ext`,
    '-out',
    `${tag}.crt`,
  ]);
  return {
    certPem: readFileSync(`${tag}.crt`, 'utf8'),
    keyPem: readFileSync(`${tag}.key`, 'utf8'),
  };
}
