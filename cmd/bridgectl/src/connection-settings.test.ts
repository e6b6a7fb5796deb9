import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CliError } from '@agent-bridge/cli';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveSettings } from './connection-settings.js';

const dir = mkdtempSync(join(tmpdir(), 'bridgectl-settings-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = join(dir, 'profiles.yaml');
writeFileSync(
  file,
  `profiles:
  dev:
    address: dev-host:1
    ca: certs/ca.crt
    cert: /abs/client.crt
    key: client.key
    jwt_key: jwt.key
    issuer: dev
    project: dev
  other:
    address: other-host:2
`,
);
const io = (env: Record<string, string> = {}) => ({
  stdout: () => {},
  stderr: () => {},
  env: { BRIDGECTL_PROFILES: file, ...env },
  cwd: '/work/here',
  now: () => new Date(),
});

describe('connection settings', () => {
  it('take the default profile "dev", its relative paths resolved against the file', async () => {
    const s = await resolveSettings({}, io());
    expect(s.values).toMatchObject({
      address: 'dev-host:1',
      ca: join(dir, 'certs/ca.crt'),
      cert: '/abs/client.crt',
      key: join(dir, 'client.key'),
    });
    expect(s.from.ca).toBe(`ca of profile "dev" in ${file}`);
  });

  it('prefer flags to BRIDGECTL_* variables and those to the profile; paths relative to cwd', async () => {
    const env = io({
      BRIDGECTL_ADDRESS: 'env-host:3',
      BRIDGECTL_PROJECT: 'env-project',
      BRIDGECTL_KEY: 'k.pem',
    });
    const s = await resolveSettings({ address: 'flag-host:4' }, env);
    expect(s.values).toMatchObject({
      address: 'flag-host:4',
      project: 'env-project',
      key: '/work/here/k.pem',
      issuer: 'dev',
    });
    expect(s.from).toMatchObject({
      address: '--address',
      project: '$BRIDGECTL_PROJECT',
      key: '$BRIDGECTL_KEY',
    });
  });

  it('select a profile by --profile over BRIDGECTL_PROFILE, and name what a profile lacks', async () => {
    const failure = resolveSettings({ profile: 'other' }, io({ BRIDGECTL_PROFILE: 'dev' }));
    await expect(failure).rejects.toThrow(CliError);
    await expect(failure).rejects.toThrow(
      /profile "other" .* lacks ca, cert, key, jwt_key, issuer, project: add them to it, or give --ca, --cert, --key, --jwt-key, --issuer, --project as flags/,
    );
    await expect(resolveSettings({}, io({ BRIDGECTL_PROFILE: 'gone' }))).rejects.toThrow(
      /no profile "gone" in/,
    );
  });

  it('refuse an unknown key in the profile file, naming the file and the key', async () => {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'profiles:\n  dev:\n    adress: x:1\n');
    await expect(resolveSettings({}, io({ BRIDGECTL_PROFILES: bad }))).rejects.toThrow(
      `${bad}: profile "dev": unknown key "adress"`,
    );
  });
});
