import { CliError, type Command, isOutputClosed } from '@agent-bridge/cli';
import { withClient } from '../connection.js';
import type { CtlIo } from '../ctl-io.js';
import { EXIT } from '../exit-codes.js';
import { followEvents } from '../follow-events.js';

export const eventsCommand: Command<CtlIo> = {
  name: 'events',
  summary: "a session's events, rendered for people (or --json lines); --follow to keep reading",
  usage: 'bridgectl events SESSION_ID [--follow [--no-prompt]] [--subscriber ID] [--after SEQ]',
  options: {
    follow: {
      type: 'boolean',
      description: "keep reading until the session ends (else stop at the daemon's newest event)",
    },
    'no-prompt': {
      type: 'boolean',
      description:
        'with --follow at a terminal: show permission requests without asking for answers',
    },
    subscriber: {
      type: 'string',
      value: 'ID',
      description:
        'read as this subscriber: acknowledge, and start after its last acknowledged event',
    },
    after: {
      type: 'string',
      value: 'SEQ',
      description: 'start after this seq (0: from the first)',
    },
  },
  notes: [
    'A broken connection is resumed after the last event shown, without gaps or repeats.',
    'With --json, one event per line: {"seq":…,"type":…,"text":…,"data":…,…}.',
    'With --follow at a terminal, a permission request that waits for an answer is asked about:',
    '[o]nce / [s]ession / [d]eny (the options the agent offers); the answer is sent at once.',
    'Never with --json, --no-prompt or without a terminal: use `bridgectl permissions respond`.',
  ],
  positionals: { min: 1, max: 1 },
  async run(ctx) {
    const id = ctx.positionals[0] as string;
    const after = ctx.values.after as string | undefined;
    if (after !== undefined && !/^\d+$/.test(after)) {
      throw new CliError(EXIT.usage, `events: --after wants a seq (0, 1, 2, …), not "${after}"`);
    }
    const subscriberId = ctx.values.subscriber as string | undefined;
    await withClient(ctx, async (client) => {
      let until: number | undefined;
      if (ctx.values.follow !== true) {
        until = (await client.getSession(id)).lastSeq;
        if (until === 0 || (after !== undefined && Number(after) >= until)) return;
      }
      await followEvents(client, id, ctx.io, {
        json: ctx.json,
        ...(after !== undefined ? { afterSeq: Number(after) } : {}),
        ...(subscriberId !== undefined ? { subscriberId } : {}),
        ...(until !== undefined ? { until: (e) => e.seq >= (until as number) } : {}),
        promptPermissions: until === undefined && !ctx.json && ctx.values['no-prompt'] !== true,
      });
    });
    // Ctrl-C is an interruption; a reader that closed the output (`| head`) had what it wanted.
    const { signal } = ctx.io;
    return signal?.aborted && !isOutputClosed(signal.reason) ? { exitCode: EXIT.interrupted } : {};
  },
};
