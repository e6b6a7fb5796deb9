import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { REPO_ROOT, useDaemon } from '@agent-bridge/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkMinimalOutput,
  credentialVars,
  exampleEnv,
  type Finished,
  run,
} from './run-example.js';

// The SDK as a user outside this repository gets it: @agent-bridge/proto,
// @agent-bridge/scope and @agent-bridge/bridgeclient packed with pnpm (which turns `workspace:*` into
// versions), installed with npm into a fresh project under the OS temp
// directory (their dependencies from the registry), and the minimal example
// run there with plain node: no tsx, no "development" condition, so the
// package resolves to its dist/.
//
// dist/ is what gets packed, so it must match the sources: `tsc -b` of the
// SDK runs first. It is a no-op when dist/ is current (CI builds before it
// tests) and otherwise brings it up to date, so the test never packs a
// missing or stale build.

const bridge = useDaemon();
const work = mkdtempSync(join(tmpdir(), 'bridgeclient-pack-'));
const app = join(work, 'app');
afterAll(() => rmSync(work, { recursive: true, force: true }));

const PACKAGES = {
  proto: 'packages/proto',
  scope: 'packages/scope',
  bridgeclient: 'packages/bridgeclient',
} as const;
const version = (dir: string) =>
  (JSON.parse(readFileSync(join(REPO_ROOT, dir, 'package.json'), 'utf8')) as { version: string })
    .version;
const TYPES_NODE = (
  JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
    devDependencies: Record<string, string>;
  }
).devDependencies['@types/node'];

/** Fails with the command's output unless it exited 0. */
function succeeded(what: string, res: Finished): Finished {
  if (res.code !== 0) {
    throw new Error(
      `${what} failed (${res.signal ?? `exit ${res.code}`}):\n${res.stdout}${res.stderr}`,
    );
  }
  return res;
}

/** npm with none of the npm_* variables of a `pnpm test` or `npm test` run: it reads only its config files. */
const npmEnv = () =>
  Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));

/** Every file under `dir`, as paths relative to it. */
const filesUnder = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();

const installed = (pkg: string) => join(app, 'node_modules/@agent-bridge', pkg);

beforeAll(async () => {
  if (!relative(REPO_ROOT, work).startsWith('..')) {
    throw new Error(`the OS temp directory ${work} is inside the workspace: set TMPDIR elsewhere`);
  }
  const node = (args: string[], cwd: string, timeoutMs: number) =>
    run(process.execPath, args, { cwd, env: process.env, timeoutMs });
  succeeded(
    'tsc -b packages/bridgeclient',
    await node(
      [join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '-b', PACKAGES.bridgeclient],
      REPO_ROOT,
      120_000,
    ),
  );
  const tarballs: string[] = [];
  for (const dir of Object.values(PACKAGES)) {
    const packed = succeeded(
      `pnpm pack in ${dir}`,
      await node(
        [
          join(REPO_ROOT, 'node_modules/pnpm/bin/pnpm.cjs'),
          'pack',
          '--json',
          '--pack-destination',
          work,
        ],
        join(REPO_ROOT, dir),
        60_000,
      ),
    );
    tarballs.push((JSON.parse(packed.stdout) as { filename: string }).filename);
  }
  mkdirSync(app);
  writeFileSync(
    join(app, 'package.json'),
    `${JSON.stringify({ name: 'pack-check', private: true, type: 'module' }, null, 2)}\n`,
  );
  succeeded(
    'npm install',
    await run(
      'npm',
      [
        'install',
        '--no-audit',
        '--no-fund',
        '--cache',
        join(work, 'npm-cache'),
        ...tarballs,
        `@types/node@${TYPES_NODE}`,
      ],
      { cwd: app, env: npmEnv(), timeoutMs: 150_000 },
    ),
  );
  copyFileSync(
    join(REPO_ROOT, 'examples/minimal-control-plane.mjs'),
    join(app, 'minimal-control-plane.mjs'),
  );
}, 300_000);

describe('the packed SDK, installed outside the workspace', () => {
  it('holds the built JavaScript with its declarations and the sources its maps point to, and no tests', () => {
    const files = filesUnder(installed('bridgeclient'));
    expect(files).toEqual(
      expect.arrayContaining(['README.md', 'package.json', 'dist/index.js', 'dist/index.d.ts']),
    );
    expect(
      files.filter((f) => !/^(dist|src)\//.test(f) && !['README.md', 'package.json'].includes(f)),
    ).toEqual([]);
    expect(files.filter((f) => /(^|\/)testing\/|\.test\./.test(f))).toEqual([]);
    // Each module ships with its declarations, and its source maps resolve.
    for (const js of files.filter((f) => f.endsWith('.js'))) {
      expect(files).toContain(js.replace(/\.js$/, '.d.ts'));
      const map = JSON.parse(readFileSync(join(installed('bridgeclient'), `${js}.map`), 'utf8'));
      for (const source of map.sources as string[]) {
        expect(files).toContain(join(dirname(js), source));
      }
    }
    // What resolves the package by the "development" condition still finds it.
    const pkg = JSON.parse(readFileSync(join(installed('bridgeclient'), 'package.json'), 'utf8'));
    expect(pkg.exports['.']).toEqual({ types: './dist/index.d.ts', default: './dist/index.js' });
  });

  it('depends on the packed @agent-bridge/proto and scope by version, and npm took them from the tarballs', () => {
    const pkg = JSON.parse(readFileSync(join(installed('bridgeclient'), 'package.json'), 'utf8'));
    expect(pkg.dependencies['@agent-bridge/proto']).toBe(version(PACKAGES.proto));
    expect(pkg.dependencies['@agent-bridge/scope']).toBe(version(PACKAGES.scope));
    const lock = JSON.parse(readFileSync(join(app, 'package-lock.json'), 'utf8'));
    for (const name of Object.keys(PACKAGES)) {
      const entry = lock.packages[`node_modules/@agent-bridge/${name}`];
      expect(entry.version).toBe(version(PACKAGES[name as keyof typeof PACKAGES]));
      expect(entry.resolved).toMatch(new RegExp(`^file:.*agent-bridge-${name}-[^/]+\\.tgz$`));
    }
  });

  it('runs examples/minimal-control-plane.mjs with plain node', async () => {
    const res = await run(process.execPath, ['minimal-control-plane.mjs'], {
      cwd: app,
      env: exampleEnv({
        ...credentialVars(bridge.pki, bridge.scratch),
        BRIDGE_TARGET: `localhost:${bridge.daemon.port}`,
        BRIDGE_REPO: bridge.daemon.repo,
      }),
      timeoutMs: 45_000,
    });
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    checkMinimalOutput(res.stdout);
  }, 60_000);

  it('type-checks a TypeScript consumer against the declarations (skipLibCheck off)', async () => {
    writeFileSync(
      join(app, 'consumer.ts'),
      `import {
  BridgeClient,
  BridgeFleet,
  CursorLostError,
  FileCursorStore,
  isTerminal,
  type SessionEvent,
} from '@agent-bridge/bridgeclient';

export async function tail(client: BridgeClient, sessionId: string): Promise<SessionEvent[]> {
  const seen: SessionEvent[] = [];
  for await (const e of client.events(sessionId, { subscriberId: 'cp', ackEvery: 10 })) {
    seen.push(e);
    if (isTerminal(e)) client.close();
  }
  return seen;
}
export const store = new FileCursorStore('cursors');
export const lost = (err: unknown): string | undefined =>
  err instanceof CursorLostError ? err.instanceId : undefined;
export const fleet = (daemons: ConstructorParameters<typeof BridgeFleet>[0]['daemons']) =>
  new BridgeFleet({ daemons, cursorStore: store });
`,
    );
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          types: ['node'],
        },
        files: ['consumer.ts'],
      }),
    );
    const res = await run(
      process.execPath,
      [join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '-p', app],
      {
        cwd: app,
        env: process.env,
        timeoutMs: 60_000,
      },
    );
    expect(res.stdout + res.stderr).toBe('');
    expect(res.code).toBe(0);
  }, 90_000);
});
