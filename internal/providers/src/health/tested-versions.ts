/**
 * The versions of each agent CLI the contract tests have passed with
 * (tests/contract: the real CLI through the daemon). A version outside the
 * range is still served: a newer CLI usually keeps its protocol, and
 * refusing it would refuse a working agent. It is reported instead, so an
 * operator knows the adapter has not been proven against it.
 */
export interface TestedVersions {
  /** The CLI's name as people know it ("claude-code"). */
  cli: string;
  oldest: string;
  newest: string;
}

/**
 * Where a provider's version stands against its tested range: `unknown`
 * when there is no version yet or no range (the mock, a generic ACP agent).
 */
export type VersionCoverage = 'unknown' | 'tested' | 'newer' | 'older';

/** Bump `newest` (and docs/providers.md) when the contract tests pass at a new pin. */
export const TESTED_VERSIONS = {
  claude: { cli: 'claude-code', oldest: '2.1.197', newest: '2.1.332' },
  codex: { cli: 'codex', oldest: '0.169.0', newest: '0.171.0' },
  opencode: { cli: 'opencode', oldest: '1.18.33', newest: '1.18.33' },
  gemini: { cli: 'gemini-cli', oldest: '0.61.0', newest: '0.61.0' },
} as const satisfies Record<string, TestedVersions>;

/** `version` against `tested`, by release number (a pre-release counts as its release). */
export function versionCoverage(
  version: string,
  tested: TestedVersions | undefined,
): VersionCoverage {
  const v = releaseOf(version);
  if (!tested || !v) return 'unknown';
  if (compare(v, releaseOf(tested.newest) ?? []) > 0) return 'newer';
  if (compare(v, releaseOf(tested.oldest) ?? []) < 0) return 'older';
  return 'tested';
}

/** The range in words: "2.1.197 to 2.1.332", or one version. */
export function describeRange(tested: TestedVersions): string {
  return tested.oldest === tested.newest ? tested.oldest : `${tested.oldest} to ${tested.newest}`;
}

/** What an operator should know about a version outside the range; '' inside it. */
export function coverageWarning(
  version: string,
  coverage: VersionCoverage,
  tested: TestedVersions | undefined,
): string {
  if (!tested || (coverage !== 'newer' && coverage !== 'older')) return '';
  return `${tested.cli} ${version} is ${coverage} than the versions the contract tests cover (${describeRange(tested)}); it is served, but the adapter has not been proven against it`;
}

function releaseOf(version: string): number[] | undefined {
  const m = /^v?(\d+(?:\.\d+)*)/.exec(version.trim());
  return m?.[1]?.split('.').map(Number);
}

function compare(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}
