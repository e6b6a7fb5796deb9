import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CertAndKey, createCA, generateJwtKeyPair, issueCert } from '@agent-bridge/pki';

export interface TestPki {
  dir: string;
  ca: CertAndKey;
  caPath: string;
  serverCertPath: string;
  serverKeyPath: string;
  client: CertAndKey;
  /** A client certificate from a CA the daemon does not trust. */
  rogueClient: CertAndKey;
  /** Another trusted client (for cert-bound tokens). */
  otherClient: CertAndKey;
  /** Issuer name → private/public key of its JWT signing key. */
  issuers: Record<'control' | 'other', { privatePem: string; publicPem: string; pubPath: string }>;
}

/** A complete PKI for a test daemon, made with internal/pki (P-384). */
export async function createTestPki(): Promise<TestPki> {
  // Under the run's own directory when the suite's global setup made one.
  const dir = mkdtempSync(join(process.env.BRIDGE_TEST_TMPDIR ?? tmpdir(), 'bridge-pki-'));
  const ca = await createCA({ name: 'test CA' });
  const rogueCa = await createCA({ name: 'rogue CA' });
  const server = await issueCert({
    type: 'server',
    cn: 'localhost',
    sans: ['localhost', '127.0.0.1'],
    ca,
  });
  const client = await issueCert({ type: 'client', cn: 'control-plane', ca });
  const otherClient = await issueCert({ type: 'client', cn: 'other-plane', ca });
  const rogueClient = await issueCert({ type: 'client', cn: 'control-plane', ca: rogueCa });
  const write = (name: string, data: string) => {
    const p = join(dir, name);
    writeFileSync(p, data, { mode: 0o600 });
    return p;
  };
  const issuers = {} as TestPki['issuers'];
  for (const iss of ['control', 'other'] as const) {
    const k = await generateJwtKeyPair();
    issuers[iss] = {
      privatePem: k.privatePem,
      publicPem: k.publicPem,
      pubPath: write(`${iss}.pub`, k.publicPem),
    };
  }
  return {
    dir,
    ca,
    caPath: write('ca.crt', ca.certPem),
    serverCertPath: write('server.crt', server.certPem),
    serverKeyPath: write('server.key', server.keyPem),
    client,
    rogueClient,
    otherClient,
    issuers,
  };
}
