import type { NatsPki } from './nats-pki.js';

/** The loopback ports of one server. */
export interface NodePorts {
  client: number;
  cluster: number;
  monitor: number;
}

/** Account name → the CNs of the client certificates mapped to it. */
export type NatsAccounts = Record<string, string[]>;

/** One nats-server's configuration file: JetStream, TLS with verified clients, routes. */
export function nodeConfig(opts: {
  name: string;
  ports: NodePorts;
  storeDir: string;
  pki: NatsPki;
  /** Every node's ports (none for a single server). */
  routes: NodePorts[];
  accounts?: NatsAccounts | undefined;
}): string {
  const { name, ports: p, storeDir, pki, routes: all, accounts } = opts;
  const files = `cert_file: "${pki.serverCertPath}", key_file: "${pki.serverKeyPath}", ca_file: "${pki.caPath}"`;
  const tls = `{ ${files}, verify: true, timeout: 5 }`;
  // Clients are mapped to an account by their certificate's subject when there are accounts.
  const clientTls = accounts ? `{ ${files}, verify_and_map: true, timeout: 5 }` : tls;
  const routes = all
    .filter((o) => o.cluster !== p.cluster)
    .map((o) => `"tls://127.0.0.1:${o.cluster}"`);
  return [
    `server_name: ${name}`,
    `listen: "127.0.0.1:${p.client}"`,
    `http: "127.0.0.1:${p.monitor}"`,
    // As docs/operations.md advises: room for an agent's largest events.
    'max_payload: 8MB',
    `jetstream { store_dir: "${storeDir}", max_memory_store: 64MB, max_file_store: 1GB }`,
    `tls ${clientTls}`,
    accounts ? accountsBlock(accounts) : '',
    all.length > 0
      ? `cluster { name: bridge-test, listen: "127.0.0.1:${p.cluster}", routes: [${routes.join(', ')}], tls ${tls} }`
      : '',
    '',
  ].join('\n');
}

function accountsBlock(accounts: NatsAccounts): string {
  const body = Object.entries(accounts)
    .map(([account, cns]) => {
      const users = cns.map((cn) => `{ user: "CN=${cn}" }`).join(', ');
      return `  ${account}: { jetstream: enabled, users: [${users}] }`;
    })
    .join('\n');
  return `accounts {\n${body}\n}`;
}
