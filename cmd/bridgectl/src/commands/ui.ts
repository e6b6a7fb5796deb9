import { CliError, type Command } from '@agent-bridge/cli';
import { connect } from '../connection.js';
import { resolveSettings } from '../connection-settings.js';
import { startConsole } from '../console/console-server.js';
import { ASSETS_DIR, assetsBuilt } from '../console/static-assets.js';
import type { CtlIo } from '../ctl-io.js';
import { EXIT } from '../exit-codes.js';

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
  usage: 'bridgectl ui [--listen 127.0.0.1:PORT]',
  options: {
    listen: {
      type: 'string',
      value: 'HOST:PORT',
      description: 'where the console listens: a loopback address (default 127.0.0.1, a free port)',
    },
  },
  notes: [
    'Prints a sign-in link that works once: open it in a browser on this host. The console',
    'calls the daemon with these connection settings; the browser gets a cookie, never them.',
    'It opens no browser by itself, and runs until Ctrl-C (exit 0).',
  ],
  async run(ctx) {
    const listen = listenOf(ctx.values.listen as string | undefined);
    if (!assetsBuilt(ASSETS_DIR)) {
      throw new CliError(EXIT.file, 'ui: the console page is not built: run `npm run build`');
    }
    const settings = await resolveSettings(ctx.values, ctx.io);
    const client = connect(settings);
    const running = await startConsole({
      client,
      target: settings.values.address as string,
      projectId: settings.values.project as string,
      assetsDir: ASSETS_DIR,
      ...listen,
      onError: (err) => ctx.io.stderr(`ui: ${(err as Error).message}\n`),
    }).catch((err: Error) => {
      client.close();
      throw new CliError(EXIT.usage, `ui: ${err.message}`);
    });
    ctx.io.stdout(`console for ${settings.values.address}, project ${settings.values.project}\n`);
    ctx.io.stdout(`open this link once, in a browser on this host:\n  ${running.signInUrl}\n`);
    const signal = ctx.io.signal;
    if (signal && !signal.aborted) {
      await new Promise<void>((resolve) =>
        signal.addEventListener('abort', () => resolve(), { once: true }),
      );
    }
    await running.close();
    client.close();
    return {};
  },
};
