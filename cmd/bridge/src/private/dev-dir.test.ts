import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_DEV_DIR } from './dev-dir.js';

describe('the default dev directory', () => {
  it('is certs/dev at the root of the checkout, as the README says', () => {
    const root = dirname(dirname(DEFAULT_DEV_DIR));
    expect(DEFAULT_DEV_DIR).toBe(join(root, 'certs', 'dev'));
    expect(existsSync(join(root, 'pnpm-workspace.yaml'))).toBe(true);
    expect(existsSync(join(root, 'certs', 'README.md'))).toBe(true);
  });
});
