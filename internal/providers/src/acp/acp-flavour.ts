import { basename } from 'node:path';

/** Which ACP agent a provider runs; decides argv, env defaults and the auth probe. */
export type AcpFlavour = 'opencode' | 'gemini' | 'generic';

/**
 * Tells the flavour from the binary's name ("opencode", "/usr/bin/gemini",
 * a wrapper such as "fake-gemini.mjs"), else from the arguments that make it
 * speak ACP (`acp` is opencode's subcommand, `--acp` gemini's flag). The
 * agent's own `agentInfo` comes too late: argv and env are decided before
 * the process exists.
 */
export function acpFlavour(binary: string, args: readonly string[]): AcpFlavour {
  const name = basename(binary).toLowerCase();
  if (name.includes('gemini')) return 'gemini';
  if (name.includes('opencode')) return 'opencode';
  if (args.includes('--acp') || args.includes('--experimental-acp')) return 'gemini';
  if (args[0] === 'acp') return 'opencode';
  return 'generic';
}
