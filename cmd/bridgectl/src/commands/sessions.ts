import type { SessionInfo, SessionStatus } from '@agent-bridge/bridgeclient';
import type { Command } from '@agent-bridge/cli';
import { withClient } from '../connection.js';
import type { CtlIo } from '../ctl-io.js';
import { EXIT } from '../exit-codes.js';
import { createSpinner } from '../spinner.js';
import { agentOpts, labels, SESSION_OPTIONS } from './session-options.js';

const STATUSES: readonly SessionStatus[] = ['STARTING', 'RUNNING', 'STOPPING', 'STOPPED', 'FAILED'];

const ID = { min: 1, max: 1 };

function describe(s: SessionInfo): string[] {
  const exit =
    s.exitCode !== undefined ? `exit ${s.exitCode}` : s.exitSignal ? `signal ${s.exitSignal}` : '';
  return [
    `session   ${s.sessionId}`,
    ...(s.name || s.role ? [`name      ${s.name || '-'}${s.role ? ` (role ${s.role})` : ''}`] : []),
    `status    ${s.status}${s.error ? `: ${s.error}` : ''}${exit ? ` (${exit})` : ''}`,
    `provider  ${s.provider}${s.pid ? `, pid ${s.pid}` : ''}`,
    `repo      ${s.repoPath}`,
    `created   ${s.createdAt.toISOString()}${s.stoppedAt ? `, stopped ${s.stoppedAt.toISOString()}` : ''}`,
    `events    ${s.oldestSeq}-${s.lastSeq} held, ${s.subscriberCount} readers`,
  ];
}

export const sessionsStartCommand: Command<CtlIo> = {
  name: 'sessions start',
  summary: 'start an agent session in a repository on the daemon host',
  usage:
    'bridgectl sessions start --provider ID [--repo PATH] [--session-id UUID] [--name NAME] [--role ROLE] [--opt KEY=VALUE]...',
  options: {
    ...SESSION_OPTIONS,
    'session-id': {
      type: 'string',
      value: 'UUID',
      description: 'the session id (default: generated)',
    },
  },
  async run(ctx) {
    const provider = ctx.values.provider as string;
    const spinner = createSpinner(ctx.io.stderr, ctx.io.stderrIsTty && !ctx.json);
    spinner.start(`starting a ${provider} session…`);
    try {
      return await withClient(ctx, async (client) => {
        const started = await client.startSession({
          provider,
          repoPath: ctx.path((ctx.values.repo as string | undefined) ?? '.'),
          ...(ctx.values['session-id'] ? { sessionId: ctx.values['session-id'] as string } : {}),
          agentOpts: agentOpts((ctx.values.opt as string[] | undefined) ?? []),
          ...labels(ctx.values),
        });
        if (started.status === 'FAILED') {
          const info = await client.getSession(started.sessionId);
          return {
            exitCode: EXIT.failed,
            text: [`session ${started.sessionId} failed to start: ${info.error}`],
            json: { ...started, error: info.error },
          };
        }
        return { text: [started.sessionId], json: started };
      });
    } finally {
      spinner.stop();
    }
  },
};

export const sessionsListCommand: Command<CtlIo> = {
  name: 'sessions list',
  summary: "this project's sessions, newest first",
  usage: 'bridgectl sessions list [--status STATUS]...',
  options: {
    status: {
      type: 'string',
      value: 'STATUS',
      multiple: true,
      description: `only sessions in this status (${STATUSES.join(', ')}; any case)`,
      choices: STATUSES,
    },
  },
  async run(ctx) {
    // The command layer matched each --status to STATUSES, in any case.
    const statuses = (ctx.values.status as SessionStatus[] | undefined) ?? [];
    const sessions = await withClient(ctx, async (client) => {
      const all: SessionInfo[] = [];
      for await (const s of client.sessions({ statuses })) all.push(s);
      return all;
    });
    return {
      text: sessions.length
        ? sessions.map(
            (s) =>
              `${s.sessionId}  ${s.status.padEnd(8)}  ${s.provider}  ${s.createdAt.toISOString()}  ${s.repoPath}${s.name ? `  ${s.name}` : ''}${s.role ? ` (${s.role})` : ''}`,
          )
        : ['no sessions'],
      json: sessions,
    };
  },
};

export const sessionsGetCommand: Command<CtlIo> = {
  name: 'sessions get',
  summary: "a session's status, process, repository and event range",
  usage: 'bridgectl sessions get SESSION_ID',
  options: {},
  positionals: ID,
  async run(ctx) {
    const info = await withClient(ctx, (c) => c.getSession(ctx.positionals[0] as string));
    return { text: describe(info), json: info };
  },
};

export const sessionsStopCommand: Command<CtlIo> = {
  name: 'sessions stop',
  summary: 'stop a session (gracefully unless --force)',
  usage: 'bridgectl sessions stop SESSION_ID [--force]',
  options: { force: { type: 'boolean', description: 'kill the agent at once (SIGKILL)' } },
  positionals: ID,
  async run(ctx) {
    const id = ctx.positionals[0] as string;
    const status = await withClient(ctx, (c) =>
      c.stopSession(id, { force: ctx.values.force === true }),
    );
    return { text: [`${id} ${status}`], json: { sessionId: id, status } };
  },
};

export const sessionsSendCommand: Command<CtlIo> = {
  name: 'sessions send',
  summary: 'send input to a session (a user message: one turn)',
  usage: 'bridgectl sessions send SESSION_ID TEXT [--idempotency-key KEY]',
  options: {
    'idempotency-key': {
      type: 'string',
      value: 'KEY',
      description: 'resend with the same key to be sure the input is written once',
    },
  },
  notes: ['Quote TEXT as one argument. The output is the seq of the INPUT_RECEIVED event.'],
  positionals: { min: 2, max: 2 },
  async run(ctx) {
    const [id, text] = ctx.positionals as [string, string];
    const key = ctx.values['idempotency-key'] as string | undefined;
    const sent = await withClient(ctx, (c) =>
      c.sendInput(id, text, key === undefined ? {} : { idempotencyKey: key }),
    );
    return { text: [`sent: seq ${sent.seq}`], json: sent };
  },
};

export const sessionsInterruptCommand: Command<CtlIo> = {
  name: 'sessions interrupt',
  summary: "cancel a session's running turn; the session stays alive",
  usage: 'bridgectl sessions interrupt SESSION_ID',
  options: {},
  positionals: ID,
  async run(ctx) {
    const r = await withClient(ctx, (c) => c.interruptTurn(ctx.positionals[0] as string));
    const text = r.interrupted
      ? `interrupted turn ${r.turnId}`
      : r.turnId
        ? `turn ${r.turnId} ended before the interrupt`
        : 'no turn was running';
    return { text: [text], json: r };
  },
};
