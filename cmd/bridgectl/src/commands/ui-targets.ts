import { BridgeClient } from '@agent-bridge/bridgeclient';
import { CliError, type CommandContext } from '@agent-bridge/cli';
import { asProject, clientOptionsOf, sdkChecked } from '../connection.js';
import type { Settings } from '../connection-settings.js';
import { type ConsoleTarget, daemonTarget, fleetTarget } from '../console/console-target.js';
import type { CtlIo } from '../ctl-io.js';
import { EXIT } from '../exit-codes.js';
import { connectFleet, type FleetFlags, namesFleet } from '../fleet-connection.js';

/** What `bridgectl ui` calls: per project, the daemon or the fleet. */
export interface UiTargets {
  /** "127.0.0.1:9445", or "the fleet of one, two". */
  label: string;
  projects: Map<string, ConsoleTarget>;
  close(): void;
}

/** The fleet flags of `ui`, as given. */
export function fleetFlagsOf(values: CommandContext<CtlIo>['values']): FleetFlags {
  return {
    daemons: (values.daemon as string[] | undefined) ?? [],
    nats: (values.nats as string[] | undefined) ?? [],
    fleet: values.fleet as string | undefined,
    natsCa: values['nats-ca'] as string | undefined,
    natsCert: values['nats-cert'] as string | undefined,
    natsKey: values['nats-key'] as string | undefined,
  };
}

/** A project id as the daemon takes it in a token. */
const PROJECT = /^[A-Za-z0-9._:@/-]{1,128}$/;

/**
 * Refuses a setting the console would ignore: an address given beside a
 * fleet, a project beside `--projects` (a profile's may stay: it is not
 * given for this command).
 */
export function checkIgnored(settings: Settings, fleet: boolean, projects: boolean): void {
  const given = (key: 'address' | 'project') => /^(--|\$)/.test(settings.from[key] ?? '');
  if (fleet && given('address')) {
    throw new CliError(
      EXIT.usage,
      `${settings.from.address} names one daemon: a fleet is its --daemon or --nats`,
    );
  }
  if (projects && given('project')) {
    throw new CliError(
      EXIT.usage,
      `${settings.from.project} and --projects: give the projects once, in --projects`,
    );
  }
}

/** `--projects a,b` (else the settings' project): each once, each a project id. */
export function projectsOf(list: string | undefined, settings: Settings): string[] {
  if (list === undefined) return [settings.values.project as string];
  const ids = list.split(',').map((p) => p.trim());
  const bad = ids.find((p) => !PROJECT.test(p));
  if (bad !== undefined) {
    throw new CliError(
      EXIT.usage,
      `--projects is a list of project ids (1 to 128 of A-Z a-z 0-9 . _ : @ / -) separated by commas, not "${list}"`,
    );
  }
  const twice = ids.find((p, i) => ids.indexOf(p) !== i);
  if (twice !== undefined) throw new CliError(EXIT.usage, `--projects names "${twice}" twice`);
  return ids;
}

/** A client (or fleet) per project, each signing its tokens for that project with the settings' key. */
export async function uiTargets(
  settings: Settings,
  flags: FleetFlags,
  projects: string[],
  cwd: string,
): Promise<UiTargets> {
  const targets = new Map<string, ConsoleTarget>();
  if (namesFleet(flags)) {
    const fleet = await connectFleet(settings, flags, cwd);
    const close = () => fleet.close();
    try {
      for (const p of projects) targets.set(p, fleetTarget(fleet.fleetFor(p), fleet.label));
    } catch (err) {
      close();
      throw err;
    }
    return { label: `the fleet ${fleet.label}`, projects: targets, close };
  }
  const address = settings.values.address as string;
  const clients: BridgeClient[] = [];
  const close = () => {
    for (const c of clients) c.close();
  };
  // The setting files are read once, for every project's client.
  const options = clientOptionsOf(settings);
  try {
    for (const project of projects) {
      const client = sdkChecked(
        settings,
        () => new BridgeClient({ ...asProject(options, project), target: address }),
      );
      clients.push(client);
      targets.set(project, daemonTarget(client, address));
    }
  } catch (err) {
    close();
    throw err;
  }
  return { label: address, projects: targets, close };
}
