import { AcpProvider } from './acp/acp-provider.js';
import { ClaudeProvider } from './claude/claude-provider.js';
import { CodexProvider } from './codex/codex-provider.js';
import { MockProvider } from './mock-provider.js';
import type { Provider } from './provider.js';
import { StdioProvider } from './stdio-provider.js';

export interface ProviderDefinition {
  adapter: string;
  binary: string;
  args: string[];
  env: Record<string, string>;
  /** Regex a stdout line must match before the agent counts as started ('' = at spawn). */
  readyPattern?: string;
  turnTimeoutMs?: number;
  emitRaw?: boolean;
  permissions?: 'deny' | 'allow';
  allowedOpts?: Record<string, string[]> | undefined;
  defaultOpts?: Record<string, string>;
  isolateHome?: boolean;
  healthTtlMs?: number;
}

type Factory = (id: string, def: ProviderDefinition, parentEnv: NodeJS.ProcessEnv) => Provider;

const ADAPTERS: Record<string, Factory> = {
  stdio: (id, def, parentEnv) => new StdioProvider({ id, ...def, parentEnv }),
  mock: (id, def, parentEnv) => new MockProvider({ id, ...def, parentEnv }),
  claude: (id, def, parentEnv) => new ClaudeProvider({ id, ...def, parentEnv }),
  codex: (id, def, parentEnv) => new CodexProvider({ id, ...def, parentEnv }),
  acp: (id, def, parentEnv) => new AcpProvider({ id, ...def, parentEnv }),
};

/** Adapter names this build knows. */
export const ADAPTER_NAMES = Object.keys(ADAPTERS);

/**
 * Builds the provider registry from configuration. Throws (with the config
 * path in the message) on an unknown adapter or an option policy the adapter
 * cannot honour.
 */
export function createProviders(
  defs: Record<string, ProviderDefinition>,
  parentEnv: NodeJS.ProcessEnv = process.env,
): Map<string, Provider> {
  const out = new Map<string, Provider>();
  for (const [id, def] of Object.entries(defs)) {
    const make = ADAPTERS[def.adapter];
    if (!make) {
      throw new Error(
        `providers.${id}.adapter: unknown adapter "${def.adapter}" (known: ${ADAPTER_NAMES.join(', ')})`,
      );
    }
    out.set(id, make(id, def, parentEnv));
  }
  return out;
}
