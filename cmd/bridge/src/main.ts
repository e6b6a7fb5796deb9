#!/usr/bin/env node
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createRedactor } from '@agent-bridge/bridge';
import { outputClosed } from '@agent-bridge/cli';
import {
  type BridgeConfig,
  ConfigError,
  compileRedactPattern,
  loadConfig,
} from '@agent-bridge/config';
import type { Provider } from '@agent-bridge/providers';
import {
  createProviders,
  LiveProcessGroups,
  ProviderConfigError,
  type ProviderHost,
  SupervisedProcess,
  trackingSpawner,
} from '@agent-bridge/providers/host';
import { scope } from '@agent-bridge/scope';

import { type AuditLog, createAuditLog } from './audit-log.js';
import { startDaemon } from './daemon.js';
import {
  DEV_ISSUER,
  DEV_PROJECT,
  type DevFiles,
  defaultAllowedPaths,
  ensureDevSetup,
  writeDevProfile,
} from './dev-setup.js';
import { createLogger } from './logger.js';
import { defaultStateDir, type OrphanGuard, startOrphanGuard } from './orphan-guard.js';
import { checkStartup } from './startup-checks.js';
import { VERSION } from './version.js';

const HELP = `bridge ${VERSION}: supervises AI coding agents and serves them over gRPC (TLS 1.3 mTLS + JWT)

Usage:
  bridge [run] --config <file>        start the daemon
  bridge check-config --config <file> validate a config file (and the files it names), then exit
  bridge dev [--listen host:port] [--dir certs/dev]
                                      first run: create a dev PKI and config in --dir,
                                      then start on 127.0.0.1:9445 with the mock agent,
                                      and write the bridgectl profile "dev"
  bridge --version | --help

Options:
  -c, --config <file>   the configuration (see bridge.yaml)
  --listen host:port    dev: where to listen (else $BRIDGE_DEV_LISTEN, else 127.0.0.1:9445)
  --dir <dir>           dev: the dev PKI and config (else $BRIDGE_DEV_DIR, else certs/dev)
  -h, --help            this help
  -v, --version         the version

Environment: BRIDGE_READY_FD=1 prints "BRIDGE_READY port=<port>" on stdout once serving;
BRIDGECTL_PROFILES, XDG_CONFIG_HOME: where dev writes the bridgectl profile file.

Signals: SIGTERM/SIGINT stop gracefully (sessions get their terminal event,
children are stopped within stop_grace_period); SIGHUP reloads TLS files.
Exit codes: 0 ok, 1 runtime failure, 2 usage or invalid configuration.`;

/** Where `npm run dev` was invoked (scripts/run.mjs passes it through). */
const invokedFrom = process.env.INIT_CWD ?? process.cwd();

const parseCommandLine = (argv: string[]) =>
  parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      config: { type: 'string', short: 'c' },
      listen: { type: 'string' },
      dir: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
    },
  });

async function main(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parseCommandLine>;
  try {
    parsed = parseCommandLine(argv);
  } catch (err) {
    process.stderr.write(`bridge: ${(err as Error).message.split('\n')[0]} (see bridge --help)\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  if (values.version) {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  const command = positionals[0] ?? 'run';
  // Every agent process group, from spawn to exit: what the orphan guard watches.
  const groups = new LiveProcessGroups();
  // Ends the providers' background health probes when the daemon stops.
  const lifetime = scope();
  // The only place providers learn about the process they run in.
  const host: ProviderHost = {
    parentEnv: process.env,
    tempRoot: tmpdir(),
    spawn: trackingSpawner((opts) => SupervisedProcess.spawn(opts), groups),
    lifetime: lifetime.signal,
  };
  switch (command) {
    case 'run':
    case 'check-config': {
      if (!values.config) {
        process.stderr.write(
          `bridge ${command}: --config <file> is required (see bridge --help)\n`,
        );
        return 2;
      }
      const file = resolve(invokedFrom, values.config);
      return command === 'run'
        ? run(file, host, groups).finally(() => lifetime.end())
        : checkConfig(file, host);
    }
    case 'dev': {
      const root = resolve(new URL('../../..', import.meta.url).pathname);
      const dirOption = values.dir ?? process.env.BRIDGE_DEV_DIR;
      const devDir = dirOption ? resolve(invokedFrom, dirOption) : resolve(root, 'certs/dev');
      const listen = values.listen ?? (process.env.BRIDGE_DEV_LISTEN || '127.0.0.1:9445');
      const setup = await ensureDevSetup(devDir, {
        listen,
        allowedPaths: defaultAllowedPaths(invokedFrom),
        pathEnv: host.parentEnv.PATH ?? '',
      });
      if (setup.created)
        process.stderr.write(`bridge dev: created a development PKI in ${setup.files.dir}\n`);
      return run(setup.files.config, host, groups, { files: setup.files, listen }).finally(() =>
        lifetime.end(),
      );
    }
    default:
      process.stderr.write(`bridge: unknown command "${command}" (see bridge --help)\n`);
      return 2;
  }
}

/**
 * Loads the config and builds its providers: the one place both are
 * validated, so `check-config` rejects exactly what `run` would. A problem
 * the provider registry finds (an unknown adapter) is reported like the
 * loader's own, with its line.
 */
function load(
  file: string,
  host: ProviderHost,
): { config: BridgeConfig; providers: Map<string, Provider> } {
  const loaded = loadConfig(file);
  try {
    return { config: loaded.config, providers: createProviders(loaded.config.providers, host) };
  } catch (err) {
    throw err instanceof ProviderConfigError ? loaded.reject(err.problems) : err;
  }
}

async function checkConfig(file: string, host: ProviderHost): Promise<number> {
  let config: BridgeConfig;
  try {
    config = load(file, host).config;
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    return 2;
  }
  const check = await checkStartup(
    config,
    startupCheckOptions(config, stateDirOf(config, undefined), host),
  );
  if (check.problems.length > 0) {
    process.stderr.write(`${file}: cannot start with it:\n${lines(check.problems)}`);
    return 2;
  }
  process.stdout.write(
    `${file}: ok (listen ${config.server.listen}, ${Object.keys(config.providers).length} providers, ${config.allowedPaths.length} allowed paths)\n`,
  );
  if (check.warnings.length > 0) process.stderr.write(lines(check.warnings));
  return 0;
}

const lines = (items: readonly string[]) => items.map((l) => `  ${l}\n`).join('');

/** Where the daemon keeps its state: `sessions.state_dir`, else the dev directory's or the default one. */
function stateDirOf(config: BridgeConfig, dev: DevRun | undefined): string {
  return (
    config.sessions.stateDir ||
    (dev ? join(dev.files.dir, 'state') : defaultStateDir(process.env, tmpdir()))
  );
}

function startupCheckOptions(config: BridgeConfig, stateDir: string, host: ProviderHost) {
  return {
    stateDir,
    stateDirKey: config.sessions.stateDir
      ? 'sessions.state_dir'
      : 'sessions.state_dir (unset, so the default)',
    pathEnv: host.parentEnv.PATH ?? '',
  };
}

/** What `bridge dev` set up: the files, and the listen address it asked for. */
interface DevRun {
  files: DevFiles;
  listen: string;
}

async function run(
  file: string,
  host: ProviderHost,
  groups: LiveProcessGroups,
  dev?: DevRun,
): Promise<number> {
  let loaded: ReturnType<typeof load>;
  try {
    loaded = load(file, host);
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    return 2;
  }
  const { config, providers } = loaded;
  const stateDir = stateDirOf(config, dev);
  // What check-config checks: a configuration the host cannot serve exits 2
  // here, before anything starts (the unit does not restart on 2).
  const check = await checkStartup(config, startupCheckOptions(config, stateDir, host));
  if (check.problems.length > 0) {
    process.stderr.write(`bridge: cannot start with ${file}:\n${lines(check.problems)}`);
    return 2;
  }
  const redactPatterns = config.logging.redactPatterns.map(compileRedactPattern);
  const logger = createLogger({
    level: config.logging.level,
    format: config.logging.format,
    redactPatterns,
  });
  for (const w of check.warnings) logger.warn(w);
  let auditLog: AuditLog;
  try {
    auditLog = createAuditLog({
      path: config.logging.auditPath,
      redact: createRedactor(redactPatterns),
      logger,
    });
  } catch (err) {
    logger.fatal({ err }, `cannot open the audit log: ${(err as Error).message}`);
    return 1;
  }
  let orphans: OrphanGuard;
  try {
    orphans = startOrphanGuard({ stateDir, groups, logger });
  } catch (err) {
    logger.fatal(
      { err, stateDir },
      `cannot use ${stateDir} (sessions.state_dir): ${(err as Error).message}`,
    );
    auditLog.close();
    return 1;
  }
  let daemon: Awaited<ReturnType<typeof startDaemon>>;
  try {
    daemon = await startDaemon({ config, providers, logger, audit: auditLog.audit });
  } catch (err) {
    logger.fatal({ err }, `cannot start: ${(err as Error).message}`);
    orphans.close();
    auditLog.close();
    return err instanceof ConfigError ? 2 : 1;
  }
  if (dev) {
    printDevHelp(file, daemon.server.port, config.server.listen);
    try {
      const profile = await writeDevProfile(dev.files, dev.listen, daemon.server.port, process.env);
      process.stderr.write(
        profile.outcome === 'written'
          ? `  bridgectl profile "dev" written to ${profile.file}: try \`npm run bridgectl -- health\`\n\n`
          : `  bridgectl profile "dev" in ${profile.file} was edited, so it is kept as it is\n\n`,
      );
    } catch (err) {
      logger.warn({ err }, `cannot write the bridgectl profile: ${(err as Error).message}`);
    }
  }
  // Machine-readable readiness line for supervisors and tests.
  if (process.env.BRIDGE_READY_FD === '1')
    process.stdout.write(
      `BRIDGE_READY port=${daemon.server.port}${daemon.server.metricsPort === undefined ? '' : ` metrics_port=${daemon.server.metricsPort}`}\n`,
    );

  return new Promise<number>((done) => {
    const stop = (sig: string) => {
      logger.info({ signal: sig }, 'signal received');
      daemon
        .stop()
        .then(
          () => 0,
          (err) => {
            logger.error({ err }, 'shutdown failed');
            return 1;
          },
        )
        .then((code) => {
          orphans.close();
          auditLog.close();
          done(code);
        });
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
    process.on('SIGHUP', () => {
      try {
        auditLog.reopen();
      } catch (err) {
        logger.error({ err }, 'cannot reopen the audit log');
      }
      daemon.server
        .reloadTls()
        .catch((err) =>
          logger.error(
            { err },
            `TLS reload refused, keeping the previous material: ${err.message}`,
          ),
        );
    });
  });
}

function printDevHelp(configFile: string, port: number, listen: string): void {
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

  Mint a token (valid 5 minutes, bound to the client certificate) and call the daemon:
    TOKEN=$(npm run -s bridge-ca -- jwt-mint --key ${rel('jwt.key')} --iss ${DEV_ISSUER} --sub me --project ${DEV_PROJECT} --bind-cert ${rel('client.crt')})
    npx buf curl --protocol grpc --cacert ${rel('ca.crt')} --cert ${rel('client.crt')} --key ${rel('client.key')} \\
      -H "authorization: Bearer $TOKEN" https://${host}:${port}/bridge.v1.BridgeService/ListProviders

  Stop with Ctrl-C.
`);
}

// A reader that goes away (`bridge --help | head -1`) is no failure: what is
// left to write is dropped, instead of an EPIPE stack trace and exit 1.
outputClosed();
main(process.argv.slice(2)).then(
  (code) => {
    // The daemon has stopped (or never started): exit even if a library
    // still holds a handle, after giving the logger a moment to flush.
    setTimeout(() => process.exit(code), 50);
  },
  (err) => {
    process.stderr.write(`bridge: ${(err as Error).message}\n`);
    process.exit(1);
  },
);
