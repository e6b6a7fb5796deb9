import { describe, expect, it } from 'vitest';
import { createCA } from './create-ca.js';
import { createCrl } from './create-crl.js';
import { splitPem } from './pem.js';
import { type DerNode, oidToString, readDer } from './private/der.js';
import { x509 } from './private/x509.js';

const CRL_REASON_OID = '2.5.29.21';

/** The revokedCertificates entries of a CRL PEM, as parsed DER. */
function revokedEntries(pem: string): DerNode[] {
  const tbs = readDer(splitPem(pem)[0]?.der ?? Buffer.alloc(0)).children[0];
  // version, signature, issuer, thisUpdate, nextUpdate, revokedCertificates
  return tbs?.children[5]?.children ?? [];
}

describe('createCrl', () => {
  it('leaves crlEntryExtensions out of an entry without a reason, as RFC 5280 requires', async () => {
    const ca = await createCA({ name: 'root' });
    const pem = await createCrl({
      ca,
      revoked: [
        { serialHex: '0a' },
        { serialHex: '0b', reason: 'unspecified' },
        { serialHex: '0c', reason: 'keyCompromise' },
      ],
    });
    const [none, unspecified, withReason] = revokedEntries(pem);
    // serial and revocationDate only: no empty SEQUENCE after them.
    expect(none?.children).toHaveLength(2);
    expect(unspecified?.children).toHaveLength(2);
    const extensions = withReason?.children[2]?.children ?? [];
    expect(extensions.map((ext) => oidToString(ext.children[0] as DerNode))).toEqual([
      CRL_REASON_OID,
    ]);
    // The rebuilt CRL is signed again: its signature verifies with the CA key.
    const crl = new x509.X509Crl(pem);
    expect(await crl.verify({ publicKey: new x509.X509Certificate(ca.certPem).publicKey })).toBe(
      true,
    );
    expect(crl.entries.map((entry) => [entry.serialNumber, entry.reason])).toEqual([
      ['0a', undefined],
      ['0b', undefined],
      ['0c', x509.X509CrlReason.keyCompromise],
    ]);
  });
});
