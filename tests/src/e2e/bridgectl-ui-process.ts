/**
 * `bridgectl ui` run as a user runs it (a child process, its settings from
 * a profile file), and the console it serves reached over HTTP as a
 * signed-in browser would reach it.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { captureOutput, REPO_ROOT, within } from '@agent-bridge/harness';
import { expect } from 'vitest';

/** Starts `bridgectl ui …args` with the profiles of `profiles` and no other BRIDGECTL_ variable. */
export function startUi(profiles: string, args: string[]) {
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

/** A console signed in through its printed link: its API called with the cookie and page key. */
export interface SignedIn {
  link: string;
  origin: string;
  cookie: string;
  key: string;
  get(path: string): Promise<Response>;
  post(path: string, body: unknown): Promise<Response>;
}

/** Waits for the sign-in link `ui` prints, and follows it once. */
export async function signIn(ui: ReturnType<typeof startUi>): Promise<SignedIn> {
  await ui.output.waitFor('the sign-in link', /signin\?token=\S+\n/);
  const link = /(http:\/\/127\.0\.0\.1:\d+\/signin\?token=\S+)/.exec(
    ui.output.text(),
  )?.[1] as string;
  const res = await within('the sign-in', fetch(link, { redirect: 'manual' }));
  expect(res.status).toBe(303);
  const cookie = res.headers.get('set-cookie') ?? '';
  // The page key travels in the fragment, which the browser keeps to itself.
  const key = /^\/#key=([A-Za-z0-9_-]{43})$/.exec(res.headers.get('location') ?? '')?.[1];
  expect(key).toBeDefined();
  const origin = new URL(link).origin;
  const jar = cookie.split(';')[0] as string;
  const headers = { cookie: jar, 'x-console-key': key as string, origin };
  return {
    link,
    origin,
    cookie,
    key: key as string,
    get: (path) => within(`GET ${path}`, fetch(`${origin}${path}`, { headers })),
    post: (path, body) =>
      within(
        `POST ${path}`,
        fetch(`${origin}${path}`, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }),
      ),
  };
}
