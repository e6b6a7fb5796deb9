import { createServer, connect, createSecureContext } from 'node:tls';
import { createCA, issueCert } from '@agent-bridge/pki';

const ca = await createCA({ name: 'probe CA' });
const srv = await issueCert({ type: 'server', cn: 'localhost', sans: ['localhost'], ca });
const cli = await issueCert({ type: 'client', cn: 'c', ca });
const server = createServer({ cert: srv.certPem, key: srv.keyPem, ca: ca.certPem, requestCert: true, rejectUnauthorized: false, minVersion: 'TLSv1.3', ALPNProtocols: ['h2'] });
const mode = process.argv[2] ?? 'refuse';
server.on('secureConnection', (s) => { if (mode === 'refuse') s.destroy(); else s.write('hello'); });
await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
const port = (server.address() as { port: number }).port;
for (let i = 0; i < 3; i++) {
  await new Promise<void>((resolve) => {
    const t = connect({ host: '127.0.0.1', port, servername: 'localhost', ca: ca.certPem, cert: cli.certPem, key: cli.keyPem, minVersion: 'TLSv1.3', ALPNProtocols: ['h2'] });
    const ev: string[] = [];
    t.on('secureConnect', () => ev.push(`secure(bytesRead=${t.bytesRead})`));
    t.on('session', () => ev.push(`session(bytesRead=${t.bytesRead})`));
    t.on('data', (d) => ev.push(`data ${d.length}`));
    t.on('end', () => ev.push(`end(bytesRead=${t.bytesRead})`));
    t.on('error', (e: Error & { code?: string }) => ev.push(`error ${e.code}`));
    t.on('close', () => { console.log(mode, ev.join(', ')); resolve(); });
    if (mode !== 'refuse') setTimeout(() => t.destroy(), 200);
  });
}
server.close();
