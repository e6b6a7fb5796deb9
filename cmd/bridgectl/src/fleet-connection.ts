import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { BridgeFleet, type FleetDiscovery, UnavailableError } from '@agent-bridge/bridgeclient';
import { CliError } from '@agent-bridge/cli';
import { asProject, clientOptionsOf, sdkChecked } from './connection.js';
import type { Settings } from './connection-settings.js';
import { EXIT } from './exit-codes.js';
import { openToOthers, shellArg } from './setting-files.js';

/** How a command names a fleet: daemons listed, or found in a fleet's directory on NATS. */
export interface FleetFlags {
  /** `NAME=HOST:PORT`, each. */
  daemons: string[];
  /** `tls://HOST:PORT` of the fleet's NATS servers. */
  nats: string[];
  fleet?: string;
  natsCa?: string;
  natsCert?: string;
  natsKey?: string;
}

const LISTED = /^([A-Za-z0-9_.-]{1,64})=(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/;

/** `NAME=HOST:PORT` as a name and a target; a usage error saying the form otherwise. */
export function listedDaemon(spec: string): { name: string; target: string } {
  const m = LISTED.exec(spec);
  if (!m || Number(m[3]) < 1 || Number(m[3]) > 65_535) {
    throw new CliError(
      EXIT.usage,
      `--daemon is NAME=HOST:PORT (a name of your choosing, 1 to 64 of A-Z a-z 0-9 _ . -), not "${spec}"`,
    );
  }
  return { name: m[1] as string, target: `${m[2]}:${m[3]}` };
}

/** Whether the flags name a fleet at all. */
export const namesFleet = (f: FleetFlags): boolean => f.daemons.length > 0 || f.nats.length > 0;

/** Refuses flags that would be ignored: a fleet named twice, NATS files without --nats. */
export function checkFleetFlags(f: FleetFlags): void {
  if (f.daemons.length > 0 && f.nats.length > 0) {
    throw new CliError(EXIT.usage, 'a fleet is --daemon … or --nats …, not both');
  }
  const natsOnly = (['fleet', 'natsCa', 'natsCert', 'natsKey'] as const).filter((k) => f[k]);
  if (f.nats.length === 0 && natsOnly.length > 0) {
    const verb = natsOnly.length === 1 ? 'goes' : 'go';
    throw new CliError(EXIT.usage, `${natsOnly.map(flagOf).join(', ')} ${verb} with --nats`);
  }
}

const flagOf = (k: string) => `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

/** The fleets of the flags: one per project (a token names one project), sharing a directory. */
export interface FleetConnection {
  /** "of one, two" or "ops on NATS". */
  label: string;
  fleetFor(project: string): BridgeFleet;
  close(): void;
}

/**
 * The fleet the flags name, each daemon reached with the settings'
 * credentials (their address aside) as the project asked for. A fleet on
 * NATS is read with its own certificate (`--nats-ca`, `--nats-cert`,
 * `--nats-key`); its first connection is bounded, and a failure is
 * EXIT.unavailable.
 */
export async function connectFleet(
  settings: Settings,
  flags: FleetFlags,
  cwd: string,
): Promise<FleetConnection> {
  checkFleetFlags(flags);
  const made: BridgeFleet[] = [];
  const client = clientOptionsOf(settings);
  const as = (project: string) => asProject(client, project);
  if (flags.daemons.length > 0) {
    const daemons = flags.daemons.map(listedDaemon);
    const names = daemons.map((d) => d.name);
    const twice = names.find((n, i) => names.indexOf(n) !== i);
    if (twice !== undefined) throw new CliError(EXIT.usage, `--daemon names "${twice}" twice`);
    const fleetFor = (project: string) => {
      const fleet = sdkChecked(
        settings,
        () => new BridgeFleet({ daemons: daemons.map((d) => ({ ...as(project), ...d })) }),
      );
      made.push(fleet);
      return fleet;
    };
    return { label: `of ${names.join(', ')}`, fleetFor, close: () => closeAll(made) };
  }
  const source = await natsSource(flags, cwd);
  // Each project's fleet reads the one directory; it is closed once, after them.
  const shared: FleetDiscovery = {
    // The directory away is the fleet unavailable (a 503), not a fault of the console.
    daemons: (signal) =>
      source.daemons(signal).catch((err: Error) => {
        throw new UnavailableError('UNAVAILABLE', `the fleet's directory on NATS: ${err.message}`);
      }),
    // Without the directory, the fleet asks each daemon.
    ownerOf: (sessionId, signal) =>
      source.ownerOf?.(sessionId, signal).catch(() => undefined) ?? Promise.resolve(undefined),
  };
  return {
    label: `${flags.fleet} on NATS`,
    fleetFor(project) {
      const fleet = new BridgeFleet({ discovery: { source: shared, client: as(project) } });
      made.push(fleet);
      return fleet;
    },
    close() {
      closeAll(made);
      void source.close?.();
    },
  };
}

function closeAll(fleets: BridgeFleet[]): void {
  for (const f of fleets) f.close();
}

async function natsSource(flags: FleetFlags, cwd: string): Promise<FleetDiscovery> {
  const missing = (['fleet', 'natsCa', 'natsCert', 'natsKey'] as const).filter((k) => !flags[k]);
  if (missing.length > 0) {
    throw new CliError(EXIT.usage, `--nats needs ${missing.map(flagOf).join(', ')} as well`);
  }
  const read = (flag: string, path: string): string => {
    const file = resolve(cwd, path);
    try {
      const mode = flag === '--nats-key' ? openToOthers(file) : undefined;
      if (mode !== undefined) {
        throw new CliError(
          EXIT.file,
          `${flag} ${path} is open to other users (mode ${mode}); a private key must be yours alone: run \`chmod 600 ${shellArg(file)}\``,
        );
      }
      return readFileSync(file, 'utf8');
    } catch (err) {
      if (err instanceof CliError) throw err;
      const why = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
      throw new CliError(EXIT.file, `${flag} ${path}: cannot read it (${why})`);
    }
  };
  const tls = {
    ca: read('--nats-ca', flags.natsCa as string),
    cert: read('--nats-cert', flags.natsCert as string),
    key: read('--nats-key', flags.natsKey as string),
  };
  // Loaded only here: the NATS clients are for fleets on NATS alone.
  const { natsDiscovery } = await import('@agent-bridge/bridgeclient/nats');
  try {
    return await natsDiscovery({ servers: flags.nats, tls, fleet: flags.fleet as string });
  } catch (err) {
    if (err instanceof TypeError) throw new CliError(EXIT.usage, err.message);
    throw new CliError(
      EXIT.unavailable,
      `the fleet's NATS servers (${flags.nats.join(', ')}) did not answer: ${(err as Error).message}`,
    );
  }
}
