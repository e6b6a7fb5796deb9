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
): { config: BridgeConfig; providers: Map<string, Provider> } {
  const loaded = loadConfig(file);
  try {
    return { config: loaded.config, providers: createProviders(loaded.config.providers, host) };
  } catch (err) {
    throw err instanceof ProviderConfigError ? loaded.reject(err.problems, { cause: err }) : err;
  }
}
