import type { Message, Post } from './collab-types.js';

/** A reader's acknowledgement of one post. */
export interface StoredAck {
  projectId: string;
  /** `partyKey` of the reader. */
  reader: string;
  postId: number;
}

/** What a collaboration store gives back at the daemon's start. */
export interface CollabSnapshot {
  /** Oldest first within each project. */
  posts: Post[];
  messages: Message[];
  acks: StoredAck[];
}

/**
 * Where the context bus and the messages are kept, so they outlive the
 * daemon's process: the core holds them in memory and writes each change
 * through, answering only once it is committed. The session store's
 * database provides one (`SessionStore.collab`); the memory store keeps
 * nothing.
 */
export interface CollabStore {
  load(): CollabSnapshot;
  putPost(post: Post): Promise<void>;
  /** A new message, or one whose state changed (read). */
  putMessage(message: Message): Promise<void>;
  putAck(ack: StoredAck): Promise<void>;
  /** Forgets posts (and their acks) of a project: the oldest, past the bound. */
  dropPosts(projectId: string, ids: readonly number[]): void;
  dropMessages(projectId: string, ids: readonly number[]): void;
}

/** A store that keeps nothing beyond the process (tests, `storage.backend: memory`). */
export const memoryCollabStore = (): CollabStore => ({
  load: () => ({ posts: [], messages: [], acks: [] }),
  putPost: async () => {},
  putMessage: async () => {},
  putAck: async () => {},
  dropPosts: () => {},
  dropMessages: () => {},
});
