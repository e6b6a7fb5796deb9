import type { CollabSnapshot, CollabStore, Message, Post, StoredAck } from '@agent-bridge/bridge';
import type { Database, RootDatabase } from 'lmdb';

type Keyed = [string, number];
type AckKey = [string, number, string];

/**
 * The context bus and messages in the session store's LMDB environment:
 * posts and messages keyed [project, id], acks [project, post id, reader].
 * Each write resolves once committed (the same commits as the events).
 */
export class LmdbCollab implements CollabStore {
  private readonly posts: Database<Post, Keyed>;
  private readonly messages: Database<Message, Keyed>;
  private readonly acks: Database<true, AckKey>;

  constructor(root: RootDatabase) {
    this.posts = root.openDB({ name: 'collab-posts' });
    this.messages = root.openDB({ name: 'collab-messages' });
    this.acks = root.openDB({ name: 'collab-acks' });
  }

  /** Its databases, for the store's size. */
  get databases(): Pick<Database, 'getStats'>[] {
    return [this.posts, this.messages, this.acks];
  }

  load(): CollabSnapshot {
    return {
      posts: [...this.posts.getRange()].map(({ value }) => value),
      messages: [...this.messages.getRange()].map(({ value }) => value),
      acks: [...this.acks.getKeys()].map(
        ([projectId, postId, reader]): StoredAck => ({ projectId, reader, postId }),
      ),
    };
  }

  async putPost(post: Post): Promise<void> {
    await this.posts.put([post.projectId, post.id], post);
  }

  async putMessage(message: Message): Promise<void> {
    await this.messages.put([message.projectId, message.id], message);
  }

  async putAck(a: StoredAck): Promise<void> {
    await this.acks.put([a.projectId, a.postId, a.reader], true);
  }

  dropPosts(projectId: string, ids: readonly number[]): void {
    for (const id of ids) {
      quiet(this.posts.remove([projectId, id]));
      const acks = { start: [projectId, id, ''], end: [projectId, id, '\uffff'] } as const;
      for (const key of this.acks.getKeys(acks as { start: AckKey; end: AckKey })) {
        quiet(this.acks.remove(key));
      }
    }
  }

  dropMessages(projectId: string, ids: readonly number[]): void {
    for (const id of ids) quiet(this.messages.remove([projectId, id]));
  }
}

/** A removal's failure is the store's, reported through the next write a caller awaits. */
function quiet(write: Promise<unknown>): void {
  write.catch((err: { commitError?: Promise<unknown> }) => {
    err?.commitError?.catch(() => undefined);
  });
}
