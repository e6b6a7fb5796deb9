import type { ToolServer } from '../contract/provider.js';
import { MODEL_OPTION, type OptionSpecs } from '../option-policy.js';

const PERMISSION_MODES = [
  'default',
  'acceptEdits',
  'plan',
  'dontAsk',
  'auto',
  'bypassPermissions',
] as const;

/**
 * The `agent_opts` of the claude adapter. `bypassPermissions` runs every
 * tool without asking, so nothing passes through the bridge's `permissions`
 * answer: config-only. `dontAsk` and `auto` let claude decide alone and are
 * not offered to clients unless the config lists them.
 */
export const CLAUDE_OPTIONS: OptionSpecs = {
  model: MODEL_OPTION,
  permission_mode: {
    syntax: /^[A-Za-z]{1,32}$/,
    describe: `a permission mode (${PERMISSION_MODES.join(', ')})`,
    values: PERMISSION_MODES,
    dangerous: ['bypassPermissions'],
    defaultAllowed: ['default', 'acceptEdits', 'plan'],
  },
  max_budget_usd: {
    syntax: /^(?:0|[1-9]\d{0,5})(?:\.\d{1,4})?$/,
    describe: 'a dollar amount like "2" or "0.50"',
    defaultAllowed: '*',
  },
};

/**
 * argv for one persistent stream-json session: a new conversation named
 * after the bridge's session (`--session-id`), or, after a daemon restart,
 * the one it had (`--resume`: claude refuses a `--session-id` in use).
 * The bridge's tool server, when given, is added with `--mcp-config` and
 * its tools allowed without a prompt (they are the bridge's own, scoped to
 * the session by its capability).
 */
export function claudeArgs(
  conversation: { new: string } | { resume: string },
  options: Readonly<Record<string, string>>,
  tools?: ToolServer,
): string[] {
  const args = [
    '-p',
    '--input-format',
    'stream-json',
    '--output-format',
    'stream-json',
    '--verbose',
    '--include-partial-messages',
    // Permission prompts come to us as control requests instead of being denied silently.
    '--permission-prompt-tool',
    'stdio',
    ...('resume' in conversation
      ? ['--resume', conversation.resume]
      : ['--session-id', conversation.new]),
  ];
  if (options.model) args.push('--model', options.model);
  if (options.permission_mode) args.push('--permission-mode', options.permission_mode);
  if (options.max_budget_usd) args.push('--max-budget-usd', options.max_budget_usd);
  if (tools) {
    const config = {
      mcpServers: { [tools.name]: { type: 'stdio', command: tools.command, args: tools.args } },
    };
    args.push('--mcp-config', JSON.stringify(config), '--allowedTools', `mcp__${tools.name}`);
  }
  return args;
}
