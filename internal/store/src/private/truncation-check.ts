import { statSync } from 'node:fs';
import { join } from 'node:path';

/** The store's file is not what LMDB wrote: reading it would crash the process. */
export class StoreDamagedError extends Error {
  constructor(
    readonly file: string,
    detail: string,
  ) {
    super(
      `the session store ${file} is damaged (${detail}); move it aside to start with an empty store, or restore it from a backup`,
    );
    this.name = 'StoreDamagedError';
  }
}

/**
 * Refuses a data file shorter than the pages its own meta page says are in
 * use. LMDB maps the file into memory and does not check it: a read past a
 * truncated end stops the process with SIGBUS instead of an error, so this
 * is checked once, at open, before any read.
 */
export function checkNotTruncated(dir: string, lastPage: number, pageSize: number): void {
  const file = join(dir, 'data.mdb');
  const size = statSync(file).size;
  const needed = (lastPage + 1) * pageSize;
  if (size < needed) {
    throw new StoreDamagedError(file, `${size} bytes, but its pages in use need ${needed}`);
  }
}
