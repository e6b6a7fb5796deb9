import { CliError, type OptionSpec } from '@agent-bridge/cli';
import { EXIT } from '../exit-codes.js';

/** The options of every command that starts a session: which provider, where, with what. */
export const SESSION_OPTIONS: Record<'provider' | 'repo' | 'opt' | 'name' | 'role', OptionSpec> = {
  provider: {
    type: 'string',
    value: 'ID',
    description: 'the provider, e.g. mock or claude',
    required: true,
  },
  repo: {
    type: 'string',
    value: 'PATH',
    description: "the repository, a path on the daemon's host (default: the working directory)",
  },
  opt: {
    type: 'string',
    value: 'KEY=VALUE',
    multiple: true,
    description: "a provider option from the daemon's allowlist, e.g. model=…",
  },
  name: {
    type: 'string',
    value: 'NAME',
    description: "the session's name in its project (unique among live sessions)",
  },
  role: {
    type: 'string',
    value: 'ROLE',
    description: 'what the session does, e.g. reviewer',
  },
};

/** --name and --role as the start request's fields (absent when not given). */
export function labels(values: Record<string, unknown>): { name?: string; role?: string } {
  return {
    ...(typeof values.name === 'string' ? { name: values.name } : {}),
    ...(typeof values.role === 'string' ? { role: values.role } : {}),
  };
}

/** KEY=VALUE options of --opt, as the provider's agentOpts; `command` names the command in errors. */
export function agentOpts(list: string[], command = 'sessions start'): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of list) {
    const eq = item.indexOf('=');
    if (eq <= 0) throw new CliError(EXIT.usage, `${command}: --opt wants KEY=VALUE, not "${item}"`);
    out[item.slice(0, eq)] = item.slice(eq + 1);
  }
  return out;
}
