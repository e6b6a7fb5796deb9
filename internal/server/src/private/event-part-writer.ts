import type { BridgeEvent } from '@agent-bridge/bridge';
import { SessionEvent } from '@agent-bridge/proto';

/** The SessionEvent field numbers this writer emits (see bridge.proto). */
const SEQ = 1;
const TIMESTAMP = 2;
const TYPE = 6;
const STREAM = 7;
const TEXT = 8;
const DONE = 9;
const ERROR = 10;
const TURN_ID = 11;
const VARINT = 0;
const LENGTH_DELIMITED = 2;

/**
 * Writes the per-event fields of a SessionEvent (all but the session
 * identity) straight into one reused buffer: the ring copies what it gets
 * at once, so storing an event allocates nothing here. The output is
 * ordinary protobuf (proto3 defaults left out), what ts-proto's encoder
 * would write for the same fields.
 */
export class EventPartWriter {
  private buf = Buffer.allocUnsafe(64 * 1024);
  private at = 0;

  /**
   * The encoding of `e` without session id, project id and provider; a view
   * of the writer's buffer, valid until the next call.
   */
  write(e: BridgeEvent, type: number): Uint8Array {
    // Field 12 (a Struct) as ts-proto writes it: rare enough not to matter.
    const data =
      e.data === undefined
        ? undefined
        : SessionEvent.encode(SessionEvent.fromPartial({ data: e.data })).finish();
    // Each UTF-16 unit takes at most 3 bytes of UTF-8; 64 bytes cover tags, lengths and numbers.
    this.reserve(
      64 +
        3 * (e.stream.length + e.text.length + e.error.length + e.turnId.length) +
        (data?.length ?? 0),
    );
    this.at = 0;
    if (e.seq !== 0) {
      this.tag(SEQ, VARINT);
      this.varint(e.seq);
    }
    this.timestamp(e.timestamp);
    if (type !== 0) {
      this.tag(TYPE, VARINT);
      this.varint(type);
    }
    this.string(STREAM, e.stream);
    this.string(TEXT, e.text);
    if (e.done) {
      this.tag(DONE, VARINT);
      this.buf[this.at++] = 1;
    }
    this.string(ERROR, e.error);
    this.string(TURN_ID, e.turnId);
    if (data) {
      this.buf.set(data, this.at);
      this.at += data.length;
    }
    return this.buf.subarray(0, this.at);
  }

  private reserve(bytes: number): void {
    if (this.buf.length < bytes) this.buf = Buffer.allocUnsafe(bytes);
  }

  /** google.protobuf.Timestamp: seconds (field 1) and nanos (field 2) of `ms` since the epoch. */
  private timestamp(ms: number): void {
    const seconds = Math.trunc(ms / 1000);
    const nanos = (ms % 1000) * 1_000_000;
    const size =
      (seconds === 0 ? 0 : 1 + varintSize(seconds)) + (nanos === 0 ? 0 : 1 + varintSize(nanos));
    this.tag(TIMESTAMP, LENGTH_DELIMITED);
    this.varint(size);
    if (seconds !== 0) {
      this.tag(1, VARINT);
      this.varint(seconds);
    }
    if (nanos !== 0) {
      this.tag(2, VARINT);
      this.varint(nanos);
    }
  }

  private string(field: number, s: string): void {
    if (s === '') return;
    this.tag(field, LENGTH_DELIMITED);
    const len = Buffer.byteLength(s, 'utf8');
    this.varint(len);
    this.at += this.buf.write(s, this.at, 'utf8');
  }

  private tag(field: number, wireType: number): void {
    this.buf[this.at++] = (field << 3) | wireType;
  }

  /** A non-negative integer below 2^53 as a varint. */
  private varint(n: number): void {
    while (n >= 0x80) {
      this.buf[this.at++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    this.buf[this.at++] = n;
  }
}

/** Bytes of `n` (non-negative, below 2^53) as a varint. */
export function varintSize(n: number): number {
  let size = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 0x80);
    size++;
  }
  return size;
}
