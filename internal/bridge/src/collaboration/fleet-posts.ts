import type { Member, Message, Party, PostDraft } from './collab-types.js';

/**
 * A post as it travels between the daemons of a fleet (docs/collaboration.md,
 * "Across a fleet"): what its author wrote, who and when, and where it was
 * made. Each daemon numbers the posts it holds itself (the ids are its
 * readers' cursors); `origin` is the post's identity across the fleet, and
 * `replyTo` names the post it answers by that identity.
 */
export interface FleetPost extends Omit<PostDraft, 'replyTo'> {
  /** `<daemon>/<history>/<id>` of the daemon it was made on. */
  origin: string;
  projectId: string;
  from: Party;
  at: number;
  /** The `origin` of the post it answers; '' for none. */
  replyTo: string;
}

/**
 * A message to a session on another daemon of the fleet, as it travels:
 * the recipient's daemon holds it in the session's inbox, numbered there.
 */
export interface FleetMessage extends Omit<Message, 'id' | 'replyTo' | 'readAt' | 'origin'> {
  /** `<daemon>/<history>/m<id>` of the daemon it was sent on. */
  origin: string;
  /** The `origin` of the message it answers; '' for none. */
  replyTo: string;
}

/** Where a daemon's posts and messages go to the rest of its fleet, and how it names them there. */
export interface CollabRelay {
  /** This daemon's prefix of `origin`: `<daemon>/<history>`. */
  readonly self: string;
  /** A post made here is committed: the fleet gets it. */
  posted(post: FleetPost): void;
  /** A message to a session of another daemon is committed here: the fleet takes it there. */
  sent(message: FleetMessage): void;
  /** The live sessions of a project on the other daemons (`who`, addressing). */
  members(projectId: string): Member[];
}
