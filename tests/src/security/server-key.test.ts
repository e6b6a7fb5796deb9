/**
 * T9: the daemon refuses an encrypted server key: a clear error naming the
 * file, a non-zero exit, and no unencrypted key written anywhere. (The CA
 * key's wrong-passphrase cases are bridge-ca's: tests/src/pki/bridge-ca-errors.test.ts.)
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTestPki, startDaemon } from '@agent-bridge/harness';
import { encryptPrivateKey } from '@agent-bridge/pki';
import { describe, expect, it } from 'vitest';

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

describe('T9 encrypted server key', () => {
  it('T9 an encrypted tls.key → the daemon exits non-zero with an error naming the file; no unencrypted key is written', async () => {
    const pki = await createTestPki();
    const plain = readFileSync(pki.serverKeyPath, 'utf8');
    writeFileSync(pki.serverKeyPath, encryptPrivateKey(plain, 'correct horse'));
    const started = startDaemon({ pki });
    await expect(started).rejects.toThrow(/exited \(code [1-9]\d*\)/);
    await expect(started).rejects.toThrow(
      new RegExp(
        `tls\\.key: ${pki.serverKeyPath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is encrypted`,
      ),
    );
    for (const f of filesUnder(pki.dir)) {
      expect(readFileSync(f, 'utf8')).not.toContain('BEGIN PRIVATE KEY');
    }
  });
});
