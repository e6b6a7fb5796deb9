import type { TaskPermissions, TaskReport, TaskStatus } from '@agent-bridge/bridgeclient';
import { CliError, type Command } from '@agent-bridge/cli';
import { withClient } from '../connection.js';
import type { CtlIo } from '../ctl-io.js';
import { EXIT } from '../exit-codes.js';
import { rendererFor } from '../follow-events.js';
import { createSpinner } from '../spinner.js';
import { agentOpts, labels, SESSION_OPTIONS } from './session-options.js';

const EXIT_OF: Record<TaskStatus, number> = {
  COMPLETED: EXIT.ok,
  SKIPPED: EXIT.taskSkipped,
  HALTED: EXIT.taskHalted,
  ABORTED: EXIT.interrupted,
};

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** "90", "90s", "1500ms", "5m", "1h" as milliseconds; a bare number is seconds. */
function durationMs(text: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text);
  const ms = m ? Number(m[1]) * (UNITS[m[2] ?? 's'] as number) : Number.NaN;
  if (!(ms > 0)) {
    throw new CliError(
      EXIT.usage,
      `run: --timeout wants a duration (90s, 5m, 1500ms), not "${text}"`,
    );
  }
  return ms;
}

/**
 * The answers of --allow-tool and --deny-tools: listed tools (or every
 * tool, for "*") allowed once, the others denied with --deny-tools, else
 * left to the daemon (another client, or its timeout and default).
 */
function permissionsFrom(allow: string[], denyOthers: boolean): TaskPermissions | undefined {
  if (allow.length === 0 && !denyOthers) return undefined;
  const allowed = (tool: string) => allow.includes('*') || allow.includes(tool);
  return (r) => (allowed(r.tool) ? 'allow_once' : denyOthers ? 'deny' : undefined);
}

/** The report for --json: every field present, absent values as null. */
const reportJson = (r: TaskReport) => ({
  ...r,
  daemon: r.daemon ?? null,
  usage: r.usage ?? null,
  costUsd: r.costUsd ?? null,
});

const num = (v: unknown) => (typeof v === 'number' ? v : undefined);

/** The report for people: a status line, then what the task used and why it ended. */
function reportLines(r: TaskReport): string[] {
  const head = [`task ${r.status}`, `${(r.durationMs / 1000).toFixed(1)}s`];
  if (r.sessionId) head.push(`session ${r.sessionId}`);
  if (r.lastSeq > 0) head.push(`events ${r.firstSeq}-${r.lastSeq}`);
  const lines = [head.join(' · ')];
  if (r.toolCalls.length > 0) {
    const calls = r.toolCalls.map(
      (c) => `${c.name}${c.permission ? ` (${c.permission})` : ''}${c.isError ? ' failed' : ''}`,
    );
    lines.push(`  tools  ${calls.join(', ')}`);
  }
  const usage = r.usage ?? {};
  const [input, output] = [num(usage.input_tokens), num(usage.output_tokens)];
  const used: string[] = [];
  if (input !== undefined || output !== undefined) {
    used.push(`${input ?? 0} in / ${output ?? 0} out tokens`);
  }
  if (r.costUsd !== undefined) used.push(`$${r.costUsd.toFixed(4)}`);
  if (used.length > 0) lines.push(`  usage  ${used.join(' · ')}`);
  if (r.error) lines.push(`  why    ${r.error}`);
  return lines;
}

export const runCommand: Command<CtlIo> = {
  name: 'run',
  summary: 'run one task: a prompt in a fresh session, streamed, then a report; exit by its status',
  usage:
    'bridgectl run --provider ID [--repo PATH] [--name NAME] [--role ROLE] [--timeout D] [--allow-tool NAME]... [--deny-tools] [--opt KEY=VALUE]... PROMPT',
  options: {
    ...SESSION_OPTIONS,
    timeout: {
      type: 'string',
      value: 'D',
      description: 'halt the task after this long: 90s, 5m, 1500ms (default: no limit)',
    },
    'allow-tool': {
      type: 'string',
      value: 'NAME',
      multiple: true,
      description: 'allow this tool once when the agent asks ("*": every tool)',
    },
    'deny-tools': {
      type: 'boolean',
      description: 'deny every other tool the agent asks for, at once',
    },
  },
  notes: [
    'Pre-flight first: a provider the daemon lacks, has unavailable or unauthenticated is',
    'SKIPPED at once, and nothing starts. The session is stopped at the end, whatever happened.',
    'Tool permissions matter only for providers with `permissions: ask`; without --allow-tool',
    "or --deny-tools their requests wait for another client or the daemon's timeout and default.",
    `Exit: 0 COMPLETED, ${EXIT.taskSkipped} SKIPPED, ${EXIT.taskHalted} HALTED, ${EXIT.interrupted} ABORTED (Ctrl-C).`,
    'With --json, only the report: {"status":…,"summary":…,"sessionId":…,"toolCalls":[…],…}.',
  ],
  positionals: { min: 1, max: 1 },
  async run(ctx) {
    const provider = ctx.values.provider as string;
    const timeout = ctx.values.timeout as string | undefined;
    const timeoutMs = timeout === undefined ? undefined : durationMs(timeout);
    const permissions = permissionsFrom(
      (ctx.values['allow-tool'] as string[] | undefined) ?? [],
      ctx.values['deny-tools'] === true,
    );
    const renderer = ctx.json ? undefined : rendererFor(ctx.io);
    const spinner = createSpinner(ctx.io.stderr, ctx.io.stderrIsTty && !ctx.json);
    spinner.start(`running a ${provider} task…`);
    let report: TaskReport;
    try {
      report = await withClient(ctx, (client) =>
        client.runTask({
          provider,
          repoPath: ctx.path((ctx.values.repo as string | undefined) ?? '.'),
          prompt: ctx.positionals[0] as string,
          agentOpts: agentOpts((ctx.values.opt as string[] | undefined) ?? [], 'run'),
          ...labels(ctx.values),
          ...(timeoutMs !== undefined ? { timeoutMs } : {}),
          ...(permissions ? { permissions } : {}),
          ...(ctx.io.signal ? { signal: ctx.io.signal } : {}),
          onEvent: (e) => {
            spinner.stop();
            renderer?.render(e);
          },
        }),
      );
    } finally {
      spinner.stop();
      renderer?.endLine();
    }
    const exitCode = EXIT_OF[report.status];
    if (ctx.json) return { json: reportJson(report), exitCode };
    ctx.io.stdout(`${reportLines(report).join('\n')}\n`);
    return { exitCode };
  },
};
