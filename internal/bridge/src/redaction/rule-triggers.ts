import { BUILTIN_RULES, type RedactionRule } from './redaction-rules.js';

// The prefilter in front of the rules: which of them a line could set off,
// found by their trigger words in one pass, so most lines run no rule.

/** Every trigger of the built-in rules, lower-case. */
export const TRIGGERS = [...new Set(BUILTIN_RULES.flatMap((r) => r.triggers))];

/** For each trigger, the rules it sets off: those with a trigger it contains ("sk-ant-" contains "sk-"). */
const SETS_OFF = new Map(
  TRIGGERS.map((t) => [t, BUILTIN_RULES.filter((r) => r.triggers.some((u) => t.includes(u)))]),
);

/** Occurrences of triggers already seen after which the search drops them. */
const REPEATS_BEFORE_NARROWING = 256;

/**
 * The rules worth running on a line, given it lower-cased (much faster to
 * search than with a case-insensitive pattern). One pass finds every
 * trigger occurrence, overlapping ones too; a line without any (the common
 * case) runs no rule at all. A line dense with one trigger (an adversary's
 * "eyJeyJeyJ…") narrows the search to the triggers not yet seen, so the
 * pass stays one scan.
 */
export function rulesFor(lower: string): readonly RedactionRule[] {
  const hit = new Set<RedactionRule>();
  const seen = new Set<string>();
  let search = ANY_TRIGGER;
  let repeats = 0;
  search.lastIndex = 0;
  for (let m = search.exec(lower); m !== null; m = search.exec(lower)) {
    const at = m.index;
    if (seen.has(m[0])) repeats++;
    else {
      seen.add(m[0]);
      for (const r of SETS_OFF.get(m[0]) ?? []) hit.add(r);
      if (hit.size === BUILTIN_RULES.length) break;
    }
    if (repeats > REPEATS_BEFORE_NARROWING) {
      repeats = 0;
      search = triggerPattern(TRIGGERS.filter((t) => !seen.has(t)));
    }
    // Step one character, not past the match: another trigger may start inside it.
    search.lastIndex = at + 1;
  }
  return hit.size === BUILTIN_RULES.length
    ? BUILTIN_RULES
    : BUILTIN_RULES.filter((r) => hit.has(r));
}

/**
 * One pattern for a set of strings, shaped as a trie ("a(?:kia|sia|…)"), so
 * a position is rejected after a character or two. Where one string is a
 * prefix of another the longer is tried first, so a match is the longest
 * string starting there; every shorter one it contains is accounted for by
 * SETS_OFF.
 */
function triggerPattern(strings: readonly string[]): RegExp {
  return new RegExp(trie(strings) || '(?!)', 'g');
}

function trie(strings: readonly string[]): string {
  const next = new Map<string, string[]>();
  let ends = false;
  for (const s of strings) {
    if (s === '') {
      ends = true;
      continue;
    }
    const c = s[0] as string;
    const rest = next.get(c) ?? [];
    rest.push(s.slice(1));
    next.set(c, rest);
  }
  if (next.size === 0) return '';
  const alts = [...next].map(
    ([c, rest]) => c.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&') + trie(rest),
  );
  const body = alts.length === 1 ? (alts[0] as string) : `(?:${alts.join('|')})`;
  if (!ends) return body;
  return alts.length === 1 && body.length === 1 ? `${body}?` : `(?:${body})?`;
}

const ANY_TRIGGER = triggerPattern(TRIGGERS);
