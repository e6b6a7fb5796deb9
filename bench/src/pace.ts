/**
 * Calls `write(i)` for i = 0, 1, … at `perSecond` overall until `total`
 * writes are done, catching up on each 1 ms tick with as many as are due,
 * so the rate holds however late the timer fires. Resolves when done.
 */
export function paced(perSecond: number, total: number, write: (i: number) => void): Promise<void> {
  return new Promise((resolve) => {
    const t0 = process.hrtime.bigint();
    let done = 0;
    const tick = () => {
      const due = Math.min(
        total,
        Math.floor((Number(process.hrtime.bigint() - t0) / 1e9) * perSecond),
      );
      while (done < due) write(done++);
      if (done >= total) {
        clearInterval(timer);
        resolve();
      }
    };
    const timer = setInterval(tick, 1);
  });
}

/** A line of `width` bytes starting with the monotonic clock now, in ns. */
export function stampedLine(width: number): string {
  return `${process.hrtime.bigint()} `.padEnd(width, 'x');
}
