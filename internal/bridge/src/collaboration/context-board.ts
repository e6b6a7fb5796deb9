import type { Clock } from '../clock.js';
import { BridgeError, exhausted } from '../errors.js';
import type { TokenBuckets } from '../limits/token-buckets.js';
import { checkPostDraft, checkReadQuery } from './check-collab.js';
import type { CollabSnapshot, CollabStore } from './collab-store.js';
import {
  LIMITS,
  type Party,
  type Post,
  type PostDraft,
  type PostPage,
  partyKey,
  type ReadQuery,
} from './collab-types.js';
import { FleetOrigins } from './fleet-origins.js';
import type { FleetPost } from './fleet-posts.js';

interface ProjectBoard {
  /** Ascending ids. */
  posts: Post[];
  nextId: number;
  /** Per reader (partyKey), the ids it acknowledged. */
  acks: Map<string, Set<number>>;
}

export interface ContextBoardDeps {
  store: CollabStore;
  clock: Clock;
  /** Posts and messages per author (one allowance for both). */
  rate: TokenBuckets;
}

/** Whether `reader` may see `post`: a person sees the whole project, a session what is meant for it. */
function visibleTo(post: Post, reader: Party): boolean {
  if (reader.kind === 'person' || post.targets.length === 0) return true;
  if (post.from.kind === reader.kind && post.from.id === reader.id) return true;
  return post.targets.some((t) => t === reader.name || (reader.role !== '' && t === reader.role));
}

/** Takes one of `from`'s posts-and-messages allowance, or refuses. */
export function spend(rate: TokenBuckets, projectId: string, from: Party): void {
  const wait = rate.take(`${projectId}/${partyKey(from)}`);
  if (wait > 0) {
    throw exhausted(
      `too many posts and messages from ${from.kind} ${from.name || from.id}: try again in ${Math.ceil(wait / 1000)} s`,
      'collab_rate_limited',
      wait,
    );
  }
}

/**
 * The context bus of every project: posts kept in order (the newest
 * LIMITS.keptPerProject), each reader's acknowledgements, and reads that
 * filter them. A project only ever sees its own posts; a session sees the
 * posts meant for everyone, for its name or role, and its own.
 */
export class ContextBoard {
  private readonly projects = new Map<string, ProjectBoard>();
  private readonly imported = new FleetOrigins('');

  constructor(
    private readonly deps: ContextBoardDeps,
    kept: Pick<CollabSnapshot, 'posts' | 'acks'> = { posts: [], acks: [] },
  ) {
    for (const p of kept.posts) {
      const b = this.board(p.projectId);
      b.posts.push(p);
      b.nextId = Math.max(b.nextId, p.id + 1);
      if (p.origin) this.imported.set(p.projectId, p.origin, p.id);
    }
    for (const a of kept.acks) this.acksOf(this.board(a.projectId), a.reader).add(a.postId);
  }

  /** Posts `draft` as `from`; resolves with the post once it is committed. */
  async post(projectId: string, from: Party, draft: PostDraft): Promise<Post> {
    const d = checkPostDraft(draft);
    const b = this.board(projectId);
    if (d.replyTo !== 0 && !this.find(b, d.replyTo)) {
      throw new BridgeError(
        'not_found',
        `no post ${d.replyTo} in this project to reply to`,
        'collab_post_not_found',
      );
    }
    spend(this.deps.rate, projectId, from);
    const post: Post = { ...d, id: b.nextId++, projectId, from, at: this.deps.clock.now() };
    b.posts.push(post);
    this.trim(projectId, b);
    await this.deps.store.putPost(post);
    return post;
  }

  /**
   * Holds a post of another daemon of the fleet, numbered here, its reply
   * reference resolved to the id here of the post it answers (0 when this
   * daemon does not hold it). Resolves with it once committed; undefined
   * when it is held already (a post arrives again after a restart).
   */
  async import(p: FleetPost, self: string): Promise<Post | undefined> {
    if (this.imported.has(p.projectId, p.origin) || p.origin.startsWith(`${self}/`))
      return undefined;
    const b = this.board(p.projectId);
    const { origin, replyTo: answers, ...rest } = p;
    const post: Post = {
      ...rest,
      id: b.nextId++,
      replyTo: this.imported.resolve(p.projectId, answers, self),
      origin,
    };
    b.posts.push(post);
    this.imported.set(p.projectId, p.origin, post.id);
    this.trim(p.projectId, b);
    await this.deps.store.putPost(post);
    return post;
  }

  /** A post's identity across the fleet: its origin, or this daemon's for one made here. */
  ref(projectId: string, id: number, self: string): string {
    if (id === 0) return '';
    const p = this.projects.get(projectId);
    const post = p && this.find(p, id);
    return post?.origin ?? this.imported.own(self, id);
  }

  /** The posts made here that this daemon holds, oldest first (to give the fleet again). */
  *madeHere(): Generator<Post> {
    for (const b of this.projects.values()) for (const p of b.posts) if (!p.origin) yield p;
  }

  /** The posts `reader` may see that match `query`, oldest first. */
  read(projectId: string, reader: Party, query: ReadQuery): PostPage {
    const q = checkReadQuery(query);
    const b = this.projects.get(projectId);
    const afterId = q.afterId ?? 0;
    const page: PostPage = { posts: [], cursor: afterId };
    if (!b) return page;
    const acked = b.acks.get(partyKey(reader));
    for (const p of b.posts) {
      if (p.id <= afterId) continue;
      if (page.posts.length === q.limit) break;
      page.cursor = p.id;
      if (!visibleTo(p, reader) || !matches(p, q)) continue;
      if (q.unacked && acked?.has(p.id)) continue;
      page.posts.push(p);
    }
    return page;
  }

  /**
   * Records that `reader` has seen the posts `ids` (all visible to it);
   * resolves with how many were new once committed. An id it cannot see is
   * NOT_FOUND and nothing is recorded.
   */
  async ack(projectId: string, reader: Party, ids: readonly number[]): Promise<number> {
    const b = this.board(projectId);
    for (const id of ids) {
      const p = this.find(b, id);
      if (!p || !visibleTo(p, reader)) {
        throw new BridgeError(
          'not_found',
          `no post ${id} in this project`,
          'collab_post_not_found',
        );
      }
    }
    const key = partyKey(reader);
    const acked = this.acksOf(b, key);
    const fresh = [...new Set(ids)].filter((id) => !acked.has(id));
    for (const id of fresh) acked.add(id);
    await Promise.all(
      fresh.map((postId) => this.deps.store.putAck({ projectId, reader: key, postId })),
    );
    return fresh.length;
  }

  private find(b: ProjectBoard, id: number): Post | undefined {
    // Ids ascend without gaps from the oldest kept one.
    const first = b.posts[0]?.id ?? 0;
    const p = b.posts[id - first];
    return p?.id === id ? p : b.posts.find((q) => q.id === id);
  }

  private trim(projectId: string, b: ProjectBoard): void {
    const over = b.posts.length - LIMITS.keptPerProject;
    if (over <= 0) return;
    const dropped = b.posts.splice(0, over);
    for (const p of dropped) if (p.origin) this.imported.delete(projectId, p.origin);
    const gone = dropped.map((p) => p.id);
    for (const acked of b.acks.values()) for (const id of gone) acked.delete(id);
    this.deps.store.dropPosts(projectId, gone);
  }

  private board(projectId: string): ProjectBoard {
    let b = this.projects.get(projectId);
    if (!b) {
      b = { posts: [], nextId: 1, acks: new Map() };
      this.projects.set(projectId, b);
    }
    return b;
  }

  private acksOf(b: ProjectBoard, key: string): Set<number> {
    let s = b.acks.get(key);
    if (!s) {
      s = new Set();
      b.acks.set(key, s);
    }
    return s;
  }
}

function matches(p: Post, q: ReadQuery): boolean {
  if (q.since !== undefined && p.at < q.since) return false;
  if (q.category && p.category !== q.category) return false;
  if (q.threadId && p.threadId !== q.threadId) return false;
  if (q.source && p.from.name !== q.source && p.from.id !== q.source) return false;
  return true;
}
