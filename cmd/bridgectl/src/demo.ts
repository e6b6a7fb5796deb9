#!/usr/bin/env node
// `npm run demo [-- --provider ID]`: a session end to end through bridgectl's own
// pieces. Uses the dev daemon the "dev" profile points at when it answers;
// otherwise starts `bridge dev` in the background and stops it at the end.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  type BridgeClient,
  type EventType,
  isTerminal,
  type SessionEvent,
} from '@agent-bridge/bridgeclient';
import { CliError } from '@agent-bridge/cli';
import { connect } from './connection.js';
import { explainConnectionError } from './connection-errors.js';
import { resolveSettings, type Settings } from './connection-settings.js';
import { processIo } from './ctl-io.js';
import { describeError } from './describe-error.js';
import { EXIT } from './exit-codes.js';
import { followEvents, rendererFor } from './follow-events.js';
import { createSpinner } from './spinner.js';

const USAGE = `usage: npm run demo [-- --provider ID]

Starts a session on the dev daemon (the bridgectl profile "dev"), sends two
turns, shows what the agent does as it happens, and stops the session. When
no dev daemon answers, it runs \`bridge dev\` for the demo's duration.
--provider picks the agent (default mock; any the daemon offers, e.g. claude).`;

const TURNS = [
  'Say hello and name the directory you are working in, in one short sentence.',
  'Now list at most three files in it, one per line, without changing anything.',
];

/** How long `bridge dev` may take to serve, and to exit after SIGTERM. */
const DAEMON_WAIT_MS = 60_000;

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

const io = processIo();

/** The dev profile's settings, once read: failures are explained with them. */
let settings: Settings | undefined;

/** A client for the dev profile's settings. */
async function connectDev(): Promise<BridgeClient> {
  settings = await resolveSettings({ profile: 'dev' }, io);
  return connect(settings);
}

/** A client for the dev profile when its daemon answers, else undefined. */
async function devClient(): Promise<BridgeClient | undefined> {
  let client: BridgeClient;
  try {
    client = await connectDev();
  } catch {
    return undefined; // no dev profile (yet), or its files are gone
  }
  try {
    await client.health({ timeoutMs: 3_000 });
    return client;
  } catch {
    client.close();
    return undefined;
  }
}

/** `bridge dev` in the background, resolved once it serves (and has written the profile). */
async function startDevDaemon(): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    ['--conditions=development', '--import', 'tsx', `${ROOT}cmd/bridge/src/main.ts`, 'dev'],
    // From the root, where tsx resolves; INIT_CWD tells it where the user is.
    {
      cwd: ROOT,
      env: { ...process.env, INIT_CWD: io.cwd, BRIDGE_READY_FD: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`bridge dev did not serve within ${DAEMON_WAIT_MS / 1000}s`)),
      DAEMON_WAIT_MS,
    );
    const collect = (d: Buffer) => {
      output += d;
      if (output.includes('BRIDGE_READY')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`bridge dev exited (${code}) before serving:\n${output.trim()}`));
    });
  });
  try {
    await ready;
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  return child;
}

async function stopDevDaemon(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), DAEMON_WAIT_MS);
  await exited;
  clearTimeout(timer);
}

async function demo(provider: string): Promise<void> {
  let daemon: ChildProcess | undefined;
  const spinner = createSpinner(io.stderr, io.stderrIsTty);
  let client = await devClient();
  try {
    if (!client) {
      io.stderr('demo: no dev daemon answers; starting `bridge dev` for the demo\n');
      spinner.start('starting bridge dev…');
      daemon = await startDevDaemon();
      spinner.stop();
      client = await connectDev();
    }
    spinner.start(`starting a ${provider} session…`);
    const { sessionId, status } = await client.startSession({ provider, repoPath: io.cwd });
    spinner.stop();
    io.stderr(
      `demo: session ${sessionId} (${status}); watch it too with: npm run bridgectl -- events ${sessionId} --follow\n`,
    );
    const renderer = rendererFor(io);
    const until = (type: EventType) => (e: SessionEvent) => e.type === type || isTerminal(e);
    let seq = await followEvents(
      client,
      sessionId,
      io,
      { afterSeq: 0, json: false, until: until('SESSION_STARTED') },
      renderer,
    );
    for (const text of TURNS) {
      await client.sendInput(sessionId, text);
      seq = await followEvents(
        client,
        sessionId,
        io,
        { afterSeq: seq ?? 0, json: false, until: until('TURN_COMPLETED') },
        renderer,
      );
    }
    await client.stopSession(sessionId);
    await followEvents(client, sessionId, io, { afterSeq: seq ?? 0, json: false }, renderer);
  } finally {
    spinner.stop();
    client?.close();
    if (daemon) await stopDevDaemon(daemon);
  }
}

async function main(): Promise<number> {
  let provider: string;
  try {
    const { values } = parseArgs({
      args: process.argv.slice(2),
      options: { provider: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    });
    if (values.help) {
      io.stdout(`${USAGE}\n`);
      return EXIT.ok;
    }
    provider = values.provider ?? 'mock';
  } catch (err) {
    io.stderr(`demo: ${(err as Error).message.split('\n')[0]} (see npm run demo -- --help)\n`);
    return EXIT.usage;
  }
  try {
    await demo(provider);
    return EXIT.ok;
  } catch (err) {
    const explained = settings ? explainConnectionError(err, settings) : err;
    const known =
      explained instanceof CliError
        ? { exitCode: explained.exitCode, message: explained.message }
        : describeError(explained);
    io.stderr(`demo: ${known?.message ?? (err as Error).message}\n`);
    return known?.exitCode ?? EXIT.failed;
  }
}

process.exitCode = await main();
