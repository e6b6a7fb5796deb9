import { ByteLog } from './byte-log.js';
import { type BridgeEvent, isTerminal } from './event.js';
import type { EventCodec, SessionIdentity } from './event-codec.js';
import { EventSlice, type SliceParts } from './event-slice.js';

/** Index entries a ring starts with; it doubles as events arrive, up to maxEvents. */
const FIRST_INDEX_SLOTS = 32;
/** Bytes of one index entry: chunk number, offset and length (Uint32 each), flags (Uint8). */
export const INDEX_BYTES_PER_EVENT = 13;
const TERMINAL = 1;
/** The largest chunk of encoded events. */
const MAX_CHUNK_BYTES = 64 * 1024;

/**
 * A session's bounded event store: at most `maxEvents` events and
 * `maxBytes` bytes really held (the encoded events, see EventCodec, in
 * shared chunks, plus an index entry per event); the oldest are evicted
 * first, but the newest event is always kept. Memory grows with what
 * arrives, never preallocated for `maxEvents`. Readers address events by
 * seq, so a reader is a position, not a queue: a slow reader costs no
 * memory.
 */
export class EventRing {
  private readonly log: ByteLog;
  private chunkOf: Uint32Array;
  private offsetOf: Uint32Array;
  private lengthOf: Uint32Array;
  private flagsOf: Uint8Array;
  private head = 0; // index of the oldest event
  private count = 0;
  private last = 0;
  private ended = false;
  private waiters = new Set<() => void>();

  constructor(
    readonly maxEvents: number,
    readonly maxBytes: number,
    private readonly codec: EventCodec,
    private readonly session: SessionIdentity,
  ) {
    // Memory comes back a whole chunk at a time, so a chunk is at most an
    // eighth of the byte bound: a small bound is not half spent on a chunk
    // waiting for its last event to go.
    this.log = new ByteLog(Math.max(1024, Math.min(MAX_CHUNK_BYTES, Math.floor(maxBytes / 8))));
    const slots = Math.min(FIRST_INDEX_SLOTS, maxEvents);
    this.chunkOf = new Uint32Array(slots);
    this.offsetOf = new Uint32Array(slots);
    this.lengthOf = new Uint32Array(slots);
    this.flagsOf = new Uint8Array(slots);
  }

  /** Seq of the newest event; 0 when none was ever stored. */
  get lastSeq(): number {
    return this.last;
  }

  /** Seq of the oldest retained event; 0 when empty. */
  get oldestSeq(): number {
    return this.count === 0 ? 0 : this.last - this.count + 1;
  }

  get size(): number {
    return this.count;
  }

  /** Bytes held: the chunks of encoded events and the index. */
  get byteSize(): number {
    return this.log.bytesHeld + this.capacity * INDEX_BYTES_PER_EVENT;
  }

  private get capacity(): number {
    return this.flagsOf.length;
  }

  /** A terminal event is stored: nothing follows it. */
  get complete(): boolean {
    return this.ended;
  }

  /**
   * Encodes and stores `event` (whose seq must be lastSeq + 1), evicting
   * the oldest as the bounds require, and wakes waiting readers; returns
   * the size of its encoding.
   */
  push(event: BridgeEvent): number {
    return this.pushEncoded(event.seq, this.codec.encode(event), isTerminal(event));
  }

  /**
   * Stores an event already encoded with this ring's codec (copied here):
   * `seq` must be lastSeq + 1, except for the first event of a ring
   * reloaded from a store, which starts where its events do.
   */
  pushEncoded(seq: number, bytes: Uint8Array, terminal: boolean): number {
    if (this.last !== 0 && seq !== this.last + 1) {
      throw new Error(`event ${seq} stored after ${this.last}: seqs are consecutive`);
    }
    const size = bytes.byteLength;
    if (this.count === this.maxEvents) this.evictOldest();
    while (this.count > 0 && this.byteSize + this.growthFor(size) > this.maxBytes) {
      this.evictOldest();
    }
    if (this.count === this.capacity) this.grow();
    const idx = (this.head + this.count) % this.capacity;
    this.offsetOf[idx] = this.log.append(bytes);
    this.chunkOf[idx] = this.log.lastChunk;
    this.lengthOf[idx] = size;
    this.flagsOf[idx] = terminal ? TERMINAL : 0;
    this.count++;
    this.last = seq;
    if (terminal) this.ended = true;
    if (this.waiters.size > 0) {
      const w = this.waiters;
      this.waiters = new Set();
      for (const wake of w) wake();
    }
    return size;
  }

  /** What storing a record of `size` would add to byteSize. */
  private growthFor(size: number): number {
    const index = this.count === this.capacity ? this.grownCapacity() - this.capacity : 0;
    return this.log.growthFor(size) + index * INDEX_BYTES_PER_EVENT;
  }

  private grownCapacity(): number {
    return Math.min(this.maxEvents, this.capacity * 2);
  }

  /** Doubles the index (up to maxEvents), oldest entry first. */
  private grow(): void {
    const cap = this.grownCapacity();
    const order = (from: Uint32Array | Uint8Array, to: Uint32Array | Uint8Array) => {
      for (let i = 0; i < this.count; i++) to[i] = from[(this.head + i) % this.capacity]!;
    };
    const chunkOf = new Uint32Array(cap);
    const offsetOf = new Uint32Array(cap);
    const lengthOf = new Uint32Array(cap);
    const flagsOf = new Uint8Array(cap);
    order(this.chunkOf, chunkOf);
    order(this.offsetOf, offsetOf);
    order(this.lengthOf, lengthOf);
    order(this.flagsOf, flagsOf);
    this.chunkOf = chunkOf;
    this.offsetOf = offsetOf;
    this.lengthOf = lengthOf;
    this.flagsOf = flagsOf;
    this.head = 0;
  }

  private evictOldest(): void {
    this.head = (this.head + 1) % this.capacity;
    this.count--;
    if (this.count === 0) this.log.clear();
    else this.log.releaseBefore(this.chunkOf[this.head]!);
  }

  /** The event with `seq` decoded, or undefined when evicted or not yet stored. */
  get(seq: number): BridgeEvent | undefined {
    const slice = this.read(seq, 1, Number.POSITIVE_INFINITY);
    return slice && slice.firstSeq === seq ? slice.events()[0] : undefined;
  }

  /**
   * Consecutive events from `fromSeq`: at most `maxEvents`, and at most
   * `maxBytes` of encoding, but always at least one; ends after a terminal
   * event. Undefined when `fromSeq` is not retained.
   */
  read(fromSeq: number, maxEvents: number, maxBytes: number): EventSlice | undefined {
    const oldest = this.oldestSeq;
    if (this.count === 0 || fromSeq < oldest || fromSeq > this.last) return undefined;
    const n = Math.min(maxEvents, this.last - fromSeq + 1);
    const parts: SliceParts = { chunks: [], starts: [], lengths: [] };
    let idx = (this.head + (fromSeq - oldest)) % this.capacity;
    let bytes = 0;
    let terminal = false;
    for (let i = 0; i < n && !terminal; i++) {
      const size = this.lengthOf[idx]!;
      if (i > 0 && bytes + size > maxBytes) break;
      bytes += size;
      parts.chunks.push(this.log.chunk(this.chunkOf[idx]!));
      parts.starts.push(this.offsetOf[idx]!);
      parts.lengths.push(size);
      terminal = this.flagsOf[idx] === TERMINAL;
      idx = idx + 1 === this.capacity ? 0 : idx + 1;
    }
    return new EventSlice(fromSeq, parts, terminal, this.codec, this.session);
  }

  /** `event` encoded as a slice of its own, without storing it (a reader's own notice). */
  unstored(event: BridgeEvent): EventSlice {
    const bytes = Buffer.from(this.codec.encode(event));
    return new EventSlice(
      event.seq,
      { chunks: [bytes], starts: [0], lengths: [bytes.length] },
      isTerminal(event),
      this.codec,
      this.session,
    );
  }

  /**
   * Calls `wake` once, at the next push, unless cancelled first. A reader
   * that waits many times watches its own abort signal once (readEvents),
   * so a wait costs no listener on the signal.
   */
  onNextPush(wake: () => void): void {
    this.waiters.add(wake);
  }

  /** Readers waiting for the next push. */
  get waitingReaders(): number {
    return this.waiters.size;
  }

  /** Forgets a `wake` given to onNextPush (its reader has gone), so an idle ring keeps no dead readers. */
  cancelNextPush(wake: () => void): void {
    this.waiters.delete(wake);
  }
}
