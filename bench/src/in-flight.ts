/** Runs `call(i)` for i in [0, total) with at most `limit` running at once. */
export async function inFlight(
  total: number,
  limit: number,
  call: (i: number) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < total) await call(next++);
  };
  await Promise.all(Array.from({ length: Math.min(limit, total) }, worker));
}
