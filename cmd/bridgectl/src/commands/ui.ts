import { CliError, type Command } from '@agent-bridge/cli';
import { resolveSettings } from '../connection-settings.js';
import { startConsole } from '../console/console-server.js';
import { ASSETS_DIR, assetsBuilt } from '../console/static-assets.js';
import type { CtlIo } from '../ctl-io.js';
import { EXIT } from '../exit-codes.js';
import { checkFleetFlags, namesFleet } from '../fleet-connection.js';
import { checkIgnored, fleetFlagsOf, projectsOf, uiTargets } from './ui-targets.js';

/** `--listen` as host and port: a loopback host, a port (0: any free one). */
function listenOf(value: string | undefined): { host: string; port: number } {
  if (value === undefined) return { host: '127.0.0.1', port: 0 };
  const m = /^(127\.0\.0\.1|localhost|\[::1\]):(\d{1,5})$/.exec(value);
  const port = Number(m?.[2]);
  if (!m || port > 65_535) {
    throw new CliError(
      EXIT.usage,
      `ui: --listen is a loopback address and port, such as 127.0.0.1:8080, not "${value}"`,
    );
  }
  return { host: m[1] === '[::1]' ? '::1' : (m[1] as string), port };
}

export const uiCommand: Command<CtlIo> = {
  name: 'ui',
  summary: 'the web console on 127.0.0.1: sessions, conversations, approvals, in a browser',
  usage:
    'bridgectl ui [--listen 127.0.0.1:PORT] [--projects ID,ID] [--daemon NAME=HOST:PORT … | --nats URL …]',
  options: {
    listen: {
      type: 'string',
      value: 'HOST:PORT',
      description: 'where the console listens: a loopback address (default 127.0.0.1, a free port)',
    },
    projects: {
      type: 'string',
      value: 'ID,ID',
      description: "the projects it shows, each with its own tokens (default: --project's one)",
    },
    daemon: {
      type: 'string',
      value: 'NAME=HOST:PORT',
      multiple: true,
      description: 'a daemon of a fleet (give one per daemon); instead of --address',
    },
    nats: {
      type: 'string',
      value: 'URL',
      multiple: true,
      description: "a tls:// server of a fleet's NATS cluster: the daemons it lists",
    },
    fleet: {
      type: 'string',
      value: 'NAME',
      description: 'with --nats: the fleet (its fleet.name)',
    },
    'nats-ca': { type: 'string', value: 'FILE', description: "with --nats: the NATS servers' CA" },
    'nats-cert': {
      type: 'string',
      value: 'FILE',
      description: 'with --nats: a client certificate',
    },
    'nats-key': {
      type: 'string',
      value: 'FILE',
      description: "with --nats: that certificate's key",
    },
  },
  notes: [
    'Prints a sign-in link that works once: open it in a browser on this host. The console',
    'calls the daemon with these connection settings; the browser gets a cookie, never them.',
    'It opens no browser by itself, and runs until Ctrl-C (exit 0).',
    'A fleet: each --daemon, or each daemon the fleet on NATS lists, is reached with the',
    'same credentials (certificate, key, JWT key, project); sessions start where there is room.',
    'Several projects (--projects): tokens for each are signed with the same JWT key.',
  ],
  async run(ctx) {
    const listen = listenOf(ctx.values.listen as string | undefined);
    if (!assetsBuilt(ASSETS_DIR)) {
      throw new CliError(EXIT.file, 'ui: the console page is not built: run `npm run build`');
    }
    const flags = fleetFlagsOf(ctx.values);
    checkFleetFlags(flags);
    const list = ctx.values.projects as string | undefined;
    const settings = await resolveSettings(ctx.values, ctx.io, [
      ...(namesFleet(flags) ? (['address'] as const) : []),
      ...(list !== undefined ? (['project'] as const) : []),
    ]);
    checkIgnored(settings, namesFleet(flags), list !== undefined);
    const projects = projectsOf(list, settings);
    const targets = await uiTargets(settings, flags, projects, ctx.io.cwd);
    const running = await startConsole({
      projects: targets.projects,
      assetsDir: ASSETS_DIR,
      ...listen,
      onError: (err) => ctx.io.stderr(`ui: ${(err as Error).message}\n`),
    }).catch((err: Error) => {
      targets.close();
      throw new CliError(EXIT.usage, `ui: ${err.message}`);
    });
    const which = projects.length === 1 ? 'project' : 'projects';
    ctx.io.stdout(`console for ${targets.label}, ${which} ${projects.join(', ')}\n`);
    ctx.io.stdout(`open this link once, in a browser on this host:\n  ${running.signInUrl}\n`);
    const signal = ctx.io.signal;
    if (signal && !signal.aborted) {
      await new Promise<void>((resolve) =>
        signal.addEventListener('abort', () => resolve(), { once: true }),
      );
    }
    try {
      await running.close();
    } finally {
      targets.close();
    }
    return {};
  },
};
