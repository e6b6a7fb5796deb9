import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type CertAndKey, createCA, issueCert } from '@agent-bridge/pki';

/** The certificates of a test NATS cluster: its CA, one per server, and clients. */
export interface NatsPki {
  dir: string;
  ca: CertAndKey;
  caPath: string;
  serverCertPath: string;
  serverKeyPath: string;
  /** A client certificate (CN "bridge") and its files. */
  client: CertAndKey & { certPath: string; keyPath: string };
  /** Another client certificate of the cluster's CA. */
  issueClient(cn: string): Promise<CertAndKey>;
}

export async function createNatsPki(dir: string): Promise<NatsPki> {
  const ca = await createCA({ name: 'test NATS CA' });
  // Each server dials the others' routes with the certificate it serves with.
  const server = await issueCert({
    type: 'peer',
    cn: 'nats',
    sans: ['localhost', '127.0.0.1'],
    ca,
  });
  const client = await issueCert({ type: 'client', cn: 'bridge', ca });
  const write = (name: string, data: string) => {
    const p = join(dir, name);
    writeFileSync(p, data, { mode: 0o600 });
    return p;
  };
  return {
    dir,
    ca,
    caPath: write('ca.crt', ca.certPem),
    serverCertPath: write('server.crt', server.certPem),
    serverKeyPath: write('server.key', server.keyPem),
    issueClient: (cn) => issueCert({ type: 'client', cn, ca }),
    client: {
      ...client,
      certPath: write('client.crt', client.certPem),
      keyPath: write('client.key', client.keyPem),
    },
  };
}
