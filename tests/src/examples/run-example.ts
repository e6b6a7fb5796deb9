/**
 * What the example tests share: running a command to its end within a
 * bound, the environment an example gets (the test PKI as files), and the
 * reading of minimal-control-plane.mjs's output.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type TestPki, within } from '@agent-bridge/harness';
import { expect } from 'vitest';

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `file args` in `cwd` and resolves once it has exited, with its
 * output. One still running after `timeoutMs` is killed and the wait fails
 * with its output so far.
 */
export async function run(
  file: string,
  args: string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<Finished> {
  const proc = spawn(file, args, {
    cwd: opts.cwd,
    env: opts.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  proc.stdout.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
  });
  proc.stderr.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
  });
  // 'close' comes after the exit and the end of both pipes: the output is whole.
  const closed = once(proc, 'close') as Promise<[number | null, NodeJS.Signals | null]>;
  try {
    const [code, signal] = await within(
      () => `\`${[file, ...args].join(' ')}\` to exit; its output so far:\n${stdout}${stderr}`,
      closed,
      opts.timeoutMs,
    );
    return { code, signal, stdout, stderr };
  } catch (err) {
    proc.kill('SIGKILL');
    await closed;
    throw err;
  }
}

/** This process's environment without any BRIDGE_* variable of the caller's shell, plus `vars`. */
export function exampleEnv(vars: Record<string, string>): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('BRIDGE_')),
  );
  return { ...env, ...vars };
}

/**
 * The test PKI as the files an example reads (written to `dir`), and the
 * variables naming them: the "control" issuer's key, project "alpha".
 */
export function credentialVars(pki: TestPki, dir: string): Record<string, string> {
  const write = (name: string, pem: string) => {
    const path = join(dir, name);
    writeFileSync(path, pem, { mode: 0o600 });
    return path;
  };
  return {
    BRIDGE_CA: pki.caPath,
    BRIDGE_CERT: write('client.crt', pki.client.certPem),
    BRIDGE_KEY: write('client.key', pki.client.keyPem),
    BRIDGE_JWT_KEY: write('jwt.key', pki.issuers.control.privatePem),
    BRIDGE_ISSUER: 'control',
    BRIDGE_PROJECT: 'alpha',
  };
}

interface PrintedEvent {
  seq: number;
  type: string;
  text: string;
}

/**
 * Checks what minimal-control-plane.mjs printed: the first stream from
 * seq 1 to the first TURN_COMPLETED, closed there; the second, same
 * subscriber, from the next seq on without a gap or a repeat, through the
 * second turn to SESSION_STOPPED. Returns the session id and the events.
 */
export function checkMinimalOutput(stdout: string): {
  sessionId: string;
  events: PrintedEvent[];
} {
  const lines = stdout.trimEnd().split('\n');
  const sessionId = /^session (\S+): RUNNING$/m.exec(stdout)?.[1];
  expect(sessionId, stdout).toMatch(/^[0-9a-f-]{36}$/);
  const closedAt = lines.findIndex((l) => l.startsWith('stream closed after #'));
  const resumedAt = lines.indexOf('resuming as minimal-control-plane');
  expect(closedAt, stdout).toBeGreaterThan(0);
  expect(resumedAt, stdout).toBe(closedAt + 1);
  const events = (from: number, to: number): PrintedEvent[] =>
    lines.slice(from, to).flatMap((l) => {
      const m = /^ {2}#(\d+) (\w+) ?(.*)$/.exec(l);
      return m ? [{ seq: Number(m[1]), type: m[2]!, text: m[3]! }] : [];
    });
  const first = events(0, closedAt);
  const second = events(resumedAt, lines.length);
  const seqs = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);

  expect(first.map((e) => e.seq)).toEqual(seqs(1, first.length));
  expect(first.at(-1)?.type).toBe('TURN_COMPLETED');
  expect(lines[closedAt]).toBe(`stream closed after #${first.length}`);
  expect(second.map((e) => e.seq)).toEqual(seqs(first.length + 1, second.length));
  expect(second[0]).toEqual({
    seq: first.length + 1,
    type: 'INPUT_RECEIVED',
    text: 'Now list the open TODOs',
  });
  expect(second.at(-1)?.type).toBe('SESSION_STOPPED');
  const all = [...first, ...second];
  expect(all.filter((e) => e.type === 'TURN_COMPLETED')).toHaveLength(2);
  // The mock agent's reply quotes the input.
  expect(all.filter((e) => e.type === 'AGENT_MESSAGE').map((e) => e.text)).toEqual([
    expect.stringContaining('"Summarise the README"'),
    expect.stringContaining('"Now list the open TODOs"'),
  ]);
  expect(lines.at(-1)).toBe(`session ${sessionId} ended`);
  return { sessionId: sessionId!, events: all };
}
