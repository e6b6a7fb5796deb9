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

/** What providers take from their surroundings, passed in rather than read from globals. */
export interface ProviderHost {
  /** The daemon's environment; children inherit only an allowlist of it. */
  parentEnv: NodeJS.ProcessEnv;
  /** Where per-session homes (`isolate_home`) are created. */
  tempRoot: string;
}

type Factory = (id: string, def: ProviderDefinition, host: ProviderHost) => Provider;

const ADAPTERS: Record<string, Factory> = {
  stdio: (id, def, host) => new StdioProvider({ id, ...def, ...host }),
  mock: (id, def, host) => new MockProvider({ id, ...def, ...host }),
  claude: (id, def, host) => new ClaudeProvider({ id, ...def, ...host }),
  codex: (id, def, host) => new CodexProvider({ id, ...def, ...host }),
  acp: (id, def, host) => new AcpProvider({ id, ...def, ...host }),
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
  host: ProviderHost,
): Map<string, Provider> {
  const out = new Map<string, Provider>();
  for (const [id, def] of Object.entries(defs)) {
    const make = ADAPTERS[def.adapter];
    if (!make) {
      throw new Error(
        `providers.${id}.adapter: unknown adapter "${def.adapter}" (known: ${ADAPTER_NAMES.join(', ')})`,
      );
    }
    out.set(id, make(id, def, host));
  }
  return out;
}
