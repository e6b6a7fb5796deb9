import { type BridgeConfig, loadConfig } from '@agent-bridge/config';
import type { Provider } from '@agent-bridge/providers';
import {
  createProviders,
  ProviderConfigError,
  type ProviderHost,
} from '@agent-bridge/providers/host';

/**
 * Loads the config and builds its providers: the one place both are
 * validated, so `check-config` rejects exactly what `run` would. A problem
 * the provider registry finds (an unknown adapter) is reported like the
 * loader's own, with its line.
 */
export function load(
  file: string,
  host: ProviderHost,
  /** Where the sessions' isolated homes go for this config, when not under `host.tempRoot`. */
  homesRoot: (config: BridgeConfig) => string | undefined = () => undefined,
): { config: BridgeConfig; providers: Map<string, Provider> } {
  const loaded = loadConfig(file);
  const { config } = loaded;
  const tempRoot = homesRoot(config) ?? host.tempRoot;
  try {
    return { config, providers: createProviders(config.providers, { ...host, tempRoot }) };
  } catch (err) {
    throw err instanceof ProviderConfigError ? loaded.reject(err.problems, { cause: err }) : err;
  }
}
