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

/**
 * The bridge's tool server as codex config overrides (`-c
 * mcp_servers.<name>.command=…`, `.args=[…]`): TOML values, which JSON
 * strings and arrays of them are. The command line holds no secret (the
 * capability is in a file the server reads).
 */
export function mcpServerArgs(tools: ToolServer | undefined): string[] {
  if (!tools) return [];
  const key = `mcp_servers.${tools.name}`;
  return [
    '-c',
    `${key}.command=${JSON.stringify(tools.command)}`,
    '-c',
    `${key}.args=${JSON.stringify(tools.args)}`,
  ];
}
