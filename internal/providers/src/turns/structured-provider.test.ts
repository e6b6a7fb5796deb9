import { existsSync, mkdtempSync, readlinkSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@agent-bridge/waits';
import { afterAll, describe, expect, it } from 'vitest';
import { StartupError } from '../contract/errors.js';
import type { AgentEvent } from '../contract/events.js';
import type { JsonObject } from '../contract/json-value.js';
import type { AgentHandle, ProviderCapabilities, SessionSpec } from '../contract/provider.js';
import { createProbeHost } from '../health/health-monitor.js';
import { StartupGate } from '../process/startup-gate.js';
import { SupervisedProcess } from '../process/supervised-process.js';
import {
  type DriverContext,
  type ProtocolDriver,
  StructuredProvider,
  type StructuredProviderOptions,
} from './structured-provider.js';
import type { Turn } from './turn.js';

// A one-file agent: prints {"ready":true}, then answers each JSON input line
// {"say": s} with {"reply": s}; special inputs exercise the edge cases.
const AGENT = `
const out = (o) => process.stdout.write(JSON.stringify(o) + '\\n');
if (process.argv.includes('--die')) { process.stderr.write('fatal: no config\\n'); process.exit(3); }
out({ ready: true, home: process.env.HOME, codexHome: process.env.CODEX_HOME, cwd: process.cwd() });
let buf = '';
process.stdin.on('data', (d) => {
  buf += d;
  for (let i = buf.indexOf('\\n'); i !== -1; i = buf.indexOf('\\n')) {
    const line = buf.slice(0, i); buf = buf.slice(i + 1);
    const { say } = JSON.parse(line);
    if (say === 'stray') process.stdout.write('a banner line\\n{"broken": \\n');
    if (say === 'huge') process.stdout.write('{"reply":"' + 'x'.repeat(40000) + '"}\\n');
    if (say !== 'hang') out({ reply: say });
  }
});
process.stdin.on('end', () => process.exit(0));
`;

class LineDriver implements ProtocolDriver {
  private ready!: () => void;
  private readonly readySeen = new Promise<void>((r) => {
    this.ready = r;
  });
  constructor(private readonly ctx: DriverContext) {}
  handshake() {
    return this.readySeen;
  }
  onMessage(m: JsonObject) {
    const turn = this.ctx.turns.current;
    if (m.ready) {
      this.ctx.emit({ type: 'STDOUT', stream: 'system', text: 'env', data: m });
      this.ready();
    } else if (typeof m.reply === 'string' && turn) {
      this.ctx.emit({ type: 'AGENT_MESSAGE', stream: 'stdout', text: m.reply, turnId: turn.id });
      this.ctx.turns.complete(turn, { text: 'completed', cancelled: false, data: {} });
    }
  }
  startTurn(text: string, turn: Turn) {
    this.ctx.writeJson({ say: text });
    this.ctx.turns.announce(turn);
    this.ctx.turns.begun(turn);
  }
  async cancelTurn() {
    // This agent cannot be interrupted, so a timed-out turn must end in a kill.
    throw new Error('cannot interrupt');
  }
}

class TestProvider extends StructuredProvider {
  readonly capabilities: ProviderCapabilities = {
    structuredEvents: true,
    multiTurn: true,
    interrupt: true,
    permissionRequests: false,
    resume: false,
  };
  constructor(opts: Partial<StructuredProviderOptions> = {}) {
    super(
      {
        id: 'line',
        binary: process.execPath,
        args: [],
        env: {},
        parentEnv: process.env,
        tempRoot: tmpdir(),
        spawn: SupervisedProcess.spawn,
        startupGate: new StartupGate(),
        probes: createProbeHost(lifetime.signal),
        ...opts,
      },
      {},
    );
  }
  protected override async command() {
    return { file: process.execPath, prefix: ['-e', AGENT, '--'] };
  }
  protected protocolArgs() {
    return [];
  }
  protected createDriver(ctx: DriverContext) {
    return new LineDriver(ctx);
  }
}

const repo = realpathSync(mkdtempSync(join(tmpdir(), 'structured-')));
afterAll(() => rmSync(repo, { recursive: true, force: true }));
const lifetime = new AbortController();
afterAll(() => lifetime.abort());

async function start(p: TestProvider, startupMs = 10_000, cwd = repo, events: AgentEvent[] = []) {
  const handle = await p.start({
    projectId: 'p',
    sessionId: '0b7c1d2e-6f3a-4c5b-9d8e-7f6a5b4c3d2e',
    repoPath: repo,
    cwd,
    options: {},
    spawned: () => {},
    emit: (e) => events.push(e),
    signal: AbortSignal.timeout(startupMs),
    startupClock: { stop() {}, restart() {} },
    lifetime: new AbortController().signal,
    askPermission: async () => ({ decision: 'deny', decidedBy: 'policy', reason: '' }),
  } satisfies SessionSpec);
  return { handle, events };
}

/** Waits until `events` holds one that `pred` accepts. */
const seen = (events: AgentEvent[], pred: (e: AgentEvent) => boolean) =>
  waitFor(
    () => `the event; got ${JSON.stringify(events.map((e) => e.type))}`,
    () => events.some(pred),
    5000,
    10,
  );

async function stop(handle: AgentHandle) {
  return handle.stop({ force: false, gracePeriodMs: 2000 });
}

describe('StructuredProvider', () => {
  it('runs the handshake, routes JSON lines to the driver and keeps stray text as STDOUT', async () => {
    const { handle, events } = await start(new TestProvider());
    handle.send('hello', () => {});
    handle.send('stray', () => {});
    await seen(events, (e) => e.type === 'AGENT_MESSAGE' && e.text === 'stray');
    expect(events.filter((e) => e.type === 'AGENT_MESSAGE').map((e) => e.text)).toEqual([
      'hello',
      'stray',
    ]);
    expect(events.filter((e) => e.type === 'STDOUT' && e.stream === 'stdout')).toEqual([
      { type: 'STDOUT', stream: 'stdout', text: 'a banner line' },
      { type: 'STDOUT', stream: 'stdout', text: '{"broken": ' },
    ]);
    expect(await stop(handle)).toEqual({ exitCode: 0, signal: null });
  });

  it('with emit_raw keeps every protocol line as STDOUT too', async () => {
    const { handle, events } = await start(new TestProvider({ emitRaw: true }));
    handle.send('x', () => {});
    await seen(events, (e) => e.type === 'AGENT_MESSAGE');
    expect(events.filter((e) => e.data?.raw).map((e) => e.text)).toContain('{"reply":"x"}');
    await stop(handle);
  });

  it('fails start-up with the exit status when the agent dies first; its stderr, which says why, went out first', async () => {
    const p = new TestProvider({ args: ['--die'] });
    const events: AgentEvent[] = [];
    const err = await start(p, 10_000, repo, events).then(
      () => expect.unreachable('the start-up failed'),
      (e: unknown) => e as StartupError,
    );
    const exit = { exitCode: 3, signal: null };
    expect(err).toEqual(new StartupError('agent exited during start-up (code 3)', { exit }));
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'STDERR', text: 'fatal: no config' }),
    );
  });

  it('reports a turn past turn_timeout and kills an agent that cannot be interrupted', async () => {
    const { handle, events } = await start(new TestProvider({ turnTimeoutMs: 200 }));
    handle.send('hang', () => {});
    const exit = await handle.exited;
    expect(exit.signal).toBe('SIGKILL');
    const err = events.find((e) => e.type === 'AGENT_ERROR');
    expect(err).toMatchObject({ turnId: 'turn-1', error: 'turn timeout' });
    expect(err?.data).toMatchObject({ reason: 'turn_timeout', timeout_ms: 200 });
  });

  it('spawns the agent in spec.cwd as given, not in repoPath', async () => {
    const elsewhere = realpathSync(mkdtempSync(join(tmpdir(), 'structured-cwd-')));
    try {
      const { handle, events } = await start(new TestProvider(), 10_000, elsewhere);
      const env = events.find((e) => e.text === 'env')?.data as { cwd: string };
      expect(env.cwd).toBe(elsewhere);
      expect(readlinkSync(`/proc/${handle.pid}/cwd`)).toBe(elsewhere);
      await stop(handle);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('gives an isolated session its own HOME and CODEX_HOME and removes them afterwards', async () => {
    const { handle, events } = await start(new TestProvider({ isolateHome: true }));
    const env = events.find((e) => e.text === 'env')?.data as { home: string; codexHome: string };
    expect(env.home).not.toBe(process.env.HOME);
    expect(env.codexHome).toBe(join(env.home, '.codex'));
    expect(existsSync(env.codexHome)).toBe(true);
    await stop(handle);
    expect(existsSync(env.home)).toBe(false);
  });
});
