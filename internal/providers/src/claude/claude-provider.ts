import type { ProviderCapabilities, SessionSpec } from '../contract/provider.js';
import { TESTED_VERSIONS, type TestedVersions } from '../health/tested-versions.js';
import {
  type DriverContext,
  StructuredProvider,
  type StructuredProviderOptions,
} from '../turns/structured-provider.js';
import { probeAuthStatus } from './auth-status.js';
import { CLAUDE_OPTIONS, claudeArgs } from './claude-options.js';
import { StreamJsonDriver } from './stream-json-driver.js';

/**
 * Claude Code through `claude -p` with stream-json on both pipes: one
 * persistent process per session (its `--session-id` is the bridge's
 * session id, `--resume`d after a daemon restart), turns as user lines, control requests for initialize,
 * interrupt and permission prompts. See docs/providers/claude.md.
 */
export class ClaudeProvider extends StructuredProvider {
  readonly capabilities: ProviderCapabilities = {
    structuredEvents: true,
    multiTurn: true,
    interrupt: true,
    permissionRequests: true,
    resume: true,
  };

  constructor(opts: StructuredProviderOptions) {
    super(opts, CLAUDE_OPTIONS);
  }

  protected protocolArgs(spec: SessionSpec, options: Readonly<Record<string, string>>): string[] {
    return claudeArgs(
      spec.resume ? { resume: spec.resume.conversationId } : { new: spec.sessionId },
      options,
      spec.tools,
    );
  }

  protected createDriver(ctx: DriverContext) {
    return new StreamJsonDriver(ctx);
  }

  /** Without a cap claude retries a failing API for minutes (10 attempts, backoff to ~40 s). */
  protected override adapterEnv(): Record<string, string> {
    return { CLAUDE_CODE_MAX_RETRIES: '2', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' };
  }

  protected override probeAuth(
    binaryPath: string,
    env: Record<string, string>,
    deadline: AbortSignal,
  ) {
    return probeAuthStatus(binaryPath, env, deadline);
  }

  protected override get testedVersions(): TestedVersions {
    return TESTED_VERSIONS.claude;
  }
}
