/**
 * U+2028 and U+2029 are valid inside a JSON string, but line splitters
 * that follow Unicode (Python's `splitlines()`, some log shippers) end a
 * line at them and cut the record in two. Escaped, the record reads the
 * same and is one line for everyone.
 */
export function escapeLineSeparators(json: string): string {
  return json.replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

/** One value as one JSON line (without its newline). */
export function jsonLine(value: unknown): string {
  return escapeLineSeparators(JSON.stringify(value));
}
