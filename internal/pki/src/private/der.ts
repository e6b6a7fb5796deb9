// A minimal DER encoder and reader: just enough for the structures this
// package writes or inspects by hand (encrypted PKCS#8 parameters, CRL
// numbers, the CRL entries @peculiar/x509 encodes wrongly). Certificates and
// CRLs themselves go through @peculiar/x509.

export interface DerNode {
  tag: number;
  /** The content octets (for constructed types, the encoded children). */
  content: Buffer;
  /** Children of a constructed node (SEQUENCE, SET, context tags). */
  children: DerNode[];
}

function encodeLength(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let rest = length; rest > 0; rest >>= 8) bytes.unshift(rest & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function tlv(tag: number, content: Buffer): Buffer {
  return Buffer.concat([Buffer.from([tag]), encodeLength(content.length), content]);
}

export const der = {
  sequence: (...items: Buffer[]): Buffer => tlv(0x30, Buffer.concat(items)),
  octetString: (bytes: Buffer): Buffer => tlv(0x04, bytes),
  /** A BIT STRING of whole bytes (no unused bits), as signatures are. */
  bitString: (bytes: Buffer): Buffer => tlv(0x03, Buffer.concat([Buffer.from([0]), bytes])),
  nullValue: (): Buffer => Buffer.from([0x05, 0x00]),
  integer(value: number | bigint): Buffer {
    let hex = BigInt(value).toString(16);
    if (hex.length % 2) hex = `0${hex}`;
    let bytes = Buffer.from(hex, 'hex');
    // A set top bit would make the INTEGER negative.
    if ((bytes[0] ?? 0) & 0x80) bytes = Buffer.concat([Buffer.from([0]), bytes]);
    return tlv(0x02, bytes);
  },
  oid(dotted: string): Buffer {
    const arcs = dotted.split('.').map((arc) => BigInt(arc));
    const [first = 0n, second = 0n, ...rest] = arcs;
    const out: number[] = [];
    for (const arc of [first * 40n + second, ...rest]) {
      const groups: number[] = [];
      let value = arc;
      do {
        groups.unshift(Number(value & 0x7fn));
        value >>= 7n;
      } while (value > 0n);
      groups.forEach((group, i) => {
        out.push(i < groups.length - 1 ? group | 0x80 : group);
      });
    }
    return tlv(0x06, Buffer.from(out));
  },
};

/** A parsed element encoded again, as it was when it came in as DER. */
export function encodeDer(node: DerNode): Buffer {
  return tlv(node.tag, node.content);
}

/** Parses one DER element (and, for constructed types, its children). */
export function readDer(input: Buffer): DerNode {
  const { node, end } = readAt(input, 0);
  if (end !== input.length) throw new Error('trailing bytes after DER element');
  return node;
}

function readAt(input: Buffer, offset: number): { node: DerNode; end: number } {
  const tag = input[offset];
  let lengthByte = input[offset + 1];
  if (tag === undefined || lengthByte === undefined) throw new Error('truncated DER');
  let position = offset + 2;
  let length = lengthByte;
  if (lengthByte & 0x80) {
    const count = lengthByte & 0x7f;
    if (count === 0 || count > 4) throw new Error('unsupported DER length');
    length = 0;
    for (let i = 0; i < count; i++) {
      lengthByte = input[position++];
      if (lengthByte === undefined) throw new Error('truncated DER');
      length = length * 256 + lengthByte;
    }
  }
  const end = position + length;
  if (end > input.length) throw new Error('truncated DER');
  const content = input.subarray(position, end);
  const children: DerNode[] = [];
  if (tag & 0x20) {
    for (let at = 0; at < content.length; ) {
      const child = readAt(content, at);
      children.push(child.node);
      at = child.end;
    }
  }
  return { node: { tag, content, children }, end };
}

/** Decodes an OBJECT IDENTIFIER node to dotted form. */
export function oidToString(node: DerNode): string {
  const arcs: bigint[] = [];
  let value = 0n;
  for (const byte of node.content) {
    value = (value << 7n) | BigInt(byte & 0x7f);
    if (!(byte & 0x80)) {
      arcs.push(value);
      value = 0n;
    }
  }
  const [first = 0n, ...rest] = arcs;
  const head = first < 80n ? [first / 40n, first % 40n] : [2n, first - 80n];
  return [...head, ...rest].join('.');
}

/** Decodes an INTEGER node (non-negative values only). */
export function integerValue(node: DerNode): bigint {
  return node.content.length === 0 ? 0n : BigInt(`0x${node.content.toString('hex')}`);
}
