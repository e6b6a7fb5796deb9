import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCA, createCrl, issueCert } from '@agent-bridge/pki';
import { X509Certificate } from 'node:crypto';
import { createTestPki, REPO_ROOT, startDaemon, writeCtlProfile } from '../harness/index.js';

const pki = await createTestPki();
const revokedCert = await issueCert({ type: 'client', cn: 'revoked-one', ca: pki.ca });
const crl = join(pki.dir, 'crl.pem');
writeFileSync(crl, await createCrl({ ca: pki.ca, revoked: [{ serialHex: new X509Certificate(revokedCert.certPem).serialNumber.toLowerCase() }] }));
const daemon = await startDaemon({ pki, config: { tls: { crl: [crl] } } });
const dir = mkdtempSync(join(tmpdir(), 'probe-'));
const profiles = writeCtlProfile(dir, daemon.port, pki);
const w = (n: string, t: string) => { const p = join(dir, n); writeFileSync(p, t, { mode: 0o600 }); return p; };
const serverPem = { certPem: readFileSync(pki.serverCertPath, 'utf8'), keyPem: readFileSync(pki.serverKeyPath, 'utf8') };
const cases: Record<string, string[]> = {
  ok: [],
  revoked: ['--cert', w('r.crt', revokedCert.certPem), '--key', w('r.key', revokedCert.keyPem)],
  rogue: ['--cert', w('g.crt', pki.rogueClient.certPem), '--key', w('g.key', pki.rogueClient.keyPem)],
  serverAsClient: ['--cert', w('s.crt', serverPem.certPem), '--key', w('s.key', serverPem.keyPem)],
  wrongName: ['--server-name', 'evil.example'],
  ipNoName: ['--server-name', ''],
  untrustedDaemon: ['--ca', w('other-ca.crt', (await createCA({ name: 'x' })).certPem)],
  unreachable: ['--address', '127.0.0.1:1'],
  caUnreadable: ['--ca', join(dir, 'nope')],
};
const only = process.argv.slice(2);
for (const [name, args] of Object.entries(cases)) {
  if (only.length && !only.includes(name)) continue;
  const env = { ...process.env, BRIDGECTL_PROFILES: profiles };
  const r = spawnSync(process.execPath, ['--conditions=development', '--import', 'tsx', join(REPO_ROOT, 'cmd/bridgectl/src/main.ts'), 'health', ...args], { env, encoding: 'utf8' });
  console.log(`== ${name}: exit ${r.status}\n${r.stderr}`);
}
await daemon.stop();
