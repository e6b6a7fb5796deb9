import { basename } from 'node:path';
import { AcpProvider } from './acp/acp-provider.js';
import type { AgentSettings } from './agent-settings.js';
import { ClaudeProvider } from './claude/claude-provider.js';
import { CodexProvider } from './codex/codex-provider.js';
import type { Provider } from './contract/provider.js';
import { createProbeHost, type ProbeHost } from './health/health-monitor.js';
import { MockProvider } from './mock/mock-provider.js';
import { StartupGate } from './process/startup-gate.js';
import type { Spawner } from './process/supervised-process.js';
import { StdioProvider } from './stdio/stdio-provider.js';

/**
 * One provider as configured. `adapter`, `binary` and `args` may be left
 * out: the registry fills them in from the provider id (see createProviders).
 */
export interface ProviderDefinition extends AgentSettings {
  adapter?: string | undefined;
  binary?: string | undefined;
  args?: string[] | undefined;
  /** Regex a stdout line must match before the agent counts as started ('' = at spawn). */
  readyPattern?: string;
}

/** What providers take from their surroundings, passed in rather than read from globals. */
export interface ProviderHost {
  /** The daemon's environment; children inherit only an allowlist of it. */
  parentEnv: NodeJS.ProcessEnv;
  /** Where per-session homes (`isolate_home`) are created. */
  tempRoot: string;
  /** Starts agent processes (SupervisedProcess.spawn). */
  spawn: Spawner;
  /** Aborted when the daemon stops: background health probes are killed and not retried. */
  lifetime: AbortSignal;
}

type Resolved = ProviderDefinition & { adapter: string; binary: string; args: string[] };
/** What every provider built together shares. */
type Shared = ProviderHost & { startupGate: StartupGate; probes: ProbeHost };
type Factory = (id: string, def: Resolved, shared: Shared) => Provider;

const ADAPTERS = new Map<string, Factory>([
  ['stdio', (id, def, shared) => new StdioProvider({ id, ...def, ...shared })],
  ['mock', (id, def, shared) => new MockProvider({ id, ...def, ...shared })],
  ['claude', (id, def, shared) => new ClaudeProvider({ id, ...def, ...shared })],
  ['codex', (id, def, shared) => new CodexProvider({ id, ...def, ...shared })],
  ['acp', (id, def, shared) => new AcpProvider({ id, ...def, ...shared })],
]);

/** Adapter names this build knows, as `providers.<id>.adapter` takes them. */
const ADAPTER_NAMES: readonly string[] = [...ADAPTERS.keys()];

/**
 * The adapter a provider gets when its config names none, by provider id, so
 * `claude: {}` just works. Any other id runs a line-oriented stdio agent.
 */
const ADAPTER_BY_ID = new Map([
  ['mock', 'mock'],
  ['claude', 'claude'],
  ['codex', 'codex'],
  ['opencode', 'acp'],
  ['gemini', 'acp'],
]);

/** Agent CLIs the registry can drive from the provider id alone (the mock needs no CLI). */
export const KNOWN_AGENT_IDS: readonly string[] = [...ADAPTER_BY_ID]
  .filter(([, adapter]) => adapter !== 'mock')
  .map(([id]) => id);

/**
 * The arguments that make a known binary speak ACP: an acp provider without
 * `args` gets these, so `opencode: {}` runs `opencode acp`.
 */
const ACP_ARGS_BY_BINARY = new Map([
  ['opencode', ['acp']],
  ['gemini', ['--acp']],
]);

/**
 * The configuration names something this build cannot provide. Each problem
 * carries its config key path, so the caller can point at the line.
 */
export class ProviderConfigError extends Error {
  constructor(readonly problems: readonly { path: string; message: string }[]) {
    super(problems.map((p) => `${p.path}: ${p.message}`).join('\n'));
    this.name = 'ProviderConfigError';
  }
}

/**
 * A definition with what its config left out filled in: the adapter (by
 * provider id), the binary (the provider id; none for the mock, which runs
 * its built-in agent) and, for ACP agents, the arguments that make a known
 * binary speak ACP. The adapter name is not checked here.
 */
export function resolveProviderDefinition(id: string, def: ProviderDefinition): Resolved {
  const adapter = def.adapter ?? ADAPTER_BY_ID.get(id) ?? 'stdio';
  const binary = def.binary ?? (adapter === 'mock' ? '' : id);
  const acpArgs = adapter === 'acp' ? ACP_ARGS_BY_BINARY.get(basename(binary)) : undefined;
  return { ...def, adapter, binary, args: [...(def.args ?? acpArgs ?? [])] };
}

/**
 * Builds the provider registry from configuration, with the defaults of
 * resolveProviderDefinition. Throws ProviderConfigError listing every unknown
 * adapter; an option policy an adapter cannot honour throws from the adapter.
 */
export function createProviders(
  defs: Record<string, ProviderDefinition>,
  host: ProviderHost,
): Map<string, Provider> {
  const resolved = Object.entries(defs).map(
    ([id, def]) => [id, resolveProviderDefinition(id, def)] as const,
  );
  // Every unknown adapter is reported before any adapter is built, so an
  // adapter's own refusal (thrown from its constructor) cannot hide them.
  const problems = resolved
    .filter(([, def]) => !ADAPTERS.has(def.adapter))
    .map(([id, def]) => ({
      path: `providers.${id}.adapter`,
      message: `unknown adapter "${def.adapter}" (known: ${ADAPTER_NAMES.join(', ')})`,
    }));
  if (problems.length > 0) throw new ProviderConfigError(problems);
  // Probes of every provider share the slots, and each binary's --version answer.
  const shared: Shared = {
    ...host,
    startupGate: new StartupGate(),
    probes: createProbeHost(host.lifetime),
  };
  const out = new Map<string, Provider>();
  for (const [id, def] of resolved) out.set(id, ADAPTERS.get(def.adapter)!(id, def, shared));
  return out;
}
