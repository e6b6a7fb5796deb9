/**
 * Catalogue rows R1–R8, request validation: input size, message size,
 * repo_path, session_id, provider, agent_opts and RespondPermission's
 * answers. Each bad request gets its exact code, one deny audit record with
 * its reason, and changes nothing; the child never receives rejected input;
 * agents get literal argv and a filtered environment.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  asked,
  call,
  collect,
  DECISION,
  descendants,
  expectPermission,
  FAKE_AGENT,
  REPO_ROOT,
  requestIdOf,
  requestsOf,
  respondPermission,
  status,
  streamEvents,
  turnsDone,
} from '@agent-bridge/harness';
import {
  EventType,
  PermissionDecision,
  type SessionEvent,
  SessionStatus,
} from '@agent-bridge/proto';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectCallDenied, expectUnchanged, outcome, snapshot, useWorld } from './helpers.js';

const ARGV_ARGS = ['$(id)', '; rm -rf ~', '`id`', 'two words', '--flag=x y', '*', '|', '\\n'];

const w = useWorld({
  config: {
    sessions: { max_per_project: 20, max_global: 20 },
    providers: {
      // R8: the mock asks permission for a "/tool" line and waits.
      mock_ask: { adapter: 'mock', permissions: 'ask' },
      // R8: a codex whose command approval offers no accept: only deny may be answered.
      codex_deny_only: {
        adapter: 'codex',
        binary: join(REPO_ROOT, 'tests/fixtures/fake-codex.mjs'),
        permissions: 'ask',
        env: { FAKE_CODEX_DECISIONS: '["decline","cancel"]' },
      },
    },
  },
  fakeProviders: { echo: ['echo'], argv: ['argv', ...ARGV_ARGS] },
  env: { BRIDGE_CA_PASSPHRASE: 'hunter2', SECRET_TOKEN: 'xyz' },
});
let echo: string;
let dir: string;
let repos: string;

beforeAll(async () => {
  dir = w.daemon.dir;
  repos = join(dir, 'repos');
  mkdirSync(join(dir, 'reposevil'));
  mkdirSync(join(dir, 'outside'));
  mkdirSync(join(repos, 'app2'));
  writeFileSync(join(repos, 'file.txt'), 'not a directory');
  symlinkSync(join(dir, 'outside'), join(repos, 'escape'));
  symlinkSync('/etc', join(repos, 'etc-link'));
  symlinkSync(join(repos, 'app'), join(repos, 'inner-link'));
  symlinkSync(join(dir, 'outside', 'missing'), join(repos, 'dangling-out'));
  symlinkSync(join(repos, 'missing'), join(repos, 'dangling-in'));
  symlinkSync(join(repos, 'loop'), join(repos, 'loop'));
  execFileSync('mkfifo', [join(repos, 'fifo')]);
  echo = await start({ provider: 'echo' });
});

async function start(o: { provider?: string; repoPath?: string; sessionId?: string } = {}) {
  const sessionId = o.sessionId ?? randomUUID();
  await call(
    w.client,
    (c) => c.startSession,
    {
      projectId: w.project,
      sessionId,
      repoPath: o.repoPath ?? w.daemon.repo,
      provider: o.provider ?? 'mock',
      agentOpts: {},
    },
    w.md,
  );
  return sessionId;
}

const stop = (sessionId: string) =>
  call(w.client, (c) => c.stopSession, { sessionId, force: true }, w.md);

const startOutcome = (req: {
  sessionId?: string;
  repoPath?: string;
  provider?: string;
  agentOpts?: Record<string, string>;
}) =>
  outcome(
    call(
      w.client,
      (c) => c.startSession,
      {
        projectId: w.project,
        sessionId: req.sessionId ?? randomUUID(),
        repoPath: req.repoPath ?? w.daemon.repo,
        provider: req.provider ?? 'mock',
        agentOpts: req.agentOpts ?? {},
      },
      w.md,
    ),
  );

/** Rejected StartSession: exact code, audited with `reason`, nothing started, no process spawned. */
async function expectStartRejected(
  req: Parameters<typeof startOutcome>[0],
  code: number,
  reason?: string,
): Promise<string> {
  const before = await snapshot(w);
  const mark = w.daemon.audit.mark();
  const r = await startOutcome(req);
  expect(r.code).toBe(code);
  expect(r.details.length).toBeGreaterThan(0);
  if (reason) expectCallDenied(w, mark, 'StartSession', reason);
  await expectUnchanged(w, before);
  return r.details;
}

const lastSeq = async (sessionId: string) =>
  Number((await call(w.client, (c) => c.getSession, { sessionId }, w.md)).lastSeq);

/** Events of `sessionId` after `after` until `until` holds. */
const eventsAfter = (
  sessionId: string,
  after: number,
  until: (e: SessionEvent, all: SessionEvent[]) => boolean,
) =>
  collect(streamEvents(w.client, { sessionId, afterSeq: BigInt(after) }, w.md), until).then(
    (r) => r.events,
  );

/** Waits until everything the echo agent was sent has been echoed into the ring. */
async function quiet(sessionId: string): Promise<void> {
  const marker = `sync-${randomUUID()}`;
  const seq0 = await lastSeq(sessionId);
  await call(w.client, (c) => c.sendInput, { sessionId, text: marker, idempotencyKey: '' }, w.md);
  await eventsAfter(sessionId, seq0, (e) => e.text === `echo: ${marker}`);
}

describe('R1 input size at the byte limit (65536 bytes of UTF-8)', () => {
  const euro = '€'; // 3 bytes
  const cases: [string, string, boolean][] = [
    ['65536 × "a"', 'a'.repeat(65_536), true],
    ['65537 × "a"', 'a'.repeat(65_537), false],
    ['21845 × "€" + "a" = 65536 B', `${euro.repeat(21_845)}a`, true],
    ['21845 × "€" + "é" = 65537 B', `${euro.repeat(21_845)}é`, false],
    ['16384 × "😀" = 65536 B (32768 UTF-16 units)', '😀'.repeat(16_384), true],
    ['16384 × "😀" + "a" = 65537 B', `${'😀'.repeat(16_384)}a`, false],
    ['21846 × "€" = 65538 B in only 21846 characters', euro.repeat(21_846), false],
    ['empty text', '', false],
  ];

  it.each(cases)('R1 %s', async (_name, text, ok) => {
    expect(Buffer.byteLength(text, 'utf8') <= 65_536 && text.length > 0).toBe(ok);
    await quiet(echo);
    const seq0 = await lastSeq(echo);
    const mark = w.daemon.audit.mark();
    const r = await outcome(
      call(w.client, (c) => c.sendInput, { sessionId: echo, text, idempotencyKey: '' }, w.md),
    );
    const reason = text === '' ? 'input_empty' : 'input_too_large';
    if (!ok) expectCallDenied(w, mark, 'SendInput', reason);
    if (ok) {
      expect(r.code).toBe('ok');
      const events = await eventsAfter(
        echo,
        seq0,
        (e) => e.type === EventType.EVENT_TYPE_STDOUT && e.text.startsWith('echo: '),
      );
      const input = events.find((e) => e.type === EventType.EVENT_TYPE_INPUT_RECEIVED);
      expect(input?.text).toBe(text);
      return;
    }
    expect(r.code).toBe(status.INVALID_ARGUMENT);
    expect(r.details).toMatch(/text/);
    expect(r.details.length).toBeLessThan(300); // the input is not echoed back
    expect(await lastSeq(echo)).toBe(seq0);
    // The child got nothing: a marker sent now is the first thing it echoes.
    const marker = `marker-${randomUUID()}`;
    await call(
      w.client,
      (c) => c.sendInput,
      { sessionId: echo, text: marker, idempotencyKey: '' },
      w.md,
    );
    const events = await eventsAfter(echo, seq0, (e) => e.text === `echo: ${marker}`);
    expect(events.map((e) => [e.type, e.text])).toEqual([
      [EventType.EVENT_TYPE_INPUT_RECEIVED, marker],
      [EventType.EVENT_TYPE_STDOUT, `echo: ${marker}`],
    ]);
  });

  it.each([
    [
      'R1 idempotency_key over 128 bytes → INVALID_ARGUMENT, nothing written',
      { text: 'hi', idempotencyKey: 'k'.repeat(129) },
      status.INVALID_ARGUMENT,
      'idempotency_key_too_long',
    ],
    [
      // grpc-js refuses it before any handler runs, so the daemon never
      // learns who sent it: there is no audit record to write.
      'R2 a 5 MiB message → RESOURCE_EXHAUSTED (gRPC receive limit), nothing written, nothing audited',
      { text: 'x'.repeat(5 * 1024 * 1024), idempotencyKey: '' },
      status.RESOURCE_EXHAUSTED,
      undefined,
    ],
  ])('%s', async (_name, input, code, reason) => {
    await quiet(echo);
    const before = await snapshot(w);
    const seq0 = await lastSeq(echo);
    const mark = w.daemon.audit.mark();
    const r = await outcome(
      call(w.client, (c) => c.sendInput, { sessionId: echo, ...input }, w.md),
    );
    expect(r.code).toBe(code);
    if (reason) expectCallDenied(w, mark, 'SendInput', reason);
    else expect(w.daemon.audit.since(mark)).toEqual([]);
    expect(await lastSeq(echo)).toBe(seq0);
    await expectUnchanged(w, before);
  });
});

describe('repo_path (R3: malformed or outside the roots; R4: missing or not a directory)', () => {
  const p = (f: () => string) => f;
  const INVALID = [status.INVALID_ARGUMENT, 'repo_path_invalid'] as const;
  const OUTSIDE = [status.PERMISSION_DENIED, 'path_not_allowed'] as const;
  const MISSING = [status.FAILED_PRECONDITION, 'path_missing'] as const;
  const NOT_DIR = [status.FAILED_PRECONDITION, 'path_not_directory'] as const;
  const rejected: [string, () => string, readonly [number, string]][] = [
    ['R3 <allowed>/../../etc', p(() => `${repos}/../../etc`), INVALID],
    ['R3 <repo>/..', p(() => `${w.daemon.repo}/..`), INVALID],
    ['R3 <repo>/./', p(() => `${w.daemon.repo}/./`), INVALID],
    ['R3 relative repos/app', p(() => 'repos/app'), INVALID],
    ['R3 relative ./app', p(() => './app'), INVALID],
    ['R3 empty', p(() => ''), INVALID],
    ['R3 NUL byte at the end', p(() => `${w.daemon.repo}\0`), INVALID],
    ['R3 NUL byte then ../..', p(() => `${w.daemon.repo}\0/../../etc`), INVALID],
    ['R3 "//" prefix', p(() => `/${w.daemon.repo}`), INVALID],
    ['R3 "//" inside', p(() => `${repos}//app`), INVALID],
    ['R3 sibling prefix <dir>/reposevil', p(() => `${dir}/reposevil`), OUTSIDE],
    ['R3 the parent of the allowed root', p(() => dir), OUTSIDE],
    ['R3 /etc', p(() => '/etc'), OUTSIDE],
    ['R3 /', p(() => '/'), OUTSIDE],
    ['R3 symlink inside the root → a dir outside', p(() => `${repos}/escape`), OUTSIDE],
    ['R3 symlink inside the root → /etc', p(() => `${repos}/etc-link`), OUTSIDE],
    ['R3 dangling symlink inside the root → outside', p(() => `${repos}/dangling-out`), OUTSIDE],
    ['R3 /etc/passwd (a file outside)', p(() => '/etc/passwd'), OUTSIDE],
    ['R3 a path through a file outside', p(() => '/etc/passwd/x'), OUTSIDE],
    ['R3 literal glob characters', p(() => `${repos}/*`), MISSING],
    ['R4 missing dir inside the root', p(() => `${repos}/missing`), MISSING],
    ['R4 dangling symlink inside the root', p(() => `${repos}/dangling-in`), MISSING],
    ['R4 symlink loop inside the root', p(() => `${repos}/loop`), MISSING],
    ['R4 a file inside the root', p(() => `${repos}/file.txt`), NOT_DIR],
    ['R4 a path through a file inside the root', p(() => `${repos}/file.txt/x`), NOT_DIR],
    ['R4 a FIFO inside the root (answered, not blocked on)', p(() => `${repos}/fifo`), NOT_DIR],
  ];
  it.each(rejected)('%s → %j, audited', async (_name, path, [code, reason]) => {
    const details = await expectStartRejected({ repoPath: path() }, code, reason);
    expect(details).toMatch(/repo_path/);
  });

  const accepted: [string, () => string, () => string][] = [
    ['R3 trailing "/"', () => `${w.daemon.repo}/`, () => w.daemon.repo],
    ['R3 the allowed root itself', () => repos, () => repos],
    ['R3 symlink inside the root → inside it', () => `${repos}/inner-link`, () => w.daemon.repo],
  ];
  it.each(accepted)('%s is allowed and runs in the real path', async (_name, path, real) => {
    const sessionId = await start({ repoPath: path() });
    const got = await call(w.client, (c) => c.getSession, { sessionId }, w.md);
    expect(got.status).toBe(SessionStatus.SESSION_STATUS_RUNNING);
    expect(got.repoPath).toBe(real());
    expect(readlinkSync(`/proc/${got.pid}/cwd`)).toBe(real());
    await stop(sessionId);
  });

  // Regression: realpath() used to run before the allowed_paths check, so a
  // missing path outside every root answered FAILED_PRECONDITION and an
  // existing one PERMISSION_DENIED, letting any token holder probe the host's
  // file system (/home/<user>, /root/.ssh).
  it('R3 a missing path outside the allowed roots is PERMISSION_DENIED, like an existing one (existence oracle)', async () => {
    const existing = await startOutcome({ repoPath: `${dir}/outside` });
    const missing = await startOutcome({ repoPath: `${dir}/no-such-${randomUUID()}` });
    const missingRoot = await startOutcome({ repoPath: `/no-such-${randomUUID()}` });
    expect(existing.code).toBe(status.PERMISSION_DENIED);
    expect(missing.code).toBe(status.PERMISSION_DENIED);
    expect(missingRoot.code).toBe(status.PERMISSION_DENIED);
  });

  it('R3 a long repo_path is quoted cut short, never whole', async () => {
    const long = `${dir}/outside/${'x'.repeat(2000)}`;
    const details = await expectStartRejected({ repoPath: long }, status.PERMISSION_DENIED);
    expect(details).not.toContain('x'.repeat(100));
  });
});

describe('R5 session_id', () => {
  const u = () => randomUUID();
  const bad: [string, () => string][] = [
    ['not a UUID', () => 'abc'],
    ['uppercase', () => u().toUpperCase()],
    ['braces', () => `{${u()}}`],
    ['empty', () => ''],
    ['urn:uuid: prefix', () => `urn:uuid:${u()}`],
    ['no dashes', () => u().replaceAll('-', '')],
    ['trailing newline', () => `${u()}\n`],
    ['path traversal', () => `../${u()}`],
  ];
  it.each(bad)('R5 StartSession with session_id %s → INVALID_ARGUMENT', async (_name, id) => {
    await expectStartRejected({ sessionId: id() }, status.INVALID_ARGUMENT, 'session_id_invalid');
  });
  it.each(bad)(
    'R5 GetSession and SendInput with session_id %s → INVALID_ARGUMENT',
    async (_n, id) => {
      const sessionId = id();
      const before = await snapshot(w);
      const mark = w.daemon.audit.mark();
      const g = await outcome(call(w.client, (c) => c.getSession, { sessionId }, w.md));
      const s = await outcome(
        call(w.client, (c) => c.sendInput, { sessionId, text: 'x', idempotencyKey: '' }, w.md),
      );
      expect([g.code, s.code]).toEqual([status.INVALID_ARGUMENT, status.INVALID_ARGUMENT]);
      expect(w.daemon.audit.since(mark)).toMatchObject([
        { kind: 'call', method: 'GetSession', outcome: 'deny', reason: 'session_id_invalid' },
        { kind: 'call', method: 'SendInput', outcome: 'deny', reason: 'session_id_invalid' },
      ]);
      await expectUnchanged(w, before);
    },
  );

  it('R5 same id: identical retry returns the session; other params → ALREADY_EXISTS; also once ended', async () => {
    const sessionId = await start();
    const pid = (await call(w.client, (c) => c.getSession, { sessionId }, w.md)).pid;
    let before = await snapshot(w);
    const again = await startOutcome({ sessionId });
    expect(again.code).toBe('ok');
    await expectUnchanged(w, before); // no second process
    for (const other of [
      { provider: 'echo' },
      { repoPath: join(repos, 'app2') },
      { agentOpts: { model: 'x' } },
    ]) {
      await expectStartRejected(
        { sessionId, ...other },
        status.ALREADY_EXISTS,
        'session_id_in_use',
      );
    }
    expect((await call(w.client, (c) => c.getSession, { sessionId }, w.md)).pid).toBe(pid);

    await stop(sessionId);
    before = await snapshot(w);
    const ended = await startOutcome({ sessionId });
    expect(ended.code).toBe('ok'); // the retained session, not a new one
    const got = await call(w.client, (c) => c.getSession, { sessionId }, w.md);
    expect(got.status).not.toBe(SessionStatus.SESSION_STATUS_RUNNING);
    await expectUnchanged(w, before);
    await expectStartRejected({ sessionId, provider: 'echo' }, status.ALREADY_EXISTS);
  });
});

describe('R6 provider is an exact registry id', () => {
  const cases = [
    'claude; rm -rf ~',
    '../bin/sh',
    'MOCK',
    'Mock',
    '/bin/sh',
    process.execPath,
    FAKE_AGENT,
    'mock ',
    ' mock',
    'mock\0',
    'echo/../mock',
    '',
    'constructor',
    '__proto__',
  ];
  it.each(cases)('R6 provider %j → INVALID_ARGUMENT, nothing spawned', async (provider) => {
    const details = await expectStartRejected(
      { provider },
      status.INVALID_ARGUMENT,
      'unknown_provider',
    );
    // The message names the field and the configured ones; what was sent is shown only redacted, quoted and cut short.
    expect(details).toMatch(/^provider .* is not configured \(configured: mock/);
  });
});

describe('R7 agent_opts and the child process', () => {
  // A key outside a provider's allowlist is refused by policy; a value that
  // is not even the option's syntax is a malformed request.
  const opts: [Record<string, string>, 'key' | 'value'][] = [
    [{ '--dangerously-skip-permissions': 'true' }, 'key'],
    [{ '--config': '/etc/shadow' }, 'key'],
    [{ model: '$(id)' }, 'value'],
    [{ model: '`id`' }, 'value'],
    [{ model: 'a; b | c\nd' }, 'value'],
    [{ model: '-rf' }, 'value'],
    [{ NODE_OPTIONS: '--require /tmp/evil.js' }, 'key'],
    [{ LD_PRELOAD: '/tmp/evil.so' }, 'key'],
  ];
  const denied = [status.PERMISSION_DENIED, 'agent_opt_not_allowed'] as const;
  const malformed = [status.INVALID_ARGUMENT, 'agent_opt_malformed'] as const;
  const cases = [
    // mock takes `model` (claude's syntax), so only its values can be malformed.
    ...opts.map(([o, what]) => ['mock', o, what === 'key' ? denied : malformed] as const),
    // echo takes no agent_opts at all: every key is refused by policy.
    ...opts.map(([o]) => ['echo', o, denied] as const),
  ];
  it.each(cases)(
    'R7 %s with agent_opts %j → %j, nothing spawned',
    async (provider, agentOpts, [code, reason]) => {
      const details = await expectStartRejected({ provider, agentOpts }, code, reason);
      expect(details).toMatch(/agent_opts/);
    },
  );

  it('R7 configured args arrive as literal argv; the env has none of the daemon’s secrets', async () => {
    const sessionId = await start({ provider: 'argv' });
    const { events } = await collect(
      streamEvents(w.client, { sessionId, afterSeq: 0n }, w.md),
      (e) => e.text.startsWith('{"cwd"'),
    );
    const lines = events.filter((e) => e.type === EventType.EVENT_TYPE_STDOUT).map((e) => e.text);
    const argv = JSON.parse(lines.find((l) => l.startsWith('['))!);
    expect(argv).toEqual(['argv', ...ARGV_ARGS]);
    const { cwd, env } = JSON.parse(lines.find((l) => l.startsWith('{"cwd"'))!) as {
      cwd: string;
      env: Record<string, string>;
    };
    expect(cwd).toBe(w.daemon.repo);
    expect(env.PATH).toBeTruthy();
    for (const k of ['BRIDGE_CA_PASSPHRASE', 'SECRET_TOKEN', 'BRIDGE_READY_FD']) {
      expect(env).not.toHaveProperty(k);
    }
    expect(JSON.stringify(env)).not.toMatch(/hunter2|"xyz"/);

    // The process is the binary itself with those argv entries: no shell anywhere.
    const pid = (await call(w.client, (c) => c.getSession, { sessionId }, w.md)).pid;
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, -1);
    expect(cmdline).toEqual([process.execPath, FAKE_AGENT, 'argv', ...ARGV_ARGS]);
    for (const d of descendants(w.daemon.pid)) {
      let exe = '';
      try {
        exe = readlinkSync(`/proc/${d}/exe`);
      } catch {
        continue; // exited meanwhile
      }
      expect(exe).not.toMatch(/\/(sh|bash|dash|zsh)$/);
    }
    await stop(sessionId);
  });
});

describe('daemon secrets', () => {
  it('the daemon’s secret env values appear in no log line and no event of any session', async () => {
    const list = await call(
      w.client,
      (c) => c.listSessions,
      { projectId: '', statuses: [], pageSize: 1000, pageToken: '' },
      w.md,
    );
    expect(list.sessions.length).toBeGreaterThan(3);
    for (const s of list.sessions) {
      const { events } = await collect(
        streamEvents(w.client, { sessionId: s.sessionId, afterSeq: 0n }, w.md),
        (_e, all) => all.length >= Number(s.lastSeq),
      );
      expect(JSON.stringify(events.map((e) => [e.text, e.error, e.data]))).not.toMatch(/hunter2/);
    }
    expect(w.daemon.output()).not.toMatch(/hunter2|SECRET_TOKEN/);
  });
});

describe('R8 RespondPermission: each refusal has its exact code and message, and changes nothing', () => {
  /** A mock_ask session whose agent waits on its request `requestId`. */
  let asking: { sessionId: string; requestId: string };

  const events = (sessionId: string, until: (all: SessionEvent[]) => boolean) =>
    collect(streamEvents(w.client, { sessionId, afterSeq: 0n }, w.md), (_e, all) =>
      until(all),
    ).then((r) => r.events);

  /** Starts a session of `provider`, makes its agent ask with `input`, returns the request id. */
  async function waitingRequest(provider: string, input: string) {
    const sessionId = await start({ provider });
    await call(w.client, (c) => c.sendInput, { sessionId, text: input, idempotencyKey: '' }, w.md);
    const all = await events(sessionId, asked(1));
    return { sessionId, requestId: requestIdOf(requestsOf(all)[0]) };
  }

  beforeAll(async () => {
    asking = await waitingRequest('mock_ask', '/tool Bash ls');
  });

  type Answer = { sessionId: string; requestId: string; decision: number; reason: string };
  const answer = (a: Partial<Answer>, md = w.md) =>
    outcome(
      call(
        w.client,
        (c) => c.respondPermission,
        {
          sessionId: asking.sessionId,
          requestId: asking.requestId,
          decision: DECISION.allow_once,
          reason: '',
          ...a,
        },
        md,
      ),
    );

  /**
   * The answer is refused with `code`, a message matching `message`, one
   * deny audit record with `reason`; nothing changed: no session, process
   * or event (the waiting session's last seq included), and nothing decided.
   */
  async function expectRefused(
    a: Partial<Answer>,
    code: number,
    reason: string,
    message: RegExp,
    md = w.md,
  ): Promise<string> {
    const before = await snapshot(w);
    const seq0 = await lastSeq(asking.sessionId);
    const mark = w.daemon.audit.mark();
    const r = await answer(a, md);
    expect(r.code).toBe(code);
    expect(r.details).toMatch(message);
    expect(r.details.length).toBeLessThan(300);
    expectCallDenied(w, mark, 'RespondPermission', reason);
    expect(await lastSeq(asking.sessionId)).toBe(seq0);
    await expectUnchanged(w, before);
    return r.details;
  }

  const bad = status.INVALID_ARGUMENT;
  it.each([
    [
      'session_id not a UUID',
      { sessionId: 'abc' },
      'session_id_invalid',
      /session_id must be a lowercase UUID/,
    ],
    [
      'empty request_id',
      { requestId: '' },
      'permission_request_id_invalid',
      /request_id must be 1-128 bytes/,
    ],
    [
      'request_id of 129 bytes',
      { requestId: 'r'.repeat(129) },
      'permission_request_id_invalid',
      /request_id must be 1-128 bytes/,
    ],
    [
      'request_id of 43 × "€" = 129 bytes',
      { requestId: '€'.repeat(43) },
      'permission_request_id_invalid',
      /request_id must be 1-128 bytes/,
    ],
    [
      'decision UNSPECIFIED',
      { decision: PermissionDecision.PERMISSION_DECISION_UNSPECIFIED },
      'permission_decision_invalid',
      /decision must be one of allow_once, allow_session, deny/,
    ],
    [
      'decision unknown (99)',
      { decision: 99 },
      'permission_decision_invalid',
      /decision must be one of allow_once, allow_session, deny/,
    ],
    [
      'reason of 1025 bytes',
      { reason: 'x'.repeat(1025) },
      'permission_reason_too_long',
      /reason is 1025 bytes; the limit is 1024/,
    ],
    [
      'reason of 342 × "€" = 1026 bytes',
      { reason: '€'.repeat(342) },
      'permission_reason_too_long',
      /reason is 1026 bytes; the limit is 1024/,
    ],
  ] as const)('R8 %s → INVALID_ARGUMENT', async (_name, a, reason, message) => {
    await expectRefused(a, bad, reason, message);
  });

  it('R8 an unknown session → NOT_FOUND', async () => {
    const sessionId = randomUUID();
    await expectRefused(
      { sessionId },
      status.NOT_FOUND,
      'session_not_found',
      new RegExp(sessionId),
    );
  });

  it('R8 the session of another project (token for project beta) → NOT_FOUND, worded as a missing one', async () => {
    const beta = await w.bearerFor('beta');
    const foreign = await expectRefused(
      {},
      status.NOT_FOUND,
      'session_of_other_project',
      /not found/,
      beta,
    );
    const missingId = randomUUID();
    const missing = await expectRefused(
      { sessionId: missingId },
      status.NOT_FOUND,
      'session_not_found',
      /not found/,
      beta,
    );
    expect(foreign.replaceAll(asking.sessionId, '<id>')).toBe(
      missing.replaceAll(missingId, '<id>'),
    );
  });

  it('R8 an unknown request id (one of 128 bytes included) → NOT_FOUND', async () => {
    for (const requestId of ['perm-999', 'r'.repeat(128)]) {
      await expectRefused(
        { requestId },
        status.NOT_FOUND,
        'permission_request_not_found',
        new RegExp(`permission request ${requestId} not found in session ${asking.sessionId}`),
      );
    }
  });

  it('R8 a decision the agent does not offer → FAILED_PRECONDITION; an offered one is then taken', async () => {
    const deny = await waitingRequest('codex_deny_only', 'please USE_TOOL');
    const all = await events(deny.sessionId, asked(1));
    expect(requestsOf(all)[0]?.data?.options).toEqual(['deny']);
    for (const decision of ['allow_once', 'allow_session'] as const) {
      const before = await snapshot(w);
      const seq0 = await lastSeq(deny.sessionId);
      const mark = w.daemon.audit.mark();
      const r = await outcome(
        respondPermission(w.client, w.md, deny.sessionId, deny.requestId, decision),
      );
      expect(r.code).toBe(status.FAILED_PRECONDITION);
      expect(r.details).toBe(
        `the agent does not offer ${decision} for permission request ${deny.requestId} (it offers deny)`,
      );
      expectCallDenied(w, mark, 'RespondPermission', 'permission_decision_not_offered');
      expect(await lastSeq(deny.sessionId)).toBe(seq0);
      await expectUnchanged(w, before);
    }
    await respondPermission(w.client, w.md, deny.sessionId, deny.requestId, 'deny');
    const done = await events(deny.sessionId, turnsDone(1));
    expectPermission(done, { options: ['deny'] }, { decision: 'deny', decided_by: 'caller' });
    await stop(deny.sessionId);
  });

  // Last: it answers the waiting request.
  it('R8 a second answer → FAILED_PRECONDITION saying how it was resolved; the first one stands', async () => {
    const seq = await respondPermission(
      w.client,
      w.md,
      asking.sessionId,
      asking.requestId,
      'allow_once',
      'first',
    );
    await events(asking.sessionId, turnsDone(1));
    for (const decision of ['deny', 'allow_once'] as const) {
      await expectRefused(
        { decision: DECISION[decision], reason: 'second' },
        status.FAILED_PRECONDITION,
        'permission_already_resolved',
        new RegExp(
          `^permission request ${asking.requestId} is already resolved: allow_once \\(decided by caller\\)$`,
        ),
      );
    }
    const all = await events(asking.sessionId, turnsDone(1));
    const { resolved } = expectPermission(
      all,
      { request_id: asking.requestId },
      { decision: 'allow_once', decided_by: 'caller', reason: 'first' },
    );
    expect(resolved.seq).toBe(seq);
    await stop(asking.sessionId);
  });
});
