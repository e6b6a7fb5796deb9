// A CRL as bridge-ca wrote it before it left empty crlEntryExtensions out:
// the same CRL with an empty SEQUENCE appended to every revoked entry,
// signed again with the CA key. Built here with a DER walker of its own and
// node:crypto, so the fixture owes nothing to the code under test.
import { sign } from 'node:crypto';

interface Tlv {
  tag: number;
  content: Buffer;
}

function readTlv(input: Buffer, offset: number): { tlv: Tlv; end: number } {
  const tag = input[offset] as number;
  let length = input[offset + 1] as number;
  let at = offset + 2;
  if (length & 0x80) {
    const count = length & 0x7f;
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + (input[at++] as number);
  }
  return { tlv: { tag, content: input.subarray(at, at + length) }, end: at + length };
}

function children(content: Buffer): Tlv[] {
  const out: Tlv[] = [];
  for (let at = 0; at < content.length; ) {
    const { tlv, end } = readTlv(content, at);
    out.push(tlv);
    at = end;
  }
  return out;
}

function encode(tag: number, content: Buffer): Buffer {
  const n = content.length;
  const length =
    n < 0x80
      ? Buffer.from([n])
      : n < 0x100
        ? Buffer.from([0x81, n])
        : Buffer.from([0x82, n >> 8, n & 0xff]);
  return Buffer.concat([Buffer.from([tag]), length, content]);
}

const whole = (tlv: Tlv): Buffer => encode(tlv.tag, tlv.content);
const sequence = (parts: Buffer[]): Buffer => encode(0x30, Buffer.concat(parts));

/**
 * `der` is a CRL whose entries have no extensions; `digest` the hash its
 * signature algorithm names (sha384 for P-384, sha256 for RSA).
 */
export function withEmptyEntryExtensions(der: Buffer, caKeyPem: string, digest: string): Buffer {
  const [tbs, algorithm] = children(readTlv(der, 0).tlv.content) as [Tlv, Tlv];
  const fields = children(tbs.content);
  // version, signature, issuer, thisUpdate, nextUpdate, revokedCertificates, [0] extensions
  const revoked = fields[5] as Tlv;
  const entries = children(revoked.content).map((entry) =>
    sequence([...children(entry.content).map(whole), Buffer.from([0x30, 0x00])]),
  );
  const newTbs = sequence(fields.map((field, i) => (i === 5 ? sequence(entries) : whole(field))));
  const signature = sign(digest, newTbs, caKeyPem);
  return sequence([
    newTbs,
    whole(algorithm),
    encode(0x03, Buffer.concat([Buffer.from([0]), signature])),
  ]);
}
