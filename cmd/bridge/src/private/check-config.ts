import type { BridgeConfig } from '@agent-bridge/config';
import type { ProviderHost } from '@agent-bridge/providers/host';
import { checkStartup } from '../startup-checks.js';
import { load } from './load.js';
import { lines, startupCheckOptions, stateDirOf } from './startup-inputs.js';

/** `bridge check-config`: what `run` would refuse, reported without starting anything. */
export async function checkConfig(file: string, host: ProviderHost): Promise<number> {
  let config: BridgeConfig;
  try {
    config = load(file, host).config;
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    return 2;
  }
  const check = await checkStartup(
    config,
    startupCheckOptions(config, stateDirOf(config, undefined), host),
  );
  if (check.problems.length > 0) {
    process.stderr.write(`${file}: cannot start with it:\n${lines(check.problems)}`);
    return 2;
  }
  process.stdout.write(
    `${file}: ok (listen ${config.server.listen}, ${Object.keys(config.providers).length} providers, ${config.allowedPaths.length} allowed paths)\n`,
  );
  if (check.warnings.length > 0) process.stderr.write(lines(check.warnings));
  return 0;
}
