import { fileURLToPath } from 'node:url';
import { ClaudeProvider } from '../claude/claude-provider.js';
import type { ProviderStatus } from '../contract/provider.js';
import type { StructuredProviderOptions } from '../turns/structured-provider.js';

/** Path of the built-in mock agent script shipped with this package. */
export const MOCK_AGENT_PATH = fileURLToPath(new URL('../../bin/mock-agent.mjs', import.meta.url));

/**
 * The built-in agent: a real child process (Node running bin/mock-agent.mjs)
 * that speaks the claude stream-json subset, driven by the claude adapter.
 * Needs no binary on PATH and no credentials, so a fresh install shows
 * structured events (turns, deltas, messages, usage) end to end.
 */
export class MockProvider extends ClaudeProvider {
  constructor(opts: Omit<StructuredProviderOptions, 'binary'> & { binary?: string }) {
    super({ ...opts, binary: opts.binary || process.execPath });
  }

  protected override async command() {
    return { file: process.execPath, prefix: [MOCK_AGENT_PATH] };
  }

  /** The mock keeps no state, so its sessions start side by side. */
  protected override get keepsStateInHome(): boolean {
    return false;
  }

  /** Nothing to probe: the agent is this package's own script, run by the daemon's Node. */
  override async health(): Promise<ProviderStatus> {
    const now = new Date();
    return {
      available: true,
      error: '',
      binaryPath: MOCK_AGENT_PATH,
      version: `mock (node ${process.version})`,
      authState: 'not_required',
      authDetail: '',
      checkedAt: now,
      probeState: 'current',
      confirmedAt: now,
      probeDetail: '',
      versionCoverage: 'unknown',
      testedVersions: '',
      warning: '',
    };
  }
}
