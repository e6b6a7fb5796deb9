import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor, within } from '@agent-bridge/waits';
import { type NatsAccounts, type NodePorts, nodeConfig } from './nats-config.js';
import { createNatsPki, type NatsPki } from './nats-pki.js';

/** Where Debian's `nats-server` package puts the binary; PATH is searched too. */
const CANDIDATES = ['/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server'];

/**
 * The nats-server binary, or an error that says exactly what to install: a
 * test that needs NATS never skips because it is absent.
 */
export function natsServerBinary(): string {
  const onPath = (process.env.PATH ?? '')
    .split(':')
    .filter(Boolean)
    .map((d) => join(d, 'nats-server'));
  const found = [process.env.NATS_SERVER_BIN ?? '', ...onPath, ...CANDIDATES].find(
    (p) => p && existsSync(p),
  );
  if (!found) {
    throw new Error(
      "nats-server is not installed: run `node scripts/ensure-nats-server.mjs` (as root it installs Debian's nats-server package), or `apt-get install nats-server`, or set NATS_SERVER_BIN",
    );
  }
  return found;
}

/** One server of the cluster: its ports, files and (while it runs) process. */
export interface NatsNode {
  name: string;
  ports: NodePorts;
  url: string;
  storeDir: string;
  configPath: string;
  proc: ChildProcess | undefined;
  /** The end of what the server wrote to stderr (its log), for failures. */
  log: string;
}

export interface NatsCluster {
  nodes: NatsNode[];
  /** `tls://127.0.0.1:<port>` of every node. */
  urls: string[];
  pki: NatsPki;
  /** Kills node `i` (SIGKILL unless told); its store stays for a restart. */
  kill(i: number, signal?: NodeJS.Signals): Promise<void>;
  /** Starts node `i` again on its store and ports, and waits until it serves. */
  restart(i: number): Promise<void>;
  /** Stops every node and removes the cluster's files. */
  stop(): Promise<void>;
}

/**
 * A real NATS cluster on loopback: `size` nats-server processes with
 * JetStream, each on its own ephemeral ports and store directory, clients
 * and routes on TLS with verified certificates (mutual TLS). Resolves once
 * every node answers its health check and JetStream has a meta leader.
 */
export async function startNatsCluster(
  opts: {
    size?: number;
    /**
     * NATS accounts, each with the client certificate CNs mapped to it
     * (`verify_and_map`): every account has its own JetStream and
     * subjects, and a certificate mapped to none is refused. Without
     * accounts every client certificate of the CA is let in.
     */
    accounts?: NatsAccounts;
  } = {},
): Promise<NatsCluster> {
  const size = opts.size ?? 3;
  const bin = natsServerBinary();
  const dir = mkdtempSync(join(process.env.BRIDGE_TEST_TMPDIR ?? tmpdir(), 'nats-cluster-'));
  const pki = await createNatsPki(dir);
  const nodes = layout(dir, size, pki, opts.accounts, await freePorts(size));
  const launch = (node: NatsNode) => {
    node.proc = spawn(bin, ['-c', node.configPath], { stdio: ['ignore', 'ignore', 'pipe'] });
    node.proc.stderr?.setEncoding('utf8').on('data', (d: string) => {
      node.log = (node.log + d).slice(-4_000);
    });
  };
  const cluster: NatsCluster = {
    nodes,
    urls: nodes.map((n) => n.url),
    pki,
    async kill(i, signal = 'SIGKILL') {
      const proc = nodes[i]?.proc;
      if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
      const gone = once(proc, 'exit');
      proc.kill(signal);
      await within(`nats node ${i + 1} to exit`, gone, 10_000);
    },
    async restart(i) {
      const node = nodes[i]!;
      launch(node);
      await healthy(node);
    },
    async stop() {
      process.off('exit', killAll);
      await Promise.all(nodes.map((_, i) => cluster.kill(i, 'SIGTERM')));
      rmSync(dir, { recursive: true, force: true });
    },
  };
  // A test process that exits without stopping the cluster (a failed hook, a
  // worker torn down) leaves no server behind.
  const killAll = () => {
    for (const node of nodes) node.proc?.kill('SIGKILL');
  };
  process.on('exit', killAll);
  try {
    // A port found free may be taken by another process before the server
    // binds it: such a start is retried on fresh ports, a few times.
    for (let attempt = 1; ; attempt++) {
      for (const node of nodes) launch(node);
      try {
        await Promise.all(nodes.map(healthy));
        break;
      } catch (err) {
        if (attempt >= 3 || !nodes.some((n) => n.log.includes('address already in use'))) throw err;
        await Promise.all(nodes.map((_, i) => cluster.kill(i)));
        const fresh = layout(dir, size, pki, opts.accounts, await freePorts(size));
        nodes.splice(0, nodes.length, ...fresh);
        cluster.urls = nodes.map((n) => n.url);
      }
    }
  } catch (err) {
    await cluster.stop();
    throw err;
  }
  return cluster;
}

/** Three distinct free ports for each of `size` nodes. */
async function freePorts(size: number): Promise<NodePorts[]> {
  const taken = new Set<number>();
  const next = async (): Promise<number> => {
    for (;;) {
      const port = await freePort();
      if (!taken.has(port)) {
        taken.add(port);
        return port;
      }
    }
  };
  const ports: NodePorts[] = [];
  for (let i = 0; i < size; i++) {
    ports.push({ client: await next(), cluster: await next(), monitor: await next() });
  }
  return ports;
}

/** Each node's store directory and config file (written afresh), for these ports. */
function layout(
  dir: string,
  size: number,
  pki: NatsPki,
  accounts: NatsAccounts | undefined,
  ports: NodePorts[],
): NatsNode[] {
  return ports.map((p, i) => {
    const name = `n${i + 1}`;
    rmSync(join(dir, name), { recursive: true, force: true });
    const storeDir = join(dir, name, 'js');
    mkdirSync(storeDir, { recursive: true });
    const configPath = join(dir, name, 'nats.conf');
    writeFileSync(
      configPath,
      nodeConfig({ name, ports: p, storeDir, pki, routes: size > 1 ? ports : [], accounts }),
    );
    return {
      name,
      ports: p,
      url: `tls://127.0.0.1:${p.client}`,
      storeDir,
      configPath,
      proc: undefined,
      log: '',
    };
  });
}

/** Waits until a node's health check passes: it serves clients and its JetStream is current. */
async function healthy(node: NatsNode): Promise<void> {
  let last = 'no answer yet';
  await waitFor(
    () => `nats node ${node.name} to be healthy (last: ${last}); its log ends:\n${node.log}`,
    async () => {
      if (node.proc?.exitCode !== null && node.proc?.exitCode !== undefined) {
        throw new Error(`nats node ${node.name} exited (${node.proc.exitCode}):\n${node.log}`);
      }
      try {
        const res = await fetch(`http://127.0.0.1:${node.ports.monitor}/healthz`, {
          signal: AbortSignal.timeout(2_000),
        });
        last = `${res.status} ${await res.text()}`;
        return res.ok;
      } catch (err) {
        last = (err as Error).message;
        return false;
      }
    },
    30_000,
    100,
  );
}

/** A port free on 127.0.0.1 now (the OS's next ephemeral port). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
