/** The first chunk of a log; each next one doubles, up to its largest chunk size. */
const FIRST_CHUNK_BYTES = 2048;

/**
 * Append-only byte storage released from the front: records are copied
 * into shared chunks, so a record costs its bytes and no object of its
 * own, and memory is given back a whole chunk at a time once every record
 * in it is released. Chunks are never reused, so a view handed out earlier
 * stays valid for as long as its holder keeps it.
 */
export class ByteLog {
  private chunks: Buffer[] = [];
  /** Number of chunks[0]; chunk numbers only grow. */
  private first = 0;
  /** Write position in the newest chunk. */
  private used = 0;
  private held = 0;

  /** `maxChunkBytes`: the largest chunk made for small records. */
  constructor(private readonly maxChunkBytes: number) {}

  /** Bytes of every chunk still held (including the unwritten end of the newest). */
  get bytesHeld(): number {
    return this.held;
  }

  /** Bytes a record of `size` would add to bytesHeld: 0 when it fits in the newest chunk. */
  growthFor(size: number): number {
    const last = this.chunks[this.chunks.length - 1];
    if (last && this.used + size <= last.length) return 0;
    return this.nextChunkBytes(size);
  }

  /** Number of the chunk the last append went to. */
  get lastChunk(): number {
    return this.first + this.chunks.length - 1;
  }

  /** Copies `bytes` in; returns their offset in chunk `lastChunk` (no object per record). */
  append(bytes: Uint8Array): number {
    let last = this.chunks[this.chunks.length - 1];
    if (!last || this.used + bytes.length > last.length) {
      last = Buffer.allocUnsafeSlow(this.nextChunkBytes(bytes.length));
      this.chunks.push(last);
      this.held += last.length;
      this.used = 0;
    }
    const offset = this.used;
    last.set(bytes, offset);
    this.used += bytes.length;
    return offset;
  }

  /** Chunk number `chunk`, which must not have been released. */
  chunk(chunk: number): Buffer {
    const c = this.chunks[chunk - this.first];
    if (!c) throw new Error(`chunk ${chunk} was released`);
    return c;
  }

  /** Gives back every chunk numbered below `chunk`: nothing retained lives there any more. */
  releaseBefore(chunk: number): void {
    while (this.first < chunk && this.chunks.length > 0) {
      this.held -= this.chunks.shift()!.length;
      this.first++;
    }
  }

  /** Gives back everything; the next append starts a new chunk. */
  clear(): void {
    this.first += this.chunks.length;
    this.chunks = [];
    this.held = 0;
    this.used = 0;
  }

  private nextChunkBytes(size: number): number {
    // Small at first, so an idle session holds little; a record larger than
    // a chunk gets a chunk of its own size.
    const last = this.chunks[this.chunks.length - 1];
    const grown = Math.min(this.maxChunkBytes, last ? last.length * 2 : FIRST_CHUNK_BYTES);
    return Math.max(grown, size);
  }
}
