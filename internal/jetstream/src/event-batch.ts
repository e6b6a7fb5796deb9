/** One event as JetStream keeps it. */
export interface StoredEvent {
  seq: number;
  bytes: Uint8Array;
}

/** The header that carries the seq of the first event of a message (`Bridge-Seq` is its last). */
export const FIRST_SEQ_HEADER = 'Bridge-First-Seq';

/**
 * Consecutive events of a session packed into one message: each as its
 * length (4 bytes, big-endian) and its bytes. One message for many events
 * is one JetStream round trip for many: a session's events reach the
 * stream at the rate the daemon takes them, not one acknowledgement each.
 */
export function packEvents(events: readonly StoredEvent[]): Uint8Array {
  let size = 0;
  for (const e of events) size += 4 + e.bytes.byteLength;
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for (const e of events) {
    out.writeUInt32BE(e.bytes.byteLength, at);
    out.set(e.bytes, at + 4);
    at += 4 + e.bytes.byteLength;
  }
  return out;
}

/** The events of a packed message whose first event is `firstSeq`; throws on a damaged message. */
export function unpackEvents(data: Uint8Array, firstSeq: number): StoredEvent[] {
  const buf = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const out: StoredEvent[] = [];
  let at = 0;
  while (at < buf.length) {
    if (at + 4 > buf.length) throw new Error(`a damaged fleet message at seq ${firstSeq}`);
    const len = buf.readUInt32BE(at);
    if (at + 4 + len > buf.length) throw new Error(`a damaged fleet message at seq ${firstSeq}`);
    out.push({ seq: firstSeq + out.length, bytes: buf.subarray(at + 4, at + 4 + len) });
    at += 4 + len;
  }
  return out;
}

/**
 * `events` (consecutive, oldest first) cut into runs whose packed size
 * stays within `maxBytes`; an event larger than that alone goes in a run of
 * its own.
 */
export function batchesOf(events: readonly StoredEvent[], maxBytes: number): StoredEvent[][] {
  const out: StoredEvent[][] = [];
  let run: StoredEvent[] = [];
  let size = 0;
  for (const e of events) {
    const add = 4 + e.bytes.byteLength;
    if (run.length > 0 && size + add > maxBytes) {
      out.push(run);
      run = [];
      size = 0;
    }
    run.push(e);
    size += add;
  }
  if (run.length > 0) out.push(run);
  return out;
}
