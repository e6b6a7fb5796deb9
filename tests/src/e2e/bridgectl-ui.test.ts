// `bridgectl ui` as a user runs it: a real child process against a real
// daemon over mTLS, its settings from a profile file; the console it serves
// reached over HTTP as a browser would (the pages themselves are driven in
// Chromium by tests/src/console/).
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createTestPki,
  startDaemon,
  type TestDaemon,
  within,
  writeCtlProfile,
} from '@agent-bridge/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signIn, startUi } from './bridgectl-ui-process.js';

let daemon: TestDaemon;
/** A second daemon of the same PKI: with the first, a fleet. */
let other: TestDaemon;
let dir: string;
let profiles: string;

beforeAll(async () => {
  const pki = await createTestPki();
  dir = mkdtempSync(join(tmpdir(), 'bridgectl-ui-'));
  [daemon, other] = await Promise.all([startDaemon({ pki }), startDaemon({ pki })]);
  profiles = writeCtlProfile(dir, daemon.port, pki);
});
afterAll(async () => {
  await Promise.all([daemon?.stop(), other?.stop()]);
  rmSync(dir, { recursive: true, force: true });
});

const ui = (args: string[]) => startUi(profiles, args);

/** Runs `ui …args`, which must refuse at once: its exit status and output. */
async function refused(args: string[]): Promise<{ code: number | null; text: string }> {
  const { output, exited } = ui(args);
  const [code] = await within('bridgectl ui to refuse', exited, 30_000);
  return { code, text: output.text() };
}

describe('bridgectl ui', () => {
  it('prints a sign-in link that works once, serves the console through it, and ends on Ctrl-C', async () => {
    const run = ui([]);
    const { proc, exited } = run;
    try {
      const signedIn = await signIn(run);
      expect(run.output.text()).toContain(`console for 127.0.0.1:${daemon.port}`);
      expect(signedIn.cookie).toMatch(
        new RegExp(
          `^bridge_console_${new URL(signedIn.link).port}=[A-Za-z0-9_-]+; HttpOnly; SameSite=Strict; Path=/$`,
        ),
      );
      const page = await fetch(`${signedIn.origin}/`, {
        headers: { cookie: signedIn.cookie.split(';')[0] as string },
      });
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<script type="module" src="/app.js">');
      const overview = await signedIn.get('/api/overview');
      expect(await overview.json()).toMatchObject({
        fleet: false,
        daemons: [{ name: `127.0.0.1:${daemon.port}`, health: { status: 'serving' } }],
      });
      expect((await fetch(signedIn.link, { redirect: 'manual' })).status).toBe(403);
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

  it('serves a fleet of listed daemons, each reached with the profile, placing and routing sessions', async () => {
    const run = ui([
      '--daemon',
      `one=127.0.0.1:${daemon.port}`,
      '--daemon',
      `two=127.0.0.1:${other.port}`,
    ]);
    try {
      const signedIn = await signIn(run);
      expect(run.output.text()).toContain('console for the fleet of one, two, project p1');
      const overview = (await (await signedIn.get('/api/overview')).json()) as {
        fleet: boolean;
        daemons: { name: string; reachable: boolean; health: { status: string } }[];
      };
      expect(overview.fleet).toBe(true);
      expect(overview.daemons.map((d) => [d.name, d.reachable, d.health.status])).toEqual([
        ['one', true, 'serving'],
        ['two', true, 'serving'],
      ]);
      // Started where the person says (a repository only two may use), listed there, found there.
      const started = await signedIn.post('/api/sessions', {
        provider: 'mock',
        repoPath: join(other.dir, 'repos', 'app'),
        daemon: 'two',
      });
      expect(started.status).toBe(201);
      const { sessionId } = (await started.json()) as { sessionId: string };
      const listed = (await (await signedIn.get('/api/sessions')).json()) as {
        sessions: { sessionId: string; daemon: string }[];
      };
      expect(listed.sessions.find((s) => s.sessionId === sessionId)?.daemon).toBe('two');
      const one = (await (await signedIn.get(`/api/sessions/${sessionId}`)).json()) as {
        daemon: string;
      };
      expect(one.daemon).toBe('two');
      const unknown = await signedIn.post('/api/sessions', {
        provider: 'mock',
        repoPath: join(other.dir, 'repos', 'app'),
        daemon: 'three',
      });
      expect(unknown.status).toBe(400);
      expect(await unknown.json()).toEqual({ error: 'the fleet has no daemon "three"' });
      expect((await signedIn.post(`/api/sessions/${sessionId}/stop`, {})).status).toBe(200);
      run.proc.kill('SIGINT');
      const [code] = await within('bridgectl ui to end on SIGINT', run.exited, 15_000);
      expect(code).toBe(0);
    } finally {
      run.proc.kill('SIGKILL');
    }
  });

  it('shows several projects, each called with its own tokens', async () => {
    const run = ui(['--projects', 'p1,p2']);
    try {
      const signedIn = await signIn(run);
      expect(run.output.text()).toContain(`console for 127.0.0.1:${daemon.port}, projects p1, p2`);
      expect(await (await signedIn.get('/api/console')).json()).toMatchObject({
        projects: ['p1', 'p2'],
      });
      const started = await signedIn.post('/api/sessions', {
        provider: 'mock',
        repoPath: join(daemon.dir, 'repos', 'app'),
        project: 'p2',
      });
      expect(started.status).toBe(201);
      const { sessionId } = (await started.json()) as { sessionId: string };
      const ids = async (project: string) =>
        (
          (await (await signedIn.get(`/api/sessions?project=${project}`)).json()) as {
            sessions: { sessionId: string; projectId: string }[];
          }
        ).sessions.map((s) => `${s.projectId}/${s.sessionId}`);
      expect(await ids('p2')).toEqual([`p2/${sessionId}`]);
      expect(await ids('p1')).not.toContain(`p1/${sessionId}`);
      expect((await signedIn.post(`/api/sessions/${sessionId}/stop`, {})).status).toBe(200);
    } finally {
      run.proc.kill('SIGKILL');
    }
  });

  it('refuses a fleet or projects it cannot use, in one line each', async () => {
    const open = join(dir, 'open.key');
    writeFileSync(open, 'not checked further', { mode: 0o644 });
    chmodSync(open, 0o644);
    const nats = ['--nats', 'tls://127.0.0.1:1', '--fleet', 'f'];
    const cases: [string[], string, number?][] = [
      [['--projects', 'p1,,p2'], '--projects is a list of project ids'],
      [
        ['--project', 'p1', '--projects', 'p1,p2'],
        '--project and --projects: give the projects once',
      ],
      [['--address', '127.0.0.1:1', '--daemon', 'one=127.0.0.1:1'], '--address names one daemon'],
      [['--fleet', 'f'], '--fleet goes with --nats'],
      [
        ['--daemon', 'one=127.0.0.1:1', '--nats-ca', 'ca', '--nats-key', 'k'],
        '--nats-ca, --nats-key go with --nats',
      ],
      [
        [...nats, '--nats-ca', open, '--nats-cert', open, '--nats-key', open],
        `--nats-key ${open} is open to other users (mode 0644)`,
        3,
      ],
      [['--projects', 'p1,p1'], '--projects names "p1" twice'],
      [['--daemon', 'one'], '--daemon is NAME=HOST:PORT'],
      [
        ['--daemon', 'one=127.0.0.1:1', '--daemon', 'one=127.0.0.1:2'],
        '--daemon names "one" twice',
      ],
      [
        ['--daemon', 'one=127.0.0.1:1', '--nats', 'tls://127.0.0.1:1'],
        'a fleet is --daemon … or --nats …, not both',
      ],
      [
        ['--nats', 'tls://127.0.0.1:1', '--fleet', 'f'],
        '--nats needs --nats-ca, --nats-cert, --nats-key as well',
      ],
    ];
    for (const [args, message, status = 2] of cases) {
      const { code, text } = await refused(args);
      expect(code, args.join(' ')).toBe(status);
      expect(text).toBe(`bridgectl: ${message}${text.slice(`bridgectl: ${message}`.length)}`);
      expect(text.split('\n').length, text).toBe(2);
    }
  });
});
