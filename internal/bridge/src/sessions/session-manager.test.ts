import { randomUUID } from 'node:crypto';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor, within } from '@agent-bridge/waits';
import { afterAll, describe, expect, it } from 'vitest';
import type { Party, PostDraft } from '../collaboration/collab-types.js';
import { FakeClock } from '../testing/fake-clock.js';
import { FakeProvider } from '../testing/fake-provider.js';
import {
  kindOf,
  nextBatch,
  readToEnd,
  refusalOf,
  silentLogger,
  testSettings,
} from '../testing/fixtures.js';
import type { Caller, CoreSettings, SessionSnapshot, StartRequest } from '../types.js';
import { SessionManager } from './session-manager.js';

const root = realpathSync(mkdtempSync(join(tmpdir(), 'core-')));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const alpha: Caller = { projectId: 'alpha', subject: 'cp-alpha' };
const beta: Caller = { projectId: 'beta', subject: 'cp-beta' };
const batch = { maxEvents: 100, maxBytes: 1 << 20 };
const STARTUP_TIMEOUT_MS = 5000;

function setup(
  overrides: Partial<CoreSettings> = {},
  opts: { interrupt?: boolean; provider?: FakeProvider } = {},
) {
  const clock = new FakeClock();
  const provider = opts.provider ?? new FakeProvider('fake', opts);
  const settings = testSettings({
    allowedPaths: [root],
    startupTimeoutMs: () => STARTUP_TIMEOUT_MS,
    ...overrides,
  });
  const manager = new SessionManager({
    settings,
    providers: new Map([[provider.id, provider]]),
    logger: silentLogger,
    clock,
    timers: clock,
  });
  const request = (over: Partial<StartRequest> = {}): StartRequest => ({
    projectId: 'alpha',
    sessionId: randomUUID(),
    repoPath: root,
    provider: provider.id,
    agentOpts: {},
    ...over,
  });
  /** Starts one session of "alpha" and returns it with its agent. */
  const start = async () => {
    const snap = await within('the start', manager.start(alpha, request()));
    return { id: snap.sessionId, snap, agent: provider.agents.at(-1)! };
  };
  const open = (sessionId: string, afterSeq?: number, subscriberId = '', signal?: AbortSignal) =>
    manager
      .openStream(
        alpha,
        { sessionId, afterSeq, subscriberId },
        signal ?? new AbortController().signal,
        batch,
      )
      [Symbol.asyncIterator]();
  /** Every event of a session from the first, once it has ended. */
  const history = (sessionId: string) => readToEnd(open(sessionId, 0));
  return { clock, provider, settings, manager, request, start, open, history };
}

/**
 * Descriptors of this process open on the repository directory: what a
 * start holds. Counting every descriptor would also count whatever else the
 * test worker opens or closes meanwhile.
 */
const openFds = () =>
  readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === root;
    } catch {
      return false; // closed while listed
    }
  }).length;

const anyStatus = { projectId: '', statuses: [], pageSize: 0, pageToken: '' };
const ids = (page: { sessions: SessionSnapshot[] }) => page.sessions.map((s) => s.sessionId);

describe('SessionManager: start', () => {
  it('validates a start before spawning anything', async () => {
    const { manager, provider, request } = setup();
    const kind = (over: Partial<StartRequest>) => kindOf(() => manager.start(alpha, request(over)));
    expect(await kind({ sessionId: 'not-a-uuid' })).toBe('invalid_argument');
    expect(await kind({ projectId: '' })).toBe('invalid_argument');
    expect(await kind({ projectId: 'beta' })).toBe('permission_denied');
    expect(await kind({ provider: 'nope' })).toBe('invalid_argument');
    // An option key the provider's policy does not accept is refused, not malformed.
    expect(await kind({ agentOpts: { shell: '/bin/sh' } })).toBe('permission_denied');
    expect(await kind({ repoPath: tmpdir() })).toBe('permission_denied');
    provider.available = false;
    expect(await kind({})).toBe('failed_precondition');
    expect(provider.agents).toEqual([]);
  });

  it('starts a running session whose first event says where its agent runs', async () => {
    const { manager, start, open } = setup();
    const { id, snap, agent } = await start();
    expect(snap).toMatchObject({ status: 'RUNNING', pid: agent.pid, repoPath: root, lastSeq: 1 });
    expect(manager.counts('alpha')).toMatchObject({ active: 1, retained: 0, projectActive: 1 });
    const [started] = await nextBatch(open(id, 0));
    expect(started).toMatchObject({
      seq: 1,
      type: 'SESSION_STARTED',
      data: { pid: agent.pid, repo_path: root },
    });
  });

  it('spawns in the directory it checked and releases it once the agent is spawned', async () => {
    const { provider, start } = setup();
    const before = openFds();
    const { snap } = await start();
    expect(provider.spawns).toEqual([{ repoPath: root, dir: root }]);
    expect(snap.repoPath).toBe(root);
    expect(openFds()).toBe(before);
  });

  it('releases the directory when the start fails', async () => {
    const { manager, provider, request } = setup();
    const before = openFds();
    provider.outcome = 'spawn_error';
    expect(await kindOf(() => manager.start(alpha, request()))).toBe('failed_precondition');
    provider.outcome = 'ready';
    provider.available = false;
    expect(await kindOf(() => manager.start(alpha, request()))).toBe('failed_precondition');
    expect(openFds()).toBe(before);
  });

  // The check-then-use race, made deterministic: the health probe runs
  // between the check and the spawn, and swaps the checked directory for a
  // symlink to a directory outside the allowed root.
  it('an agent runs in the checked directory even when the path is swapped for a symlink before the spawn', async () => {
    const base = realpathSync(mkdtempSync(join(tmpdir(), 'core-swap-')));
    const allowed = join(base, 'allowed');
    const repo = join(allowed, 'repo');
    const outside = join(base, 'outside');
    mkdirSync(repo, { recursive: true });
    mkdirSync(outside);
    class SwappingProvider extends FakeProvider {
      override async health() {
        renameSync(repo, join(allowed, 'moved'));
        symlinkSync(outside, repo);
        return super.health();
      }
    }
    try {
      const provider = new SwappingProvider();
      const { manager, request } = setup({ allowedPaths: [allowed] }, { provider });
      const snap = await within('the start', manager.start(alpha, request({ repoPath: repo })));
      expect(provider.spawns).toEqual([{ repoPath: repo, dir: join(allowed, 'moved') }]);
      expect(snap.repoPath).toBe(repo);
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });

  it('answers an identical retry with the same session, even mid start-up; other parameters are already_exists', async () => {
    const { manager, provider, request } = setup();
    const release = provider.holdStartup();
    const req = request({ agentOpts: { model: 'm1' } });
    const called = provider.nextStart();
    const first = manager.start(alpha, req);
    await within('the provider to be asked', called);
    const retry = manager.start(alpha, { ...req, agentOpts: { model: 'm1' } });
    const other = { ...req, agentOpts: { model: 'm2' } };
    expect(await kindOf(() => manager.start(alpha, other))).toBe('already_exists');
    release();
    const [a, b] = await within('both starts', Promise.all([first, retry]));
    expect(a.status).toBe('RUNNING');
    expect(b).toEqual(a);
    expect(await within('a later retry', manager.start(alpha, req))).toEqual(a);
    expect(provider.agents).toHaveLength(1);
  });

  it('forgets a session whose agent cannot be spawned, also for a retry waiting on it', async () => {
    const { manager, provider, request } = setup();
    provider.outcome = 'spawn_error';
    const release = provider.holdStartup();
    const req = request();
    const called = provider.nextStart();
    const first = manager.start(alpha, req);
    await within('the provider to be asked', called);
    const retry = manager.start(alpha, req);
    release();
    // Either may settle first (the retry does not wait for the first's clean-up).
    const [a, b] = await Promise.all([
      kindOf(() => within('the start', first)),
      kindOf(() => within('the retry', retry)),
    ]);
    expect([a, b]).toEqual(['failed_precondition', 'failed_precondition']);
    expect(await kindOf(() => manager.get(alpha, req.sessionId))).toBe('not_found');
    provider.outcome = 'ready';
    expect((await within('a new start', manager.start(alpha, req))).status).toBe('RUNNING');
  });

  it('checks the limits synchronously, so concurrent starts cannot overshoot them', async () => {
    const { manager, request } = setup({ maxPerProject: 2, maxGlobal: 3 });
    const settle = (caller: Caller, n: number) =>
      within(
        `${n} concurrent starts`,
        Promise.allSettled(
          Array.from({ length: n }, () =>
            manager.start(caller, request({ projectId: caller.projectId })),
          ),
        ),
      );
    const rejections = (results: PromiseSettledResult<SessionSnapshot>[]) =>
      results.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));

    const alphas = await settle(alpha, 5);
    expect(rejections(alphas)).toHaveLength(3);
    for (const err of rejections(alphas)) expect(err).toMatchObject({ kind: 'resource_exhausted' });
    const betas = await settle(beta, 2);
    expect(rejections(betas)).toMatchObject([
      { kind: 'resource_exhausted', message: expect.stringContaining('already runs 3 sessions') },
    ]);
    expect(manager.counts('alpha')).toEqual({
      active: 3,
      retained: 0,
      limit: 3,
      projectActive: 2,
      projectLimit: 2,
    });
    expect(manager.counts('beta')).toMatchObject({ active: 3, projectActive: 1 });

    // An ended session no longer counts.
    const [running] = manager.list(alpha, anyStatus).sessions;
    await within('the stop', manager.stop(alpha, running!.sessionId, false));
    expect((await within('a start', manager.start(alpha, request()))).status).toBe('RUNNING');
  });

  it('fails a start-up that outlasts its timeout, and stops the agent should it come up later', async () => {
    const { clock, manager, provider, request, history } = setup();
    provider.ignoresAbort = true;
    const release = provider.holdStartup();
    const called = provider.nextStart();
    const starting = manager.start(alpha, request());
    await within('the provider to be asked', called);
    clock.advance(STARTUP_TIMEOUT_MS - 1);
    expect(provider.agents[0]!.stops).toEqual([]);
    clock.advance(1);
    const snap = await within('the start', starting);
    expect(snap).toMatchObject({ status: 'FAILED', error: expect.stringContaining('5000ms') });
    const events = await history(snap.sessionId);
    expect(events.map((e) => e.type)).toEqual(['SESSION_STARTED', 'SESSION_FAILED']);
    expect(events[1]?.data).toEqual({ reason: 'startup_timeout' });

    const late = provider.agents[0]!;
    release();
    await within('the late agent to be stopped', late.exited);
    expect(late.stops).toEqual([{ force: true, gracePeriodMs: 0 }]);
  });

  it('keeps the checked directory open for a spawn that comes after the start-up timed out', async () => {
    const { clock, manager, provider, request } = setup();
    // An earlier test's start may still be letting go of the directory.
    await waitFor('earlier tests to release the directory', () => openFds() === 0);
    const before = openFds();
    const release = provider.holdSpawn();
    const called = provider.nextStart();
    const starting = manager.start(alpha, request());
    await within('the provider to be asked', called);
    clock.advance(STARTUP_TIMEOUT_MS);
    expect((await within('the start', starting)).status).toBe('FAILED');
    // The provider has not spawned yet: its cwd must still lead to the
    // checked directory, not to a closed (or reused) descriptor.
    expect(openFds()).toBe(before + 1);
    release();
    await waitFor('the late spawn', () => provider.agents.length === 1);
    expect(provider.spawns).toEqual([{ repoPath: root, dir: root }]);
    await within('the late agent to be gone', provider.agents[0]!.exited);
    await waitFor('the directory to be released', () => openFds() === before);
  });

  it('tells the provider to give up when the start-up times out', async () => {
    const { clock, manager, provider, request } = setup();
    provider.holdStartup();
    const called = provider.nextStart();
    const starting = manager.start(alpha, request());
    await within('the provider to be asked', called);
    clock.advance(STARTUP_TIMEOUT_MS);
    expect((await within('the start', starting)).status).toBe('FAILED');
    expect(await within('the agent to be gone', provider.agents[0]!.exited)).toMatchObject({
      signal: 'SIGKILL',
    });
  });

  it('a stop during start-up abandons it at once: the session ends stopped, no agent is left', async () => {
    const { manager, provider, request, history } = setup();
    provider.holdStartup();
    const called = provider.nextStart();
    const req = request();
    const starting = manager.start(alpha, req);
    await within('the provider to be asked', called);
    // Never released: only the stop ends this start-up.
    expect(await within('the stop', manager.stop(alpha, req.sessionId, false))).toBe('STOPPED');
    expect(await within('the start', starting)).toMatchObject({ status: 'STOPPED' });
    expect(await within('the agent to be gone', provider.agents[0]!.exited)).toMatchObject({
      signal: 'SIGKILL',
    });
    const events = await history(req.sessionId);
    expect(events.map((e) => e.type)).toEqual(['SESSION_STARTED', 'SESSION_STOPPED']);
    expect(events[1]?.data).toEqual({ reason: 'stop_requested' });
  });

  it('shutdown abandons start-ups still under way', async () => {
    const { manager, provider, request } = setup();
    provider.holdStartup();
    const called = provider.nextStart();
    const starting = manager.start(alpha, request());
    await within('the provider to be asked', called);
    await within('the shutdown', manager.shutdown());
    expect(await within('the start', starting)).toMatchObject({ status: 'STOPPED' });
  });

  it('fails a session whose agent does not come up', async () => {
    const { manager, provider, request, history } = setup();
    provider.outcome = 'startup_error';
    const snap = await within('the start', manager.start(alpha, request()));
    expect(snap.status).toBe('FAILED');
    expect((await history(snap.sessionId)).at(-1)?.data).toEqual({ reason: 'startup_failed' });
  });

  it('quotes the end of the redacted stderr of an agent that exits during start-up', async () => {
    const { manager, provider, request, history } = setup();
    const token = `ghp_${'a1B2'.repeat(9)}`;
    provider.outcome = 'startup_exit';
    provider.lastWords = ['loading', `fatal: the token ${token} was refused`, 'giving up'];
    const snap = await within('the start', manager.start(alpha, request()));
    const error =
      'agent exited during start-up (code 7): loading | fatal: the token [REDACTED] was refused | giving up';
    expect(snap).toMatchObject({ status: 'FAILED', error });
    const last = (await history(snap.sessionId)).at(-1);
    expect(last).toMatchObject({
      type: 'SESSION_FAILED',
      error,
      data: {
        reason: 'startup_failed',
        stderr_tail: 'loading\nfatal: the token [REDACTED] was refused\ngiving up\n',
      },
    });
    expect(JSON.stringify(last)).not.toContain(token);
  });
  it('records an agent that exits on its own as a crash, with its stderr tail', async () => {
    const { manager, start, history } = setup();
    const { id, agent } = await start();
    agent.emit({ type: 'STDERR', stream: 'stderr', text: 'last words' });
    agent.exit({ exitCode: 2, signal: null });
    expect((await history(id)).at(-1)).toMatchObject({
      type: 'SESSION_FAILED',
      error: 'agent exited with code 2',
      data: { reason: 'crashed', exit_code: 2, stderr_tail: 'last words\n' },
    });
    expect(manager.get(alpha, id)).toMatchObject({ status: 'FAILED', exitCode: 2 });
  });
});

describe('SessionManager: names and roles', () => {
  /** The refusal a start gets: its kind, reason and message. */

  it('refuses a malformed name or role, spawning nothing', async () => {
    const { manager, provider, request } = setup();
    for (const name of [
      '-lead',
      'has space',
      'x'.repeat(65),
      'é',
      randomUUID(),
      randomUUID().toUpperCase(),
    ]) {
      expect(await refusalOf(() => manager.start(alpha, request({ name })))).toMatchObject({
        kind: 'invalid_argument',
        reason: 'session_name_invalid',
        message: expect.stringMatching(/^name /),
      });
    }
    expect(await refusalOf(() => manager.start(alpha, request({ role: 'a/b' })))).toMatchObject({
      kind: 'invalid_argument',
      reason: 'session_role_invalid',
    });
    expect(provider.agents).toEqual([]);
    expect(manager.counts('alpha').active).toBe(0);
  });

  it('shows name and role in the snapshot, the list and SESSION_STARTED', async () => {
    const { manager, request, open } = setup();
    const snap = await within(
      'the start',
      manager.start(alpha, request({ name: 'lead.1', role: 'reviewer' })),
    );
    expect(snap).toMatchObject({ name: 'lead.1', role: 'reviewer' });
    expect(manager.get(alpha, snap.sessionId)).toMatchObject({ name: 'lead.1', role: 'reviewer' });
    expect(manager.list(alpha, anyStatus).sessions[0]).toMatchObject({
      name: 'lead.1',
      role: 'reviewer',
    });
    const [started] = await nextBatch(open(snap.sessionId, 0));
    expect(started?.data).toMatchObject({ name: 'lead.1', role: 'reviewer' });
    expect(started?.text).toContain('as lead.1 (reviewer)');
    const plain = await within('a start without', manager.start(alpha, request()));
    expect(plain).toMatchObject({ name: '', role: '' });
    const [first] = await nextBatch(open(plain.sessionId, 0));
    expect(first?.data).not.toHaveProperty('name');
  });

  it('a name is held by one live session of a project, and free again once it ended', async () => {
    const { manager, provider, request } = setup({ maxPerProject: 5 });
    const lead = await within(
      'the start',
      manager.start(alpha, request({ name: 'lead', role: 'r' })),
    );
    const taken = await refusalOf(() => manager.start(alpha, request({ name: 'lead' })));
    expect(taken).toMatchObject({ kind: 'already_exists', reason: 'session_name_in_use' });
    expect(taken.message).toContain(lead.sessionId);
    expect(provider.agents).toHaveLength(1);
    // Another project, and roles, are not concerned.
    await within('beta', manager.start(beta, request({ projectId: 'beta', name: 'lead' })));
    await within('same role', manager.start(alpha, request({ role: 'r' })));
    await within('the stop', manager.stop(alpha, lead.sessionId, false));
    const again = await within('the name again', manager.start(alpha, request({ name: 'lead' })));
    expect(again.name).toBe('lead');
  });

  it('a retry with another name or role is already_exists; the same one is the same session', async () => {
    const { manager, request } = setup();
    const req = request({ name: 'a', role: 'r' });
    const first = await within('the start', manager.start(alpha, req));
    expect(await kindOf(() => manager.start(alpha, { ...req, name: 'b' }))).toBe('already_exists');
    expect(await kindOf(() => manager.start(alpha, { ...req, role: '' }))).toBe('already_exists');
    expect(await within('the retry', manager.start(alpha, { ...req }))).toEqual(first);
  });
});

describe('SessionManager: collaboration between its sessions', () => {
  const party = (s: SessionSnapshot): Party => ({
    kind: 'session',
    id: s.sessionId,
    name: s.name,
    role: s.role,
  });
  const alice: Party = { kind: 'person', id: 'cp-alpha', name: 'cp-alpha', role: '' };
  const post = (over: Partial<PostDraft> = {}): PostDraft => ({
    category: 'finding',
    priority: 'high',
    content: 'tests need NODE_ENV=test',
    targets: [],
    threadId: '',
    replyTo: 0,
    metadata: {},
    ...over,
  });

  it('a post is an event on its author and the sessions it targets, not on others', async () => {
    const { manager, request, history } = setup({ maxPerProject: 5 });
    const [lead, dev, qa] = await Promise.all(
      ['lead', 'dev', 'qa'].map((name) =>
        manager.start(alpha, request({ name, role: `${name}-role` })),
      ),
    );
    const p = await manager.collaboration.post(
      'alpha',
      party(lead!),
      post({ targets: ['dev-role'] }),
    );
    for (const s of [lead!, dev!, qa!]) await manager.stop(alpha, s.sessionId, false);
    const posted = async (s: SessionSnapshot) =>
      (await history(s.sessionId)).filter((e) => e.type === 'CONTEXT_POSTED');
    const [onDev] = await posted(dev!);
    expect(onDev).toMatchObject({
      text: 'tests need NODE_ENV=test',
      data: {
        post_id: p.id,
        from: 'lead',
        from_kind: 'session',
        from_role: 'lead-role',
        targets: ['dev-role'],
      },
    });
    expect(await posted(lead!)).toHaveLength(1);
    expect(await posted(qa!)).toEqual([]);
  });

  it('a message with deliver: turn is recorded on both ends and given to the agent as input', async () => {
    const { manager, request, history } = setup({ maxInputBytes: 65_536 });
    const lead = await manager.start(alpha, request({ name: 'lead' }));
    const dev = await manager.start(alpha, request({ name: 'dev', role: 'implementer' }));
    const [m] = await manager.collaboration.send('alpha', party(lead), {
      to: { session: 'dev' },
      content: 'write the tests',
      threadId: '',
      deliver: 'turn',
    });
    await manager.collaboration.send('alpha', alice, {
      to: { role: 'implementer' },
      content: 'and the docs',
      threadId: '',
      deliver: 'inbox',
    });
    await manager.stop(alpha, dev.sessionId, false);
    await manager.stop(alpha, lead.sessionId, false);
    const onDev = await history(dev.sessionId);
    const kinds = onDev.map((e) => e.type);
    expect(kinds.indexOf('MESSAGE_RECEIVED')).toBeLessThan(kinds.indexOf('INPUT_RECEIVED'));
    expect(onDev.filter((e) => e.type === 'MESSAGE_RECEIVED').map((e) => e.data)).toEqual([
      expect.objectContaining({ message_id: m!.id, from: 'lead', deliver: 'turn' }),
      expect.objectContaining({ from: 'cp-alpha', from_kind: 'person', deliver: 'inbox' }),
    ]);
    const inputs = onDev.filter((e) => e.type === 'INPUT_RECEIVED');
    expect(inputs).toHaveLength(1);
    expect(inputs[0]?.text).toContain(`Message ${m!.id} from lead`);
    expect(inputs[0]?.text).toContain('write the tests');
    const onLead = await history(lead.sessionId);
    expect(onLead.find((e) => e.type === 'MESSAGE_SENT')?.data).toMatchObject({
      message_id: m!.id,
      to: 'dev',
      to_kind: 'session',
    });
    // Given as a turn, it is read; the other waits unread.
    const unread = await manager.collaboration.inbox('alpha', party(dev), { unreadOnly: true });
    expect(unread.map((x) => x.content)).toEqual(['and the docs']);
  });

  it('who lists the live sessions of the project; a stopped one leaves, another project never shows', async () => {
    const { manager, request } = setup();
    const a = await manager.start(alpha, request({ name: 'a', role: 'r' }));
    await manager.start(beta, request({ projectId: 'beta', name: 'b' }));
    expect(manager.collaboration.who('alpha')).toEqual([
      expect.objectContaining({ sessionId: a.sessionId, name: 'a', role: 'r', status: 'RUNNING' }),
    ]);
    await manager.stop(alpha, a.sessionId, false);
    expect(manager.collaboration.who('alpha')).toEqual([]);
    expect(
      await refusalOf(() =>
        manager.collaboration.send('alpha', alice, {
          to: { session: 'a' },
          content: 'x',
          threadId: '',
          deliver: 'inbox',
        }),
      ),
    ).toMatchObject({ kind: 'not_found' });
  });
});

describe('SessionManager: the collaboration tools of agents, by capability', () => {
  const never = new AbortController().signal;
  async function twoAgents(over: Partial<CoreSettings> = {}) {
    const t = setup({ maxPerProject: 5, maxInputBytes: 65_536, ...over });
    const lead = await t.manager.start(alpha, t.request({ name: 'lead', role: 'planner' }));
    const dev = await t.manager.start(alpha, t.request({ name: 'dev', role: 'implementer' }));
    const caps = t.manager.collaboration.capabilities;
    const tool =
      (cap: string) =>
      (name: string, args: unknown = {}) =>
        caps.call(cap, name, args, never) as Promise<Record<string, unknown>>;
    return {
      ...t,
      lead,
      dev,
      asLead: tool(caps.issue(lead.sessionId, 'alpha')),
      asDev: tool(caps.issue(dev.sessionId, 'alpha')),
      tool,
    };
  }

  it('gives each agent a tool server holding a capability that ends with its session', async () => {
    const attached = new Map<string, string>();
    const detached: string[] = [];
    const toolServers = {
      attach: (sessionId: string, capability: string) => {
        attached.set(sessionId, capability);
        return {
          name: 'bridge',
          command: '/bin/bridge-mcp',
          args: ['--capability-file', `/run/${sessionId}.cap`],
        };
      },
      detach: (sessionId: string) => void detached.push(sessionId),
    };
    const clock = new FakeClock();
    const provider = new FakeProvider('fake');
    const manager = new SessionManager({
      settings: testSettings({ allowedPaths: [root], startupTimeoutMs: () => STARTUP_TIMEOUT_MS }),
      providers: new Map([[provider.id, provider]]),
      logger: silentLogger,
      clock,
      timers: clock,
      toolServers,
    });
    const s = await manager.start(alpha, {
      projectId: 'alpha',
      sessionId: randomUUID(),
      repoPath: root,
      provider: 'fake',
      agentOpts: {},
      name: 'solo',
    });
    expect(provider.spawns[0]?.tools).toEqual({
      name: 'bridge',
      command: '/bin/bridge-mcp',
      args: ['--capability-file', `/run/${s.sessionId}.cap`],
      tools: manager.collaboration.capabilities.list().map((t) => t.name),
    });
    const cap = attached.get(s.sessionId)!;
    const caps = manager.collaboration.capabilities;
    expect(await caps.call(cap, 'who', {}, new AbortController().signal)).toMatchObject({
      sessions: [expect.objectContaining({ name: 'solo', you: true })],
    });
    await manager.stop(alpha, s.sessionId, false);
    expect(detached).toEqual([s.sessionId]);
    expect(
      await refusalOf(() => caps.call(cap, 'who', {}, new AbortController().signal)),
    ).toMatchObject({
      reason: 'capability_invalid',
    });
  });

  it('lists eight tools, each with a closed JSON schema', () => {
    const { manager } = setup();
    const tools = manager.collaboration.capabilities.list();
    expect(tools.map((t) => t.name)).toEqual([
      'context_post',
      'context_read',
      'context_ack',
      'message_send',
      'inbox',
      'message_reply',
      'wait_for_message',
      'who',
    ]);
    for (const t of tools)
      expect(t.inputSchema).toMatchObject({ type: 'object', additionalProperties: false });
  });

  it('post, read and ack; send, inbox and reply; who: each as the session of the capability', async () => {
    const { asLead, asDev, dev, lead } = await twoAgents();
    const { post_id } = await asLead('context_post', {
      category: 'finding',
      content: 'use pnpm',
      targets: ['implementer'],
    });
    const read = await asDev('context_read', { unacked: true });
    expect(read.posts).toEqual([
      expect.objectContaining({
        id: post_id,
        from: 'lead',
        from_role: 'planner',
        content: 'use pnpm',
      }),
    ]);
    expect(await asDev('context_ack', { post_ids: [post_id] })).toEqual({ acked: 1 });
    expect((await asDev('context_read', { unacked: true })).posts).toEqual([]);

    const sent = await asLead('message_send', { to: 'dev', content: 'ping' });
    expect(sent).toEqual({ message_ids: [expect.any(Number)], to: ['dev'] });
    const inbox = await asDev('inbox');
    expect(inbox.messages).toEqual([
      expect.objectContaining({ from: 'lead', content: 'ping', read: false }),
    ]);
    const [first] = inbox.messages as { id: number }[];
    expect(await asDev('message_reply', { message_id: first!.id, content: 'pong' })).toMatchObject({
      to: 'lead',
    });
    expect((await asLead('inbox')).messages).toEqual([
      expect.objectContaining({ from: 'dev', content: 'pong' }),
    ]);

    const { sessions } = await asDev('who');
    expect(sessions).toEqual([
      expect.objectContaining({ id: lead.sessionId, name: 'lead', you: false }),
      expect.objectContaining({ id: dev.sessionId, name: 'dev', role: 'implementer', you: true }),
    ]);
  });

  it('wait_for_message is woken by a send, and returns null at its bound', async () => {
    const { asLead, asDev, clock } = await twoAgents();
    const waiting = asDev('wait_for_message', { timeout_seconds: 120 });
    await asLead('message_send', { to: 'dev', content: 'wake up' });
    expect((await within('the wait', waiting)).message).toMatchObject({ content: 'wake up' });
    const empty = asLead('wait_for_message', { timeout_seconds: 5 });
    clock.advance(5_000);
    expect(await within('the empty wait', empty)).toEqual({ message: null });
  });

  it('names no sender: a "from" argument is refused, and the post is of the capability session', async () => {
    const { asDev, manager } = await twoAgents();
    expect(
      await refusalOf(() => asDev('context_post', { category: 'x', content: 'y', from: 'lead' })),
    ).toMatchObject({
      kind: 'invalid_argument',
      reason: 'tool_args_invalid',
    });
    await asDev('context_post', { category: 'x', content: 'mine' });
    const page = manager.collaboration.read(
      'alpha',
      { kind: 'person', id: 'p', name: 'p', role: '' },
      {},
    );
    expect(page.posts.map((p) => [p.from.name, p.content])).toEqual([['dev', 'mine']]);
  });

  it('a capability of a stopped session, or an unknown one, is refused and stores nothing', async () => {
    const { asDev, tool, dev, manager } = await twoAgents();
    await manager.stop(alpha, dev.sessionId, false);
    for (const call of [asDev, tool('made-up')]) {
      expect(
        await refusalOf(() => call('context_post', { category: 'x', content: 'y' })),
      ).toMatchObject({
        kind: 'permission_denied',
        reason: 'capability_invalid',
      });
    }
    expect(
      manager.collaboration.read('alpha', { kind: 'person', id: 'p', name: 'p', role: '' }, {})
        .posts,
    ).toEqual([]);
  });

  it('another project stays out of reach: no posts, no recipients, no presence', async () => {
    const { asLead, manager, request, tool } = await twoAgents();
    await asLead('context_post', { category: 'secret', content: 'alpha only' });
    const other = await manager.start(beta, request({ projectId: 'beta', name: 'spy' }));
    const asSpy = tool(manager.collaboration.capabilities.issue(other.sessionId, 'beta'));
    expect((await asSpy('context_read')).posts).toEqual([]);
    expect(
      await refusalOf(() => asSpy('message_send', { to: 'lead', content: 'hi' })),
    ).toMatchObject({
      kind: 'not_found',
    });
    expect((await asSpy('who')).sessions).toEqual([expect.objectContaining({ name: 'spy' })]);
  });

  it('bad arguments, oversized and flooding posts are refused with a clear reason', async () => {
    const { asLead } = await twoAgents({});
    expect(await refusalOf(() => asLead('no_such_tool'))).toMatchObject({
      kind: 'not_found',
      reason: 'tool_unknown',
    });
    expect(await refusalOf(() => asLead('context_post', { category: 'x' }))).toMatchObject({
      kind: 'invalid_argument',
      message: 'context_post: content is required',
    });
    expect(await refusalOf(() => asLead('context_ack', { post_ids: ['1'] }))).toMatchObject({
      message: 'context_ack: post_ids must be a integer[]',
    });
    expect(
      await refusalOf(() =>
        asLead('context_post', { category: 'x', content: 'y'.repeat(16 * 1024 + 1) }),
      ),
    ).toMatchObject({ reason: 'collab_content_too_large' });
    const outcomes: string[] = [];
    for (let i = 0; i < 25; i++) {
      outcomes.push(
        await asLead('context_post', { category: 'flood', content: `${i}` }).then(
          () => 'ok',
          (e: { reason: string }) => e.reason,
        ),
      );
    }
    expect(outcomes.slice(0, 20)).toEqual(Array(20).fill('ok'));
    expect(outcomes.at(-1)).toBe('collab_rate_limited');
  });
});

describe('SessionManager: input and interrupts', () => {
  it('records INPUT_RECEIVED when the agent accepts the input, before its turn', async () => {
    const { manager, start, open } = setup();
    const { id, agent } = await start();
    expect(await manager.sendInput(alpha, id, 'hello', '')).toBe(2);
    expect(agent.inputs).toEqual(['hello']);
    const events = await nextBatch(open(id, 1));
    expect(events.map((e) => [e.seq, e.type, e.text])).toEqual([
      [2, 'INPUT_RECEIVED', 'hello'],
      [3, 'STDOUT', 'echo: hello'],
    ]);
  });

  it('answers a repeated idempotency key with the first seq, delivering once', async () => {
    const { manager, start } = setup();
    const { id, agent } = await start();
    expect(await manager.sendInput(alpha, id, 'hello', 'k1')).toBe(2);
    expect(await manager.sendInput(alpha, id, 'hello', 'k1')).toBe(2);
    expect(await manager.sendInput(alpha, id, 'hello', 'k2')).toBe(4);
    expect(agent.inputs).toEqual(['hello', 'hello']);
  });

  it('refuses input the agent no longer reads, recording nothing', async () => {
    const { manager, start } = setup();
    const { id, agent } = await start();
    agent.reading = false;
    expect(await kindOf(() => manager.sendInput(alpha, id, 'hello', 'k1'))).toBe(
      'failed_precondition',
    );
    expect(manager.get(alpha, id).lastSeq).toBe(1);
    agent.reading = true;
    expect(await manager.sendInput(alpha, id, 'hello', 'k1')).toBe(2);
  });

  it('validates input and refuses it unless the session runs', async () => {
    const { manager, settings, start } = setup();
    const { id } = await start();
    const send = (text: string, key = '') => kindOf(() => manager.sendInput(alpha, id, text, key));
    expect(await send('')).toBe('invalid_argument');
    expect(await send('é'.repeat(settings.maxInputBytes / 2 + 1))).toBe('invalid_argument');
    expect(await send('x', 'k'.repeat(129))).toBe('invalid_argument');
    expect(await kindOf(() => manager.sendInput(beta, id, 'x', ''))).toBe('not_found');
    await within('the stop', manager.stop(alpha, id, false));
    expect(await send('x')).toBe('failed_precondition');
  });

  it('interrupts only a running session of a provider that can', async () => {
    const plain = setup();
    const { id } = await plain.start();
    expect(await kindOf(() => plain.manager.interrupt(alpha, id))).toBe('failed_precondition');

    const able = setup({}, { interrupt: true });
    const running = await able.start();
    expect(await within('the interrupt', able.manager.interrupt(alpha, running.id))).toEqual({
      interrupted: true,
      turnId: 'turn-1',
    });
    await within('the stop', able.manager.stop(alpha, running.id, false));
    expect(await kindOf(() => able.manager.interrupt(alpha, running.id))).toBe(
      'failed_precondition',
    );
  });
});

describe('SessionManager: streams and acks', () => {
  it('validates a stream before it starts', async () => {
    const { manager, start, open } = setup({ maxSubscribers: 2 });
    const { id } = await start();
    const req = (over: { afterSeq?: number; subscriberId?: string; sessionId?: string }) => ({
      sessionId: id,
      afterSeq: undefined,
      subscriberId: '',
      ...over,
    });
    const openKind = (caller: Caller, over: Parameters<typeof req>[0]) =>
      kindOf(() => manager.openStream(caller, req(over), new AbortController().signal, batch));
    expect(await openKind(alpha, { afterSeq: 2 })).toBe('out_of_range');
    expect(await openKind(alpha, { subscriberId: 'bad id' })).toBe('invalid_argument');
    expect(await openKind(beta, {})).toBe('not_found');
    const first = open(id);
    open(id);
    expect(manager.get(alpha, id).subscriberCount).toBe(2);
    expect(await openKind(alpha, {})).toBe('resource_exhausted');
    await within('the stream to close', first.return!());
    expect(await openKind(alpha, {})).toBe('ok');
  });

  it('replays, then tails live events, then ends after the terminal event', async () => {
    const { manager, start, open } = setup();
    const { id, agent } = await start();
    agent.emit({ type: 'STDOUT', stream: 'stdout', text: 'one' });
    const events = open(id, 0);
    expect((await nextBatch(events)).map((e) => e.seq)).toEqual([1, 2]);
    const live = nextBatch(events);
    agent.emit({ type: 'STDOUT', stream: 'stdout', text: 'two' });
    expect((await live).map((e) => e.text)).toEqual(['two']);
    await within('the stop', manager.stop(alpha, id, false));
    const rest = await readToEnd(events);
    expect(rest.map((e) => e.type)).toEqual(['SESSION_STOPPED']);
    expect(rest[0]?.data).toMatchObject({ reason: 'stop_requested' });
  });

  it('tells a reader that fell behind which events it missed', async () => {
    const { clock, start, open } = setup({ eventBufferSize: 4 });
    const { id, agent } = await start();
    const events = open(id, 0);
    for (let i = 0; i < 10; i++) agent.emit({ type: 'STDOUT', stream: 'stdout', text: `${i}` });
    clock.advance(42);
    expect(await nextBatch(events)).toMatchObject([
      {
        type: 'BUFFER_OVERFLOW',
        seq: 7,
        timestamp: clock.now(),
        data: { first_missing: 1, last_missing: 7 },
      },
    ]);
    expect((await nextBatch(events)).map((e) => e.seq)).toEqual([8, 9, 10, 11]);
  });

  it('moves acks forward only and resumes a subscriber after its ack', async () => {
    const { manager, start, open } = setup();
    const { id } = await start();
    for (const text of ['a', 'b', 'c']) await manager.sendInput(alpha, id, text, '');
    expect(await manager.ack(alpha, id, 'cp', 4)).toBe(4);
    expect(await manager.ack(alpha, id, 'cp', 2)).toBe(4);
    expect(await kindOf(() => manager.ack(alpha, id, 'cp', 8))).toBe('out_of_range');
    expect(await kindOf(() => manager.ack(alpha, id, '', 1))).toBe('invalid_argument');
    expect((await nextBatch(open(id, undefined, 'cp')))[0]?.seq).toBe(5);
    expect((await nextBatch(open(id, 1, 'cp')))[0]?.seq).toBe(2);
  });
});

describe('SessionManager: timers on the injected clock', () => {
  it('stops a session idle for the idle timeout, saying why', async () => {
    const { clock, manager, settings, start, history } = setup({ idleTimeoutMs: 10_000 });
    const { id, agent } = await start();
    clock.advance(9_999);
    expect(manager.get(alpha, id).status).toBe('RUNNING');
    clock.advance(1);
    expect(manager.get(alpha, id).status).toBe('STOPPING');
    const last = (await history(id)).at(-1);
    expect(last).toMatchObject({ type: 'SESSION_STOPPED', data: { reason: 'idle_timeout' } });
    expect(agent.stops).toEqual([{ force: false, gracePeriodMs: settings.stopGracePeriodMs }]);
    expect(manager.get(alpha, id).status).toBe('STOPPED');
  });

  it('does not stop a session while a subscriber reads it, nor right after', async () => {
    const { clock, manager, start, open } = setup({ idleTimeoutMs: 10_000 });
    const { id } = await start();
    const events = open(id);
    clock.advance(60_000);
    expect(manager.get(alpha, id).status).toBe('RUNNING');
    await within('the stream to close', events.return!());
    clock.advance(9_999);
    expect(manager.get(alpha, id).status).toBe('RUNNING');
    clock.advance(1);
    expect(manager.get(alpha, id).status).toBe('STOPPING');
  });

  it('keeps an ended session for the retention period, then forgets it', async () => {
    const { clock, manager, start } = setup({ retentionMs: 20_000 });
    const { id } = await start();
    await within('the stop', manager.stop(alpha, id, false));
    clock.advance(19_999);
    expect(manager.get(alpha, id).status).toBe('STOPPED');
    expect(manager.counts('alpha')).toMatchObject({ active: 0, retained: 1, projectActive: 0 });
    clock.advance(1);
    expect(await kindOf(() => manager.get(alpha, id))).toBe('not_found');
    expect(ids(manager.list(alpha, anyStatus))).toEqual([]);
  });

  it('keeps a subscriber cursor for its TTL, then forgets it', async () => {
    const { clock, manager, start, open } = setup({ subscriberTtlMs: 10_000, maxSubscribers: 1 });
    const { id } = await start();
    await manager.sendInput(alpha, id, 'x', '');
    await manager.ack(alpha, id, 'cp', 2);
    clock.advance(9_999);
    expect(await kindOf(() => manager.ack(alpha, id, 'other', 1))).toBe('resource_exhausted');
    clock.advance(1);
    expect(await manager.ack(alpha, id, 'other', 1)).toBe(1);
    expect((await nextBatch(open(id, undefined, 'cp')))[0]?.seq).toBe(1);
  });

  it('shuts down: refuses new sessions, stops the sweeper and every session', async () => {
    const { clock, manager, request, start, history } = setup();
    const { id } = await start();
    expect(clock.pending).toBe(1);
    await within('the shutdown', manager.shutdown());
    expect(manager.shuttingDown).toBe(true);
    expect(clock.pending).toBe(0);
    expect((await history(id)).at(-1)?.data).toMatchObject({ reason: 'shutdown' });
    expect(await kindOf(() => manager.start(alpha, request()))).toBe('unavailable');
  });
});

describe('SessionManager: listing', () => {
  it('lists a project newest first, in pages', async () => {
    const { clock, manager, start } = setup({ maxPerProject: 5 });
    const started: string[] = [];
    for (let i = 0; i < 3; i++) {
      started.unshift((await start()).id);
      clock.advance(1);
    }
    const first = manager.list(alpha, { ...anyStatus, pageSize: 2 });
    expect(ids(first)).toEqual(started.slice(0, 2));
    const second = manager.list(alpha, {
      ...anyStatus,
      pageSize: 2,
      pageToken: first.nextPageToken,
    });
    expect(ids(second)).toEqual(started.slice(2));
    expect(second.nextPageToken).toBe('');
    expect(ids(manager.list(beta, anyStatus))).toEqual([]);
    expect(await kindOf(() => manager.list(alpha, { ...anyStatus, projectId: 'beta' }))).toBe(
      'permission_denied',
    );
  });
});
