import { fileURLToPath } from 'node:url';
import type { ProviderStatus } from './provider.js';
import { type ProcessProviderOptions, StdioProvider } from './stdio-provider.js';

/** Path of the built-in mock agent script shipped with this package. */
export const MOCK_AGENT_PATH = fileURLToPath(new URL('../bin/mock-agent.mjs', import.meta.url));

/**
 * The built-in agent: a real child process (Node running bin/mock-agent.mjs)
 * that answers each input with a few lines containing it. Needs no binary on
 * PATH and no credentials, so a fresh install works end to end.
 */
export class MockProvider extends StdioProvider {
  constructor(opts: Omit<ProcessProviderOptions, 'binary'> & { binary?: string }) {
    // The mock announces itself; waiting for that line makes start-up real.
    super({
      ...opts,
      binary: opts.binary || process.execPath,
      readyPattern: opts.readyPattern || '^mock agent ready',
    });
  }

  protected override async command() {
    return { file: process.execPath, args: [MOCK_AGENT_PATH, ...this.opts.args] };
  }

  protected override async probeHealth(): Promise<ProviderStatus> {
    return {
      available: true,
      error: '',
      binaryPath: MOCK_AGENT_PATH,
      version: `mock (node ${process.version})`,
      authState: 'not_required',
      authDetail: '',
      checkedAt: new Date(),
    };
  }
}
