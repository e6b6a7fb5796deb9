import type { ProviderCapabilities, SessionSpec } from '../contract/provider.js';
import type { AuthProbe } from '../health/provider-health.js';
import { TESTED_VERSIONS, type TestedVersions } from '../health/tested-versions.js';
import { MODEL_OPTION, type OptionSpec, type OptionSpecs } from '../option-policy.js';
import {
  type DriverContext,
  StructuredProvider,
  type StructuredProviderOptions,
} from '../turns/structured-provider.js';
import { AcpDriver } from './acp-driver.js';
import { type AcpFlavour, acpFlavour } from './acp-flavour.js';
import { probeGeminiAuth, probeOpencodeAuth } from './auth-probes.js';

/**
 * A session mode the agent advertises (`session/set_mode`). Modes are the
 * agent's own, so there is no closed set; the ones that make the agent
 * approve every tool itself are only for `default_opts`.
 */
const MODE_OPTION: OptionSpec = {
  syntax: /^[A-Za-z][A-Za-z0-9_-]{0,63}$/,
  describe: 'a session mode id (letters, digits, "_", "-")',
  dangerous: ['yolo', 'bypassPermissions', 'full-access'],
  defaultAllowed: ['default', 'plan', 'read-only'],
};

const ACP_OPTION_SPECS: OptionSpecs = { model: MODEL_OPTION, mode: MODE_OPTION };

/** opencode's permission config (merged over its own) that sends every tool use to the client. */
const OPENCODE_ASK_ALL = JSON.stringify({ '*': 'ask' });

/**
 * Agents that speak the Agent Client Protocol v1 over stdio: `opencode acp`,
 * `gemini --acp`, or any other ACP agent. The provider's `args` make the
 * binary speak ACP (the registry fills them in for opencode and gemini).
 */
export class AcpProvider extends StructuredProvider {
  readonly capabilities: ProviderCapabilities = {
    structuredEvents: true,
    multiTurn: true,
    interrupt: true,
    permissionRequests: true,
    resume: true,
  };
  readonly flavour: AcpFlavour;

  constructor(opts: StructuredProviderOptions) {
    super(opts, ACP_OPTION_SPECS);
    this.flavour = acpFlavour(opts.binary, opts.args);
  }

  /** gemini takes its model on the command line (also with --acp); the rest over the protocol. */
  protected protocolArgs(_spec: SessionSpec, options: Readonly<Record<string, string>>): string[] {
    return this.flavour === 'gemini' && options.model ? ['-m', options.model] : [];
  }

  protected override adapterEnv(): Record<string, string> {
    if (this.flavour === 'opencode') {
      // opencode's default permission config allows every tool without
      // asking, which would bypass the bridge's `permissions` answer: make
      // it ask for everything, so each tool use comes to us.
      return { OPENCODE_PERMISSION: OPENCODE_ASK_ALL };
    }
    if (this.flavour !== 'gemini') return {};
    // Without these gemini exits 55 in a directory it has not been told to
    // trust, and re-launches itself as a second node process.
    return { GEMINI_CLI_TRUST_WORKSPACE: 'true', GEMINI_CLI_NO_RELAUNCH: 'true' };
  }

  protected createDriver(ctx: DriverContext) {
    return new AcpDriver(ctx, { modelVia: this.flavour === 'gemini' ? 'argv' : 'protocol' });
  }

  protected override async probeAuth(
    binaryPath: string,
    env: Record<string, string>,
    deadline: AbortSignal,
  ): Promise<AuthProbe> {
    const storedLoginsVisible = !this.opts.isolateHome;
    switch (this.flavour) {
      case 'gemini':
        return probeGeminiAuth(env, { storedLoginsVisible });
      case 'opencode':
        return probeOpencodeAuth(binaryPath, env, { storedLoginsVisible, deadline });
      default:
        // ACP has no free way to ask; an agent's auth failure shows at its first prompt.
        return { state: 'unknown', detail: '' };
    }
  }

  protected override get testedVersions(): TestedVersions | undefined {
    return this.flavour === 'generic' ? undefined : TESTED_VERSIONS[this.flavour];
  }
}
