import type { AgentEvent, ToolServer } from '@agent-bridge/providers';
import type {
  Delivery,
  Directory,
  Member,
  Message,
  MessageDraft,
  Party,
  Post,
  PostDraft,
  PostPage,
  ReadQuery,
} from './collab-types.js';

/** What collaboration needs of the project's sessions. */
export interface SessionsView extends Directory {
  /** Records `ev` on session `sessionId` when it is live; otherwise nothing. */
  record(sessionId: string, ev: AgentEvent): void;
  /**
   * Gives `text` to a running session's agent as input (after the turn it
   * is in); false when it is not running or does not take input.
   */
  deliver(sessionId: string, text: string, key: string): boolean;
  /** Whether session `sessionId` is one of this daemon's (in a fleet, it may be another's). */
  isHere(sessionId: string): boolean;
}

/** The operations of collaboration, as the agents' tools use them (Collaboration has them). */
export interface CollabOps {
  post(projectId: string, from: Party, draft: PostDraft): Promise<Post>;
  read(projectId: string, reader: Party, query: ReadQuery): PostPage;
  ack(projectId: string, reader: Party, ids: readonly number[]): Promise<number>;
  send(projectId: string, from: Party, draft: MessageDraft): Promise<Message[]>;
  reply(
    projectId: string,
    reader: Party,
    id: number,
    content: string,
    deliver?: Delivery,
  ): Promise<Message>;
  inbox(
    projectId: string,
    reader: Party,
    opts: { limit?: number; unreadOnly?: boolean },
  ): Promise<Message[]>;
  waitForMessage(
    projectId: string,
    reader: Party,
    ms: number,
    signal: AbortSignal,
  ): Promise<Message | undefined>;
  who(projectId: string): Member[];
}

/**
 * How a session's agent gets its tools (the daemon's: `bridge mcp` on its
 * tool socket): the MCP server to attach, holding the session's
 * capability, and its clean-up once the session has ended.
 */
export interface ToolServers {
  attach(sessionId: string, capability: string): Omit<ToolServer, 'tools'>;
  detach(sessionId: string): void;
}

/** What a session's launch asks for: its agent's tool server, for as long as `lifetime` lasts. */
export interface ToolAttachment {
  attachTools(
    session: { id: string; projectId: string; provider: string },
    lifetime: AbortSignal,
  ): ToolServer | undefined;
}
