import { describe, expect, it } from 'vitest';
import type { BridgeEvent } from './event.js';
import { type EventCodec, jsonEventCodec } from './event-codec.js';
import { EventRing, INDEX_BYTES_PER_EVENT } from './event-ring.js';

const SESSION = { sessionId: 's', projectId: 'p', provider: 'mock' };

function ev(seq: number, text = `line ${seq}`): BridgeEvent {
  return {
    seq,
    timestamp: 0,
    ...SESSION,
    type: 'STDOUT',
    stream: 'stdout',
    text,
    done: false,
    error: '',
    turnId: '',
    data: undefined,
  };
}

/** The JSON codec, counting how often it encodes. */
function countingCodec(): EventCodec & { encoded: number } {
  const c = {
    encoded: 0,
    encode: (e: BridgeEvent) => {
      c.encoded++;
      return jsonEventCodec.encode(e);
    },
    decode: jsonEventCodec.decode,
  };
  return c;
}

const ring = (maxEvents: number, maxBytes: number, codec: EventCodec = jsonEventCodec) =>
  new EventRing(maxEvents, maxBytes, codec, SESSION);

const seqs = (r: EventRing, from: number, max = 100) =>
  r
    .read(from, max, Number.POSITIVE_INFINITY)
    ?.events()
    .map((e) => e.seq) ?? [];

describe('EventRing', () => {
  it('is empty at first', () => {
    const r = ring(4, 1 << 20);
    expect([r.oldestSeq, r.lastSeq, r.size]).toEqual([0, 0, 0]);
    expect(r.get(1)).toBeUndefined();
    expect(r.read(1, 10, 1 << 20)).toBeUndefined();
  });

  it('gives back each event as it was stored, session identity included', () => {
    const r = ring(4, 1 << 20);
    const e = { ...ev(1, 'héllo'), data: { n: 1, nested: { ok: true } }, turnId: 't1' };
    r.push(e);
    expect(r.get(1)).toEqual(e);
  });

  it('evicts the oldest events beyond the count bound', () => {
    const r = ring(4, 1 << 20);
    for (let i = 1; i <= 10; i++) r.push(ev(i));
    expect([r.oldestSeq, r.lastSeq, r.size]).toEqual([7, 10, 4]);
    expect(r.get(6)).toBeUndefined();
    expect(r.get(7)?.seq).toBe(7);
    expect(seqs(r, 7)).toEqual([7, 8, 9, 10]);
    expect(r.read(6, 100, 1 << 20)).toBeUndefined();
  });

  it('encodes each event once, however often it is read', () => {
    const codec = countingCodec();
    const r = ring(100, 1 << 20, codec);
    for (let i = 1; i <= 10; i++) r.push(ev(i));
    for (let reader = 0; reader < 5; reader++) r.read(1, 100, 1 << 20);
    expect(codec.encoded).toBe(10);
    const a = r.read(3, 1, 1 << 20)!.part(0);
    const b = r.read(3, 1, 1 << 20)!.part(0);
    expect(a.buffer).toBe(b.buffer); // views of the same stored bytes, not copies
    expect(Buffer.from(a).equals(Buffer.from(jsonEventCodec.encode(ev(3))))).toBe(true);
  });

  it('counts what it holds: chunks of encoded events and the index, within the byte bound', () => {
    const text = 'é'.repeat(100);
    const r = ring(100_000, 256 * 1024);
    let encoded = 0;
    for (let i = 1; i <= 5000; i++) encoded += r.push(ev(i, text));
    expect(r.size).toBeLessThan(5000);
    expect(r.byteSize).toBeLessThanOrEqual(256 * 1024);
    // What is retained is most of what is held: chunk slack and the index are small.
    const retained = r.read(r.oldestSeq, 100_000, Number.POSITIVE_INFINITY)!;
    expect(retained.count).toBe(r.size);
    expect(retained.bytes + r.size * INDEX_BYTES_PER_EVENT).toBeGreaterThan(r.byteSize * 0.6);
    expect(encoded).toBeGreaterThan(5000 * 200);
    expect(seqs(r, r.oldestSeq, 3)).toEqual([r.oldestSeq, r.oldestSeq + 1, r.oldestSeq + 2]);
  });

  it('keeps most of a small byte bound for events: chunks are at most an eighth of it', () => {
    const r = ring(100_000, 64 * 1024);
    for (let i = 1; i <= 300; i++) r.push(ev(i, 'x'.repeat(1000)));
    const retained = r.read(r.oldestSeq, 1000, Number.POSITIVE_INFINITY)!;
    // Free room: up to a chunk being filled and one being emptied, and the index.
    expect(retained.bytes).toBeGreaterThan(0.65 * 64 * 1024);
    expect(r.byteSize).toBeLessThanOrEqual(64 * 1024);
  });

  it('grows with what arrives instead of reserving room for maxEvents', () => {
    const small = ring(10_000_000, 1 << 30);
    expect(small.byteSize).toBeLessThan(1024);
    small.push(ev(1));
    expect(small.byteSize).toBeLessThan(4 * 1024);
    for (let i = 2; i <= 1000; i++) small.push(ev(i));
    // Chunks double up to 64 KiB, so at most about as much again as is stored is free room.
    const stored = small.read(1, 1000, Number.POSITIVE_INFINITY)!.bytes;
    expect(small.byteSize).toBeLessThan(2 * stored + 1024 * INDEX_BYTES_PER_EVENT);
  });

  it('keeps the newest event even when it alone exceeds the byte bound', () => {
    const r = ring(10, 100);
    r.push(ev(1, 'x'.repeat(500)));
    expect(r.size).toBe(1);
    r.push(ev(2, 'y'));
    expect(r.oldestSeq).toBe(2);
    expect(r.get(2)?.text).toBe('y');
  });

  it('bounds reads by encoded bytes but always returns at least one event, ending after a terminal event', () => {
    const r = ring(100, 1 << 20);
    for (let i = 1; i <= 10; i++) r.push(ev(i, 'x'.repeat(1000)));
    const per = r.read(1, 1, 1 << 20)!.bytes;
    expect(r.read(1, 100, per * 3)!.count).toBe(3);
    expect(r.read(1, 2, 1 << 20)!.count).toBe(2);
    expect(r.read(5, 100, 1)!.firstSeq).toBe(5);
    expect(r.read(5, 100, 1)!.count).toBe(1);
    r.push({ ...ev(11), type: 'SESSION_STOPPED', stream: 'system', done: true });
    const end = r.read(9, 100, 1 << 20)!;
    expect([end.count, end.lastSeq, end.terminal]).toEqual([3, 11, true]);
    expect(r.read(9, 2, 1 << 20)!.terminal).toBe(false);
  });

  it('wakes each waiting reader once, at the next push, unless it cancelled', () => {
    const r = ring(4, 1 << 20);
    const woke: string[] = [];
    const a = () => woke.push('a');
    const b = () => woke.push('b');
    r.onNextPush(a);
    r.onNextPush(b);
    r.cancelNextPush(b);
    r.push(ev(1));
    r.push(ev(2));
    expect(woke).toEqual(['a']);
  });

  it('wraps around and grows many times without losing order or bytes', () => {
    const r = ring(700, 1 << 20);
    for (let i = 1; i <= 5000; i++) {
      r.push(ev(i, `${i}:${'z'.repeat(i % 300)}`));
      expect(r.get(i)?.text).toBe(`${i}:${'z'.repeat(i % 300)}`);
    }
    expect(seqs(r, 4994, 10)).toEqual([4994, 4995, 4996, 4997, 4998, 4999, 5000]);
    expect(r.size).toBe(700);
    expect(r.get(4301)?.text).toBe(`4301:${'z'.repeat(4301 % 300)}`);
  });
});
