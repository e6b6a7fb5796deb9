/** How one provider's permission requests are decided (`providers.<id>.permissions` and friends). */
export interface PermissionPolicy {
  /** allow/deny: the policy answers every request; ask: a client does, within `timeoutMs`. */
  mode: 'allow' | 'deny' | 'ask';
  /** How long a request waits for a client's answer (mode ask). */
  timeoutMs: number;
  /** The answer when nobody gives one: on timeout, stop, shutdown or exit (a cancelled or ended turn's requests are denied). */
  fallback: 'allow' | 'deny';
  /** Tool names, `*` matching any run of characters, answered allow without asking (whatever the mode). */
  autoAllow: readonly string[];
}

/** What a provider with no permission settings gets: every request refused. */
export const DENY_ALL: PermissionPolicy = {
  mode: 'deny',
  timeoutMs: 5 * 60_000,
  fallback: 'deny',
  autoAllow: [],
};

/** A matcher for `auto_allow` entries: exact names, `*` for any run of characters. */
export function toolMatcher(patterns: readonly string[]): (tool: string) => boolean {
  if (patterns.length === 0) return () => false;
  const exact = new Set(patterns.filter((p) => !p.includes('*')));
  const globs = patterns
    .filter((p) => p.includes('*'))
    .map((p) => new RegExp(`^${p.split('*').map(escapeRegExp).join('.*')}$`, 's'));
  return (tool) => exact.has(tool) || globs.some((g) => g.test(tool));
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
