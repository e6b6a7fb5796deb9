import type { Command } from '@agent-bridge/cli';
import { withClient } from '../connection.js';
import type { CtlIo } from '../ctl-io.js';
import { probeFreshness } from '../probe-freshness.js';

export const healthCommand: Command<CtlIo> = {
  name: 'health',
  summary: "the daemon's status, version, session counts and providers",
  usage: 'bridgectl health',
  options: {},
  async run(ctx) {
    const h = await withClient(ctx, (c) => c.health());
    const width = Math.max(0, ...h.providers.map((p) => p.provider.length));
    return {
      exitCode: h.status === 'serving' ? 0 : 1,
      text: [
        `${h.status}  version ${h.version}  instance ${h.serverInstanceId}${h.startedAt ? `  since ${h.startedAt.toISOString()}` : ''}`,
        `history ${h.historyId || '(not reported: sessions end with this instance)'}`,
        `sessions: ${h.activeSessions} active of ${h.sessionLimit}, ${h.retainedSessions} retained; this project ${h.projectActiveSessions} of ${h.projectSessionLimit}, room for ${h.freeCapacity} more`,
        'providers:',
        ...h.providers.map(
          (p) =>
            `  ${p.provider.padEnd(width)}  ${p.available ? 'available' : `unavailable: ${p.error}`}${probeFreshness(p)}${p.warning ? `\n  ${' '.repeat(width)}  warning: ${p.warning}` : ''}`,
        ),
      ],
      json: h,
    };
  },
};
