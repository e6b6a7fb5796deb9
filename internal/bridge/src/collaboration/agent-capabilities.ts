import { createHash, randomBytes } from 'node:crypto';
import { denied } from '../errors.js';
import { callTool, type Caller as ToolCaller, toolList } from './agent-tools.js';
import type { CollabOps, SessionsView } from './collab-ports.js';
import { memberParty } from './mailboxes.js';

const digest = (capability: string) => createHash('sha256').update(capability).digest('hex');

/**
 * The capabilities that let a session's agent use its collaboration tools:
 * one random secret per session, issued when its tools are attached and
 * held here only as a hash. A call names no sender: who calls is the
 * session the capability was issued to, and only while that session is
 * live; a stopped session's capability is refused like an unknown one.
 */
export class AgentCapabilities {
  private readonly bySecret = new Map<string, { sessionId: string; projectId: string }>();
  private readonly bySession = new Map<string, string>();

  constructor(
    private readonly collab: CollabOps,
    private readonly sessions: Pick<SessionsView, 'members'>,
  ) {}

  /** A new capability for `sessionId` (replacing any earlier one): give it to its agent's tools only. */
  issue(sessionId: string, projectId: string): string {
    this.revoke(sessionId);
    const capability = randomBytes(32).toString('base64url');
    const hash = digest(capability);
    this.bySecret.set(hash, { sessionId, projectId });
    this.bySession.set(sessionId, hash);
    return capability;
  }

  /** Forgets the capability of `sessionId`, if any. */
  revoke(sessionId: string): void {
    const hash = this.bySession.get(sessionId);
    if (hash === undefined) return;
    this.bySession.delete(sessionId);
    this.bySecret.delete(hash);
  }

  /** The tools, as MCP lists them. */
  list() {
    return toolList();
  }

  /** The tools, for the holder of a live session's capability only. */
  listFor(capability: string) {
    this.holder(capability);
    return toolList();
  }

  /** Calls tool `name` as the session `capability` was issued to. */
  async call(
    capability: string,
    name: string,
    args: unknown,
    signal: AbortSignal,
  ): Promise<unknown> {
    return callTool(this.collab, this.holder(capability), name, args, signal);
  }

  /** Who holds `capability`: its session, while live; otherwise a refusal. */
  private holder(capability: string): ToolCaller {
    const held = this.bySecret.get(digest(capability));
    const member = held
      ? this.sessions.members(held.projectId).find((m) => m.sessionId === held.sessionId)
      : undefined;
    if (!held || !member) {
      if (held) this.revoke(held.sessionId);
      throw denied(
        'the collaboration capability is not valid: unknown, or its session has ended',
        'capability_invalid',
      );
    }
    return { projectId: held.projectId, me: memberParty(member) };
  }
}
