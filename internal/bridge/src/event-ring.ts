import { type BridgeEvent, eventBytes } from './event.js';

/**
 * A session's bounded event store: at most `maxEvents` events and
 * `maxBytes` bytes (see eventBytes); the oldest are evicted first, but the
 * newest event is always kept. Readers address events by seq, so a reader
 * is a position, not a queue: a slow reader costs no memory.
 */
export class EventRing {
  private readonly slots: (BridgeEvent | undefined)[];
  private readonly sizes: Float64Array;
  private head = 0; // index of the oldest event
  private count = 0;
  private bytes = 0;
  private last = 0;
  private waiters: (() => void)[] = [];

  constructor(
    readonly maxEvents: number,
    readonly maxBytes: number,
  ) {
    this.slots = new Array(maxEvents);
    this.sizes = new Float64Array(maxEvents);
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

  get byteSize(): number {
    return this.bytes;
  }

  /** Stores `event` (whose seq must be lastSeq + 1) and wakes waiting readers; returns its size. */
  push(event: BridgeEvent): number {
    const size = eventBytes(event);
    if (this.count === this.maxEvents) this.evictOldest();
    while (this.count > 0 && this.bytes + size > this.maxBytes) this.evictOldest();
    const idx = (this.head + this.count) % this.maxEvents;
    this.slots[idx] = event;
    this.sizes[idx] = size;
    this.count++;
    this.bytes += size;
    this.last = event.seq;
    if (this.waiters.length > 0) {
      const w = this.waiters;
      this.waiters = [];
      for (const wake of w) wake();
    }
    return size;
  }

  private evictOldest(): void {
    this.bytes -= this.sizes[this.head]!;
    this.slots[this.head] = undefined;
    this.head = (this.head + 1) % this.maxEvents;
    this.count--;
  }

  /** The event with `seq`, or undefined when evicted or not yet stored. */
  get(seq: number): BridgeEvent | undefined {
    const oldest = this.oldestSeq;
    if (this.count === 0 || seq < oldest || seq > this.last) return undefined;
    return this.slots[(this.head + (seq - oldest)) % this.maxEvents];
  }

  /** Up to `max` consecutive events starting at `fromSeq` (which must be retained). */
  slice(fromSeq: number, max: number): BridgeEvent[] {
    return this.sliceBounded(fromSeq, max, Number.POSITIVE_INFINITY);
  }

  /**
   * Consecutive events from `fromSeq` (which must be retained): at most
   * `maxEvents`, and at most `maxBytes` by eventBytes, but always at least one.
   * `sized`, when given, receives the total size of what was returned.
   */
  sliceBounded(
    fromSeq: number,
    maxEvents: number,
    maxBytes: number,
    sized?: (bytes: number) => void,
  ): BridgeEvent[] {
    const oldest = this.oldestSeq;
    const out: BridgeEvent[] = [];
    if (this.count === 0 || fromSeq < oldest) return out;
    const n = Math.min(maxEvents, this.last - fromSeq + 1);
    let idx = (this.head + (fromSeq - oldest)) % this.maxEvents;
    let bytes = 0;
    for (let i = 0; i < n; i++) {
      const size = this.sizes[idx]!;
      if (i > 0 && bytes + size > maxBytes) break;
      bytes += size;
      out.push(this.slots[idx]!);
      idx = idx + 1 === this.maxEvents ? 0 : idx + 1;
    }
    sized?.(bytes);
    return out;
  }

  /** Resolves on the next push, or when `signal` aborts. */
  nextPush(signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const onAbort = () => resolve();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      });
    });
  }
}
