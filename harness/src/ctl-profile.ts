import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestPki } from './pki.js';

/**
 * Writes a bridgectl profile file with one profile, "dev", for the daemon on
 * `port` as project `project` of issuer "control", its key material copied
 * beside it (0600) and named by relative paths, as a profile's paths are
 * relative to its file. Returns the file's path (BRIDGECTL_PROFILES).
 */
export function writeCtlProfile(dir: string, port: number, pki: TestPki, project = 'p1'): string {
  const write = (name: string, text: string) => {
    writeFileSync(join(dir, name), text, { mode: 0o600 });
    return name;
  };
  const file = join(dir, 'profiles.yaml');
  writeFileSync(
    file,
    [
      'profiles:',
      '  dev:',
      `    address: 127.0.0.1:${port}`,
      '    server_name: localhost',
      `    ca: ${write('ca.crt', readFileSync(pki.caPath, 'utf8'))}`,
      `    cert: ${write('client.crt', pki.client.certPem)}`,
      `    key: ${write('client.key', pki.client.keyPem)}`,
      `    jwt_key: ${write('jwt.key', pki.issuers.control.privatePem)}`,
      '    issuer: control',
      `    project: ${project}`,
      '',
    ].join('\n'),
  );
  return file;
}
