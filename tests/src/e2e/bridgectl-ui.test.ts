// `bridgectl ui` as a user runs it: a real child process against a real
// daemon over mTLS, its settings from a profile file; the console it serves
// reached over HTTP as a browser would (the pages themselves are driven in
// Chromium by tests/src/console/).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  captureOutput,
  createTestPki,
  REPO_ROOT,
  startDaemon,
  type TestDaemon,
  within,
  writeCtlProfile,
} from '@agent-bridge/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let daemon: TestDaemon;
let dir: string;
let profiles: string;

beforeAll(async () => {
  const pki = await createTestPki();
  dir = mkdtempSync(join(tmpdir(), 'bridgectl-ui-'));
  daemon = await startDaemon({ pki });
  profiles = writeCtlProfile(dir, daemon.port, pki);
});
afterAll(async () => {
  await daemon?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function ui(args: string[]) {
  const env: NodeJS.ProcessEnv = { ...process.env, BRIDGECTL_PROFILES: profiles };
  for (const k of Object.keys(env))
    if (k.startsWith('BRIDGECTL_') && k !== 'BRIDGECTL_PROFILES') delete env[k];
  const proc = spawn(
    process.execPath,
    [
      '--conditions=development',
      '--import',
      'tsx',
      join(REPO_ROOT, 'cmd/bridgectl/src/main.ts'),
      'ui',
      ...args,
    ],
    { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const exited = once(proc, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  return { proc, output: captureOutput(proc), exited };
}

describe('bridgectl ui', () => {
  it('prints a sign-in link that works once, serves the console through it, and ends on Ctrl-C', async () => {
    const { proc, output, exited } = ui([]);
    try {
      await output.waitFor('the sign-in link', /signin\?token=\S+\n/);
      const link = /(http:\/\/127\.0\.0\.1:\d+\/signin\?token=\S+)/.exec(
        output.text(),
      )?.[1] as string;
      expect(output.text()).toContain(`console for 127.0.0.1:${daemon.port}`);
      const signIn = await fetch(link, { redirect: 'manual' });
      expect(signIn.status).toBe(303);
      const origin = new URL(link).origin;
      const cookie = signIn.headers.get('set-cookie') ?? '';
      expect(cookie).toMatch(
        new RegExp(
          `^bridge_console_${new URL(link).port}=[A-Za-z0-9_-]+; HttpOnly; SameSite=Strict; Path=/$`,
        ),
      );
      // The page key travels in the fragment, which the browser keeps to itself.
      const key = /^\/#key=([A-Za-z0-9_-]{43})$/.exec(signIn.headers.get('location') ?? '')?.[1];
      expect(key).toBeDefined();
      const jar = cookie.split(';')[0] as string;
      const page = await fetch(`${origin}/`, { headers: { cookie: jar } });
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<script type="module" src="/app.js">');
      const overview = await fetch(`${origin}/api/overview`, {
        headers: { cookie: jar, 'x-console-key': key as string },
      });
      expect(await overview.json()).toMatchObject({ health: { status: 'serving' } });
      expect((await fetch(link, { redirect: 'manual' })).status).toBe(403);
      proc.kill('SIGINT');
      const [code] = await within('bridgectl ui to end on SIGINT', exited, 15_000);
      expect(code).toBe(0);
    } finally {
      proc.kill('SIGKILL');
    }
  });

  it('listens on loopback addresses only, and says so in one line', async () => {
    const { output, exited } = ui(['--listen', '0.0.0.0:8080']);
    const [code] = await within('bridgectl ui to refuse', exited, 30_000);
    expect(code).toBe(2);
    expect(output.text()).toMatch(
      /^bridgectl: ui: --listen is a loopback address and port, such as 127\.0\.0\.1:8080, not "0\.0\.0\.0:8080"\n$/,
    );
  });

  it('says which port is taken', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const { port } = busy.address() as { port: number };
    try {
      const { output, exited } = ui(['--listen', `127.0.0.1:${port}`]);
      const [code] = await within('bridgectl ui to fail', exited, 30_000);
      expect(code).toBe(2);
      expect(output.text()).toMatch(
        new RegExp(`^bridgectl: ui: listen EADDRINUSE[^\\n]*${port}\\n$`),
      );
    } finally {
      busy.close();
    }
  });
});
