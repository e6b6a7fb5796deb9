import type { ToolServer } from '../contract/provider.js';
import { MODEL_OPTION, type OptionSpec, type OptionSpecs } from '../option-policy.js';

const SANDBOX_MODES = ['read-only', 'workspace-write', 'danger-full-access'] as const;
const APPROVAL_POLICIES = ['untrusted', 'on-request', 'never'] as const;

/**
 * What a session runs with when neither the config's default_opts nor the
 * client chose: the most restrictive sandbox and the policy that asks before
 * anything but known-safe reads. Widening either is the operator's call.
 */
const CODEX_DEFAULTS = {
  sandbox: 'read-only',
  approval_policy: 'untrusted',
} as const;

/**
 * The `agent_opts` of the codex adapter. `danger-full-access` lifts the
 * sandbox; `never` means codex stops asking, so its commands no longer pass
 * through the bridge's `permissions` answer or show up as approval events:
 * both are config-only.
 */
export const CODEX_OPTIONS: OptionSpecs = {
  model: MODEL_OPTION,
  sandbox: choice('a sandbox mode', SANDBOX_MODES, {
    dangerous: ['danger-full-access'],
    defaultAllowed: ['read-only', 'workspace-write'],
  }),
  approval_policy: choice('an approval policy', APPROVAL_POLICIES, {
    dangerous: ['never'],
    defaultAllowed: ['untrusted', 'on-request'],
  }),
};

/** An option whose value is one of codex's own kebab-case names. */
function choice(
  what: string,
  values: readonly string[],
  policy: Pick<OptionSpec, 'dangerous' | 'defaultAllowed'>,
): OptionSpec {
  return {
    syntax: /^[a-z][a-z-]{0,31}$/,
    describe: `${what} (${values.join(', ')})`,
    values,
    ...policy,
  };
}

/** The `thread/start` parameters for a session's resolved options. */
export function threadStartParams(
  cwd: string,
  options: Readonly<Record<string, string>>,
): Record<string, unknown> {
  const params: Record<string, unknown> = {
    cwd,
    approvalPolicy: options.approval_policy ?? CODEX_DEFAULTS.approval_policy,
    sandbox: options.sandbox ?? CODEX_DEFAULTS.sandbox,
  };
  if (options.model) params.model = options.model;
  return params;
}

/** Above codex's 10 s default: a busy host may need longer to start node. */
const TOOL_SERVER_STARTUP_SEC = 30;

/**
 * The bridge's tool server as codex config overrides (`-c
 * mcp_servers.<name>.…`): TOML values, which JSON strings and arrays of them
 * are. The command line holds no secret (the capability is in a file the
 * server reads). Without `required`, codex 0.171 starts its MCP servers in the
 * background and leaves out of a request the tools of any that is not ready
 * yet, so a first turn often had none of the bridge's tools; `required` makes
 * thread/start wait for it (and fail, saying so, if it cannot start). The
 * bridge's own tools are approved up front, as claude's --allowedTools does:
 * each call is already bound to the session's capability.
 */
export function mcpServerArgs(tools: ToolServer | undefined): string[] {
  if (!tools) return [];
  const key = `mcp_servers.${tools.name}`;
  const settings: Array<[string, unknown]> = [
    ['command', tools.command],
    ['args', tools.args],
    ['required', true],
    ['startup_timeout_sec', TOOL_SERVER_STARTUP_SEC],
    ['default_tools_approval_mode', 'approve'],
  ];
  return settings.flatMap(([name, value]) => ['-c', `${key}.${name}=${JSON.stringify(value)}`]);
}
