import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { connect, REPO_ROOT, type TestPki, within } from '@agent-bridge/harness';
import type { BridgeServiceClient } from '@agent-bridge/proto';
import { built } from './built.js';

/** The bare grpc-js reference server (reference-server.ts) running as a child. */
export interface ReferenceProcess {
  port: number;
  pid: number;
  /** A client of it over mutual TLS, as the bench is the daemon's (closed by `stop`). */
  client: BridgeServiceClient;
  /** A client of its raw HTTP/2 listener (pre-built gRPC frames, no gRPC library serving). */
  rawClient: BridgeServiceClient;
  /** Sends one command and waits for its answer. */
  command(c: Record<string, unknown> & { cmd: string }): Promise<void>;
  /** Closes its stdin (its signal to stop) and waits for it to exit. */
  stop(): Promise<void>;
}

/** Starts the reference server, built, the way the bench starts the daemon. */
export async function startReference(pki: TestPki): Promise<ReferenceProcess> {
  const proc: ChildProcess = spawn(
    process.execPath,
    [built('bench/src/reference-server.ts'), pki.caPath, pki.serverCertPath, pki.serverKeyPath],
    { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const exited = once(proc, 'exit');
  const lines: string[] = [];
  const waiting: (() => void)[] = [];
  createInterface({ input: proc.stdout! }).on('line', (l) => {
    lines.push(l);
    for (const w of waiting.splice(0)) w();
  });
  const nextLine = (what: string) =>
    within(
      what,
      Promise.race([
        new Promise<string>((resolve) => {
          const take = () => {
            const l = lines.shift();
            if (l === undefined) waiting.push(take);
            else resolve(l);
          };
          take();
        }),
        exited.then(() => {
          throw new Error(`the reference server exited before ${what}`);
        }),
      ]),
      60_000,
    );
  let port: number;
  let rawPort: number;
  try {
    const ready = /^REFERENCE_READY port=(\d+) raw=(\d+)$/.exec(
      await nextLine('its readiness line'),
    );
    if (!ready) throw new Error('the reference server printed something else than its ports');
    port = Number(ready[1]);
    rawPort = Number(ready[2]);
  } catch (err) {
    proc.kill('SIGKILL');
    await exited;
    throw err;
  }
  const client = connect({ port, caPem: pki.ca.certPem, client: pki.client });
  const rawClient = connect({ port: rawPort, caPem: pki.ca.certPem, client: pki.client });
  return {
    port,
    pid: proc.pid as number,
    client,
    rawClient,
    command: async (c) => {
      proc.stdin!.write(`${JSON.stringify(c)}\n`);
      const answer = JSON.parse(await nextLine(`the answer to ${c.cmd}`)) as { ok?: string };
      if (answer.ok !== c.cmd) throw new Error(`reference server: ${JSON.stringify(answer)}`);
    },
    stop: async () => {
      client.close();
      rawClient.close();
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.stdin!.end();
      try {
        await within('the reference server to exit', exited, 10_000);
      } catch (err) {
        proc.kill('SIGKILL');
        await exited;
        throw err;
      }
    },
  };
}
