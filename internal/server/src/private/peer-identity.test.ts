import { describe, expect, it } from 'vitest';
import { certificateIdentities } from './peer-identity.js';

describe('certificateIdentities', () => {
  it('lists the subject CN, then each URI SAN, leaving other SANs out', () => {
    expect(
      certificateIdentities({
        subject: { CN: 'prd-manager' } as never,
        subjectaltname: 'DNS:prd.example, URI:spiffe://prd/manager, IP Address:10.0.0.1, URI:urn:x',
      }),
    ).toEqual(['prd-manager', 'spiffe://prd/manager', 'urn:x']);
  });

  it('reads a URI SAN that Node quoted because it holds a comma', () => {
    expect(
      certificateIdentities({
        subject: {} as never,
        subjectaltname: 'URI:"spiffe://prd/a,b", DNS:x',
      }),
    ).toEqual(['spiffe://prd/a,b']);
  });

  it('has nothing to say about a certificate with neither', () => {
    expect(certificateIdentities({ subject: {} as never, subjectaltname: '' })).toEqual([]);
  });
});
