const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * Parses a Go-style duration ("500ms", "30s", "10m", "1h30m", "7d") into
 * milliseconds. Returns undefined for anything else, including bare numbers:
 * a unitless "30" is ambiguous, so it is rejected rather than guessed.
 */
export function parseDuration(text: string): number | undefined {
  const s = text.trim();
  if (!/^(\d+(\.\d+)?(ms|s|m|h|d))+$/.test(s)) return undefined;
  let total = 0;
  for (const m of s.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)) {
    total += Number(m[1]) * UNIT_MS[m[2]!]!;
  }
  return Math.round(total);
}

const SIZE_UNITS: Record<string, number> = {
  b: 1,
  kb: 1000,
  kib: 1024,
  mb: 1000 ** 2,
  mib: 1024 ** 2,
  gb: 1000 ** 3,
  gib: 1024 ** 3,
};

/** Parses a byte size: an integer, or "64KiB", "8MiB", "1GB". Undefined when malformed. */
export function parseByteSize(value: unknown): number | undefined {
  if (typeof value === 'number')
    return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const m = /^(\d+)\s*([a-zA-Z]+)?$/.exec(value.trim());
  if (!m) return undefined;
  const unit = SIZE_UNITS[(m[2] ?? 'b').toLowerCase()];
  if (unit === undefined) return undefined;
  const n = Number(m[1]) * unit;
  return Number.isSafeInteger(n) ? n : undefined;
}
