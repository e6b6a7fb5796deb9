import { describe, expect, it } from 'vitest';
import { coverageWarning, TESTED_VERSIONS, versionCoverage } from './tested-versions.js';

const claude = TESTED_VERSIONS.claude;

describe('versionCoverage', () => {
  it('places a version against the tested range by release number', () => {
    expect(versionCoverage('2.1.197', claude)).toBe('tested');
    expect(versionCoverage('2.1.332', claude)).toBe('tested');
    expect(versionCoverage('2.1.250', claude)).toBe('tested');
    // Numerically, not as text: 2.1.1000 is newer than 2.1.332.
    expect(versionCoverage('2.1.1000', claude)).toBe('newer');
    expect(versionCoverage('2.2', claude)).toBe('newer');
    expect(versionCoverage('2.1.96', claude)).toBe('older');
    expect(versionCoverage('2.1.332-beta.1', claude)).toBe('tested');
  });

  it('is unknown without a version or a range', () => {
    expect(versionCoverage('', claude)).toBe('unknown');
    expect(versionCoverage('not a version', claude)).toBe('unknown');
    expect(versionCoverage('2.1.400', undefined)).toBe('unknown');
  });
});

describe('coverageWarning', () => {
  it('names the CLI, its version and the range, only outside it', () => {
    expect(coverageWarning('2.1.400', 'newer', claude)).toBe(
      'claude-code 2.1.400 is newer than the versions the contract tests cover (2.1.197 to 2.1.332); it is served, but the adapter has not been proven against it',
    );
    expect(coverageWarning('2.1.300', 'tested', claude)).toBe('');
    expect(coverageWarning('', 'unknown', claude)).toBe('');
  });
});
