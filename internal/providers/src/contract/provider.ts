import type { VersionCoverage } from '../health/tested-versions.js';
import type { ExitInfo } from './errors.js';
import type { AgentEvent } from './events.js';
import type { OutputGate } from './output-gate.js';
import type { AskPermission } from './permission.js';

/** What an adapter can do; reported by ListProviders. */
export interface ProviderCapabilities {
  structuredEvents: boolean;
  multiTurn: boolean;
  interrupt: boolean;
  permissionRequests: boolean;
  /** Starts an agent on a conversation it had before (SessionSpec.resume). */
  resume: boolean;
}

export type AuthState = 'unknown' | 'authenticated' | 'unauthenticated' | 'not_required';

/**
 * How fresh a provider's health is: `pending` while a probe has not
 * answered yet (the first is running, or was cut short and is retried),
 * `stale` when an earlier answer is shown because its re-check was cut
 * short or is under way (the answer is older than `health_ttl`),
 * `current` otherwise.
 */
export type ProbeState = 'pending' | 'current' | 'stale';

/** A provider's health: what is known now, probes never waited for. */
export interface ProviderStatus {
  /**
   * False only on a definite failure (the binary gone or not executable,
   * `--version` failing or printing no version): StartSession refuses it.
   * True while nothing definite is known, so StartSession tries it.
   */
  available: boolean;
  /** Why not available; empty when available. */
  error: string;
  binaryPath: string;
  version: string;
  authState: AuthState;
  authDetail: string;
  /** When the daemon last looked (at the binary, or at a probe's answer). */
  checkedAt: Date;
  probeState: ProbeState;
  /** When the oldest answer shown was confirmed; absent before any probe answered. */
  confirmedAt?: Date;
  /** What a probe is doing or missed, in words; empty when every answer is current. */
  probeDetail: string;
  /** Where `version` stands against the versions the contract tests cover. */
  versionCoverage: VersionCoverage;
  /** Those versions in words ("2.1.197 to 2.1.332"); empty when the adapter has no range. */
  testedVersions: string;
  /** Something the operator should know that refuses nothing (a version outside the tested range); empty when none. */
  warning: string;
}

/** What the core hands a provider to start one session. */
/**
 * An MCP server (stdio) the agent is to run beside it: the bridge's
 * collaboration tools for this session (`bridge mcp`). Its command line
 * holds no secret; an adapter gives it to its CLI in the CLI's own way.
 */
export interface ToolServer {
  /** The server's name as the agent knows it (claude shows its tools as mcp__<name>__<tool>). */
  name: string;
  command: string;
  args: string[];
  /**
   * The names of its tools. An agent that asks before each MCP tool call (ACP
   * agents) is answered "allow" by the adapter for these, as claude
   * (--allowedTools) and codex (default_tools_approval_mode) are told up
   * front: the bridge's own tools, each call bound to the session's capability.
   */
  tools: readonly string[];
}

export interface SessionSpec {
  projectId: string;
  sessionId: string;
  /**
   * The approved real path of the repository: what protocol parameters
   * (codex thread/start, ACP session/new) and messages carry.
   */
  repoPath: string;
  /**
   * Where to spawn the agent: a path that leads to the approved directory
   * itself however `repoPath` changes meanwhile (the core's pinned
   * directory, e.g. "/proc/self/fd/23"). Valid until the agent is spawned;
   * hand it to the spawner unchanged and never show it to the agent.
   */
  cwd: string;
  /** Client options, already accepted by `validateOptions`. */
  options: Readonly<Record<string, string>>;
  /**
   * Start the agent on this conversation of its own (an earlier agent's
   * `AgentHandle.resumePoint`) instead of a new one: the daemon restarted
   * under it. Only for providers with the `resume` capability; a
   * conversation the agent cannot take up fails the start-up.
   */
  resume?: ResumePoint;
  /** The bridge's collaboration tools, for an adapter that can attach an MCP server. */
  tools?: ToolServer;
  /** Called once the process exists, before any of its output is emitted. */
  spawned(pid: number): void;
  /** Receives every event the agent produces, in order. Must not throw. */
  emit(event: AgentEvent): void;
  /** Closed while the core cannot take more output: hand it to the spawner (SpawnOptions.outputGate). */
  outputGate?: OutputGate;
  /**
   * Puts the agent's request to use a tool to whoever decides for the
   * session (the provider's `permissions` policy, or a client). The answer
   * may take minutes; it always comes.
   */
  askPermission: AskPermission;
  /** Aborted when the start-up must be abandoned (startup timeout, a stop, shutdown): give up and leave no process. */
  signal: AbortSignal;
  /**
   * The session's scope: ends (reason a ScopeEnded) when the session is
   * stopped, its agent exits or the daemon shuts down. Turns live inside it.
   */
  lifetime: AbortSignal;
  /**
   * The clock of the session's `startup_timeout`, running from the call of
   * `start`. A provider that makes the start-up wait its turn (behind
   * another start-up in the same home) stops it before the wait and
   * restarts it when the start-up proper begins: waiting spends none of
   * the session's budget.
   */
  startupClock: StartupClock;
}

interface StartupClock {
  /** Stops the clock: the timeout will not fire until `restart`. */
  stop(): void;
  /** Starts the clock afresh: the whole timeout from now. */
  restart(): void;
}

/** What an agent needs to go on with its conversation in a new process (plain JSON: it is stored). */
export interface ResumePoint {
  /** The agent's own id of it: claude's session id, codex's thread id, ACP's session id. */
  conversationId: string;
  /** The session's own HOME (`isolate_home`), where the agent keeps the conversation. */
  home?: string;
}

/** One running agent. */
export interface AgentHandle {
  readonly pid: number;
  /**
   * Where the agent's conversation can be taken up again, known once
   * started: what `SessionSpec.resume` takes after a daemon restart.
   * Undefined for agents that cannot resume.
   */
  readonly resumePoint?: ResumePoint | undefined;
  /**
   * Delivers one input: writes it, or queues it while a turn runs. Calls
   * `recorded` exactly once, synchronously, as soon as the input is accepted
   * and before any event of the turn it starts, so the caller can record the
   * input first (INPUT_RECEIVED precedes its TURN_STARTED). Throws
   * InputClosedError, without calling `recorded`, when the agent no longer reads.
   */
  send(text: string, recorded: () => void): void;
  /** Cancels the running turn; only for providers with the interrupt capability. */
  interrupt?(): Promise<{ interrupted: boolean; turnId: string }>;
  /**
   * Graceful step, SIGTERM to the group, SIGKILL after the grace period (or
   * at once with force). With `keepConversation` (a daemon going that will
   * resume the agent at its next start) what the agent needs to resume, its
   * isolated home, is kept; else it is removed once the agent exited.
   */
  stop(opts: {
    force: boolean;
    gracePeriodMs: number;
    keepConversation?: boolean;
  }): Promise<ExitInfo>;
  /** Resolves once the process has exited and all its output has been emitted. */
  readonly exited: Promise<ExitInfo>;
}

/**
 * Why a provider refuses a client's `agent_opts`: the key at fault and the
 * rule, without the client's text. The core words the message and shows
 * the client's key or value only redacted and cut short.
 */
export interface OptionRefusal {
  key: string;
  /** Whether the key itself is refused, or its value. */
  refused: 'key' | 'value';
  /**
   * The value does not have the option's syntax (a malformed request,
   * INVALID_ARGUMENT); otherwise the key or value is well-formed but this
   * daemon's policy does not allow it (PERMISSION_DENIED).
   */
  malformed: boolean;
  /** The rule broken, in words: `is not a model name (…)`, `is not accepted by provider "codex" (accepted: model)`. */
  rule: string;
}

/** An agent adapter: spawns one CLI per session and turns its output into events, independent of gRPC. */
export interface Provider {
  readonly id: string;
  readonly capabilities: ProviderCapabilities;
  /** Why `options` is refused, when it holds a key or value this provider does not allow. */
  validateOptions(options: Readonly<Record<string, string>>): OptionRefusal | undefined;
  /** Spawns the agent and completes its start-up handshake. Rejects with SpawnError when it cannot run. */
  start(spec: SessionSpec): Promise<AgentHandle>;
  /**
   * What is known of binary, version and authentication. Answers at once
   * (after a bounded look at the binary); the probes that are due run in
   * the background, never waited for.
   */
  health(): Promise<ProviderStatus>;
  /**
   * Lets go of what a conversation kept for a resume that will not come
   * (its isolated home): a session restored live that is not resumed.
   */
  discard?(point: ResumePoint): Promise<void>;
}
