import { TRIGGERS } from './rule-triggers.js';

/**
 * For the first two characters of a trigger (lower-case ASCII, at
 * `a * 128 + b`), a table of the third characters that complete one. Every
 * trigger is ASCII and at least three characters long (checked here), so a
 * text without any of these triples contains no trigger.
 */
const THIRD: (Uint8Array | undefined)[] = (() => {
  const table: (Uint8Array | undefined)[] = new Array(128 * 128).fill(undefined);
  for (const t of TRIGGERS) {
    if (t.length < 3 || !/^[\x20-\x7e]+$/.test(t) || t !== t.toLowerCase()) {
      throw new Error(
        `redaction trigger ${JSON.stringify(t)} must be 3+ lower-case ASCII characters`,
      );
    }
    const key = t.charCodeAt(0) * 128 + t.charCodeAt(1);
    const third = table[key] ?? new Uint8Array(128);
    third[t.charCodeAt(2)] = 1;
    table[key] = third;
  }
  return table;
})();

/**
 * False when no built-in rule can match anywhere in `text`: it is plain
 * ASCII without escape sequences and contains no trigger in any case. One
 * pass over the characters with a table lookup each, far cheaper than
 * lower-casing the text and searching it with a pattern, so the common
 * line (no secret, nothing that looks like one) costs little. Any other
 * character (non-ASCII text could lower-case to a trigger) answers true:
 * the caller then takes the full path.
 */
export function mayHoldSecret(text: string): boolean {
  const n = text.length;
  // The last two characters, lower-cased, as `a * 128 + b`.
  let pair = 0;
  for (let i = 0; i < n; i++) {
    let c = text.charCodeAt(i);
    if (c >= 0x80 || c === 0x1b) return true;
    if (c >= 0x41 && c <= 0x5a) c |= 0x20;
    if (i >= 2 && THIRD[pair]?.[c] === 1) return true;
    pair = (pair % 128) * 128 + c;
  }
  return false;
}
