import { join } from 'node:path';
import { createRedactor } from '@agent-bridge/bridge';
import { ConfigError, compileRedactPattern } from '@agent-bridge/config';
import type { LiveProcessGroups, ProviderHost } from '@agent-bridge/providers/host';
import { wireEventCodec } from '@agent-bridge/server';
import { type AuditLog, createAuditLog } from '../audit-log.js';
import { startDaemon } from '../daemon.js';
import { createLogger } from '../logger.js';
import { type OrphanGuard, startOrphanGuard } from '../orphan-guard.js';
import { checkStartup } from '../startup-checks.js';
import { sweepToolDirs } from '../tool-servers.js';
import { VERSION } from '../version.js';
import { announceDev, type DevRun } from './dev-run.js';
import { type FleetMember, joinAsMember } from './fleet-member.js';
import { load } from './load.js';
import { homesRootOf, type OpenedStore, openStore, StoreOpenError } from './open-store.js';
import { untilStopped } from './signals.js';
import { lines, startupCheckOptions, stateDirOf } from './startup-inputs.js';

/**
 * `bridge run` (and `bridge dev` with `dev`): loads and checks the config,
 * starts the daemon with its logger, audit log and orphan guard, and serves
 * until a signal stops it; resolves with the exit code.
 */
export async function run(
  file: string,
  host: ProviderHost,
  groups: LiveProcessGroups,
  dev?: DevRun,
): Promise<number> {
  let loaded: ReturnType<typeof load>;
  try {
    loaded = load(file, host, (config) => homesRootOf(config, dev));
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
  const swept = sweepToolDirs(stateDir);
  if (swept.length > 0)
    logger.info({ swept }, 'removed the tool directories of daemons that are gone');
  let stored: OpenedStore;
  try {
    stored = await openStore(config, dev);
  } catch (err) {
    logger.fatal({ err }, `cannot start: ${(err as Error).message}`);
    orphans.close();
    auditLog.close();
    return err instanceof StoreOpenError ? err.exitCode : 1;
  }
  logger.info(
    { storage: config.storage.backend, path: stored.path, historyId: stored.store.historyId },
    stored.path === undefined
      ? 'sessions kept in memory only (storage.backend: memory): a restart loses them'
      : `sessions kept in ${stored.path}`,
  );
  // A fleet is joined in the background: the daemon serves on its store meanwhile.
  let fleet: FleetMember | undefined;
  if (config.fleet && stored.embedded) {
    try {
      fleet = joinAsMember(config.fleet, stored.embedded, wireEventCodec(), logger, {
        providers: [...providers.keys()],
        maxSessions: config.sessions.maxGlobal,
        version: VERSION,
      });
    } catch (err) {
      // What joining reads first: the NATS certificate files.
      logger.fatal({ err }, `cannot join fleet ${config.fleet.name}: ${(err as Error).message}`);
      await stored.close();
      orphans.close();
      auditLog.close();
      return 2;
    }
  }
  let daemon: Awaited<ReturnType<typeof startDaemon>>;
  try {
    daemon = await startDaemon({
      config,
      providers,
      logger,
      audit: auditLog.audit,
      store: fleet?.store ?? stored.store,
      toolSocketPath: toolSocketPathIn(stateDir, logger),
      ...(fleet ? { fleet } : {}),
    });
  } catch (err) {
    logger.fatal({ err }, `cannot start: ${(err as Error).message}`);
    await stored.close();
    orphans.close();
    auditLog.close();
    return err instanceof ConfigError ? 2 : 1;
  }
  if (dev) await announceDev(file, daemon.server.port, config, dev, logger, stored.path);
  // Machine-readable readiness line for supervisors and tests.
  if (process.env.BRIDGE_READY_FD === '1')
    process.stdout.write(
      `BRIDGE_READY port=${daemon.server.port}${daemon.server.metricsPort === undefined ? '' : ` metrics_port=${daemon.server.metricsPort}`}\n`,
    );

  return untilStopped(daemon, logger, { auditLog, orphans, store: stored });
}

/** Longest Unix socket path Linux binds (sun_path is 108 bytes, with its NUL). */
const SOCKET_PATH_MAX = 107;

/**
 * The agents' tool socket in the state directory, one per daemon; none
 * (collaboration tools off, said in the log) where the path is too long
 * to bind.
 */
function toolSocketPathIn(
  stateDir: string,
  logger: { warn(msg: string): void },
): string | undefined {
  const path = join(stateDir, `tools-${process.pid}`, 'tools.sock');
  if (Buffer.byteLength(path) <= SOCKET_PATH_MAX) return path;
  logger.warn(
    `the agents' collaboration tools are off: their socket path ${path} is longer than ${SOCKET_PATH_MAX} bytes (choose a shorter sessions.state_dir)`,
  );
  return undefined;
}
