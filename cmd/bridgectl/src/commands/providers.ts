import type { Command } from '@agent-bridge/cli';
import { withClient } from '../connection.js';
import type { CtlIo } from '../ctl-io.js';
import { probeFreshness } from '../probe-freshness.js';

export const providersCommand: Command<CtlIo> = {
  name: 'providers',
  summary: 'the configured agent providers: availability, version, capabilities, authentication',
  usage: 'bridgectl providers',
  options: {},
  async run(ctx) {
    const providers = await withClient(ctx, (c) => c.listProviders());
    const width = Math.max(0, ...providers.map((p) => p.id.length));
    return {
      text: providers.map((p) => {
        const caps = Object.entries(p.capabilities)
          .filter(([, on]) => on)
          .map(([name]) => name)
          .join(',');
        const state = p.available ? 'available' : `unavailable (${p.error})`;
        const tested = p.testedVersions ? ` (tested ${p.testedVersions})` : '';
        const line = `${p.id.padEnd(width)}  ${state}  ${p.version || '-'}${tested}  auth ${p.authState.toLowerCase()}  [${caps}]${probeFreshness(p)}`;
        return p.warning ? `${line}\n${' '.repeat(width)}  warning: ${p.warning}` : line;
      }),
      json: providers,
    };
  },
};
