/**
 * A reproducible stream of numbers in [0, 1) from a 32-bit seed (a
 * SplitMix32 variant): a test that draws its random choices from here can
 * print the seed, and a failing run can be replayed with it.
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x9e3779b9) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return ((z ^ (z >>> 16)) >>> 0) / 2 ** 32;
  };
}

/** A fresh seed, or the one in env BRIDGE_TEST_SEED to replay a run. */
export function testSeed(): number {
  const given = process.env.BRIDGE_TEST_SEED;
  return given ? Number(given) >>> 0 : Math.floor(Math.random() * 2 ** 32);
}
