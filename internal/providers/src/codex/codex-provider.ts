import { readFileSync } from 'node:fs';
import type { ProviderCapabilities, SessionSpec } from '../contract/provider.js';
import { TESTED_VERSIONS, type TestedVersions } from '../health/tested-versions.js';
import {
  type DriverContext,
  StructuredProvider,
  type StructuredProviderOptions,
} from '../turns/structured-provider.js';
import { CodexDriver } from './codex-driver.js';
import { CODEX_OPTIONS, mcpServerArgs } from './codex-options.js';
import { probeLoginStatus } from './login-status.js';

/** This package's version, sent to codex as `clientInfo.version`. */
function ownVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    return typeof pkg.version === 'string' ? pkg.version : '0.0.0';
  } catch {
    return '0.0.0';
  }
}

/**
 * The OpenAI Codex CLI through `codex app-server`: one persistent process
 * and one thread per session, turns over JSON-RPC, approvals answered by the
 * provider's `permissions`. See docs/providers/codex.md.
 */
export class CodexProvider extends StructuredProvider {
  readonly capabilities: ProviderCapabilities = {
    structuredEvents: true,
    multiTurn: true,
    interrupt: true,
    permissionRequests: true,
    resume: true,
  };
  private readonly clientVersion = ownVersion();

  constructor(opts: StructuredProviderOptions) {
    super(opts, CODEX_OPTIONS);
  }

  protected protocolArgs(spec: SessionSpec): string[] {
    return ['app-server', ...mcpServerArgs(spec.tools)];
  }

  protected createDriver(ctx: DriverContext) {
    return new CodexDriver(ctx, this.clientVersion);
  }

  protected override probeAuth(
    binaryPath: string,
    env: Record<string, string>,
    deadline: AbortSignal,
  ) {
    return probeLoginStatus(binaryPath, env, {
      isolateHome: this.opts.isolateHome ?? false,
      deadline,
    });
  }

  protected override get testedVersions(): TestedVersions {
    return TESTED_VERSIONS.codex;
  }
}
