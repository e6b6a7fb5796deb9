import { join, relative } from 'node:path';
import type { BridgeConfig } from '@agent-bridge/config';
import type { Logger } from 'pino';
import { DEV_ISSUER, DEV_PROJECT, type DevFiles, writeDevProfile } from '../dev-setup.js';
import { invokedFrom } from './invoked-from.js';

/** What `bridge dev` set up: the files, and the listen address it asked for. */
export interface DevRun {
  files: DevFiles;
  listen: string;
}

/**
 * Once `bridge dev` serves: what to try next on stderr, and the bridgectl
 * profile "dev" written (unless the user edited it).
 */
export async function announceDev(
  file: string,
  port: number,
  config: BridgeConfig,
  dev: DevRun,
  logger: Logger,
  storePath: string | undefined,
): Promise<void> {
  printDevHelp(file, port, config.server.listen, storePath);
  try {
    const profile = await writeDevProfile(dev.files, dev.listen, port, process.env);
    process.stderr.write(
      profile.outcome === 'written'
        ? `  bridgectl profile "dev" written to ${profile.file}: try \`npm run bridgectl -- health\`\n\n`
        : `  bridgectl profile "dev" in ${profile.file} was edited, so it is kept as it is\n\n`,
    );
  } catch (err) {
    logger.warn({ err }, `cannot write the bridgectl profile: ${(err as Error).message}`);
  }
}

function printDevHelp(
  configFile: string,
  port: number,
  listen: string,
  storePath: string | undefined,
): void {
  const host = listen.replace(/:\d+$/, '');
  const dir = configFile.replace(/\/bridge\.dev\.yaml$/, '');
  // Paths as the user would type them from where they ran the command.
  const shown = relative(invokedFrom, dir) || '.';
  const rel = (p: string) => (shown.startsWith('..') ? join(dir, p) : join(shown, p));
  process.stderr.write(`
  AI Agent Bridge (dev) listening on ${host}:${port}: TLS 1.3, mutual TLS, JWT on every call
  config       ${configFile}
  CA           ${rel('ca.crt')}
  client cert  ${rel('client.crt')}  key ${rel('client.key')}
  JWT key      ${rel('jwt.key')} (issuer "${DEV_ISSUER}")    [all under ${dir}]
  audit log    ${rel('audit.jsonl')}
  sessions     ${storePath === undefined ? 'in memory only (storage.backend: memory): lost at every restart' : `${storePath.startsWith(`${dir}/`) ? rel(relative(dir, storePath)) : storePath} (kept across restarts)`}

  Mint a token (valid 5 minutes, bound to the client certificate) and call the daemon:
    TOKEN=$(npm run -s bridge-ca -- jwt-mint --key ${rel('jwt.key')} --iss ${DEV_ISSUER} --sub me --project ${DEV_PROJECT} --bind-cert ${rel('client.crt')})
    npx buf curl --protocol grpc --cacert ${rel('ca.crt')} --cert ${rel('client.crt')} --key ${rel('client.key')} \\
      -H "authorization: Bearer $TOKEN" https://${host}:${port}/bridge.v1.BridgeService/ListProviders

  Stop with Ctrl-C.
`);
}
