import { createPrivateKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  decryptPrivateKey,
  describeKeyEncryption,
  encryptPrivateKey,
  KEY_ENCRYPTION,
} from './key-encryption.js';
import { generateKey } from './key-type.js';
import type { PkiError } from './pki-error.js';

describe('encryptPrivateKey', () => {
  it('writes PBES2 PKCS#8 that Node reads with the passphrase only', async () => {
    const { privatePem } = await generateKey('ecdsa-p384');
    const encrypted = encryptPrivateKey(privatePem, 'pass phrase');
    expect(encrypted).toMatch(/^-----BEGIN ENCRYPTED PRIVATE KEY-----\n/);
    expect(describeKeyEncryption(encrypted)).toBe(
      `PBES2, PBKDF2-HMAC-SHA256 ${KEY_ENCRYPTION.iterations} iterations, AES-256-CBC`,
    );
    expect(createPrivateKey({ key: encrypted, passphrase: 'pass phrase' }).asymmetricKeyType).toBe(
      'ec',
    );
    expect(decryptPrivateKey(encrypted, 'pass phrase')).toBe(privatePem);
    expect(() => decryptPrivateKey(encrypted, 'Pass phrase')).toThrow(
      expect.objectContaining({ code: 'wrong-passphrase' }) as PkiError,
    );
  });

  it('uses a fresh salt and IV each time and refuses an empty passphrase', async () => {
    const { privatePem } = await generateKey('ecdsa-p384');
    expect(encryptPrivateKey(privatePem, 'x')).not.toBe(encryptPrivateKey(privatePem, 'x'));
    expect(() => encryptPrivateKey(privatePem, '')).toThrow('the passphrase is empty');
  });

  it('reads keys Node itself encrypted (other PBES2 parameters)', async () => {
    const { privatePem } = await generateKey('ecdsa-p384');
    const nodeEncrypted = createPrivateKey(privatePem)
      .export({ type: 'pkcs8', format: 'pem', cipher: 'aes-128-cbc', passphrase: 'p' })
      .toString();
    expect(decryptPrivateKey(nodeEncrypted, 'p')).toBe(privatePem);
    expect(describeKeyEncryption(nodeEncrypted)).toMatch(/2048 iterations, AES-128-CBC/);
  });
});
