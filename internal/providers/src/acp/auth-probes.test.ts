import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { acpFlavour } from './acp-flavour.js';
import { probeGeminiAuth, probeOpencodeAuth } from './auth-probes.js';

const root = mkdtempSync(join(tmpdir(), 'acp-auth-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function home(files: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(root, 'home-'));
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(dir, rel, '..'), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  return dir;
}

/** A stand-in `opencode` that prints what `providers list` prints (0 credentials, as observed). */
function opencode(output: string, code = 0): string {
  const path = join(mkdtempSync(join(root, 'bin-')), 'opencode');
  writeFileSync(
    path,
    `#!/bin/sh\n[ "$1 $2" = "providers list" ] || exit 9\nprintf '%s\\n' '${output}'\nexit ${code}\n`,
  );
  chmodSync(path, 0o755);
  return path;
}

/** Stored logins visible, and no deadline (the stand-ins answer at once). */
const visible = { storedLoginsVisible: true, deadline: new AbortController().signal };

describe('acpFlavour', () => {
  it('knows opencode and gemini by name or by their ACP arguments', () => {
    expect(acpFlavour('opencode', ['acp'])).toBe('opencode');
    expect(acpFlavour('/usr/local/bin/gemini', ['--acp'])).toBe('gemini');
    expect(acpFlavour('/repo/tests/fixtures/fake-gemini.mjs', [])).toBe('gemini');
    expect(acpFlavour('/opt/bin/agent', ['--experimental-acp'])).toBe('gemini');
    expect(acpFlavour('/opt/bin/oc', ['acp'])).toBe('opencode');
    expect(acpFlavour('claude-agent-acp', [])).toBe('generic');
  });
});

describe('gemini auth probe', () => {
  it('is authenticated by an auth variable, naming only the variable', async () => {
    const r = await probeGeminiAuth({ HOME: home(), GEMINI_API_KEY: 'secret-value' }, visible);
    expect(r).toEqual({ state: 'authenticated', detail: 'GEMINI_API_KEY set (not validated)' });
    expect(r.detail).not.toContain('secret-value');
  });

  it('is unauthenticated with neither variables nor a selected auth type', async () => {
    expect(await probeGeminiAuth({ HOME: home() }, visible)).toMatchObject({
      state: 'unauthenticated',
    });
    const h = home({ '.gemini/settings.json': '{"security":{"auth":{}}}' });
    expect((await probeGeminiAuth({ HOME: h }, visible)).state).toBe('unauthenticated');
  });

  it('trusts a Google sign-in with cached credentials; other selected types are unknown', async () => {
    const signedIn = home({
      '.gemini/settings.json': '{"security":{"auth":{"selectedType":"oauth-personal"}}}',
      '.gemini/oauth_creds.json': '{}',
    });
    expect(await probeGeminiAuth({ HOME: signedIn }, visible)).toEqual({
      state: 'authenticated',
      detail: 'signed in with Google (cached credentials)',
    });
    const apiKey = home({
      '.gemini/settings.json': '{"security":{"auth":{"selectedType":"gemini-api-key"}}}',
    });
    expect(await probeGeminiAuth({ HOME: apiKey }, visible)).toEqual({
      state: 'unknown',
      detail: 'settings select auth type "gemini-api-key"; not verified',
    });
  });

  it('ignores stored settings when isolate_home hides them from sessions', async () => {
    const signedIn = home({
      '.gemini/settings.json': '{"security":{"auth":{"selectedType":"oauth-personal"}}}',
      '.gemini/oauth_creds.json': '{}',
    });
    expect((await probeGeminiAuth({ HOME: signedIn }, { storedLoginsVisible: false })).state).toBe(
      'unauthenticated',
    );
  });
});

describe('opencode auth probe', () => {
  it('reads the stored credential count from `opencode providers list`', async () => {
    const none = opencode('└  0 credentials');
    expect(await probeOpencodeAuth(none, { HOME: home() }, visible)).toEqual({
      state: 'unauthenticated',
      detail: 'opencode providers list: 0 credentials, and no provider key in the environment',
    });
    const two = opencode('└  2 credentials');
    expect(await probeOpencodeAuth(two, { HOME: home() }, visible)).toEqual({
      state: 'authenticated',
      detail: '2 stored credentials',
    });
  });

  it('counts provider keys, OPENCODE_CONFIG_CONTENT and config files', async () => {
    const none = opencode('└  0 credentials');
    expect(
      await probeOpencodeAuth(none, { HOME: home(), ANTHROPIC_API_KEY: 'sk-x' }, visible),
    ).toEqual({
      state: 'authenticated',
      detail: 'provider key in the environment: ANTHROPIC_API_KEY',
    });
    expect(
      (await probeOpencodeAuth(none, { HOME: home(), OPENCODE_CONFIG_CONTENT: '{}' }, visible))
        .state,
    ).toBe('unknown');
    const h = home({ '.config/opencode/opencode.json': '{}' });
    expect(await probeOpencodeAuth(none, { HOME: h }, visible)).toEqual({
      state: 'unknown',
      detail: `no stored credentials; ${join(h, '.config/opencode/opencode.json')} may carry them`,
    });
  });

  it('is unknown when the probe command fails', async () => {
    const broken = opencode('Error: database locked', 1);
    expect(await probeOpencodeAuth(broken, { HOME: home() }, visible)).toEqual({
      state: 'unknown',
      detail: '"opencode providers list" failed: Error: database locked',
    });
  });

  it('is unknown, "probe timed out", when the command outlasts the deadline', async () => {
    const path = join(mkdtempSync(join(root, 'bin-')), 'opencode');
    writeFileSync(path, '#!/bin/sh\nexec sleep 60\n');
    chmodSync(path, 0o755);
    const deadline = AbortSignal.timeout(200);
    expect(
      await probeOpencodeAuth(path, { HOME: home() }, { storedLoginsVisible: true, deadline }),
    ).toEqual({ state: 'unknown', detail: '"opencode providers list": probe timed out' });
  });
});
