import type { Caller, Message, Party, Post } from '@agent-bridge/bridge';
import { BridgeError } from '@agent-bridge/bridge';
import type {
  AckContextResponse,
  BridgeMessage,
  ContextPost,
  ListMessagesResponse,
  PostContextResponse,
  ReadContextResponse,
  SendMessageRequest,
  SendMessageResponse,
} from '@agent-bridge/proto';
import type { BytesStreamingServer } from '../event-wire.js';
import type { CallKit } from './call-kit.js';
import { unaryCall } from './unary-call.js';

/** The caller as collaboration sees it: a person of its token's project. */
const personOf = (c: Caller): Party => ({
  kind: 'person',
  id: c.subject,
  name: c.subject,
  role: '',
});

/** A post id or a limit from the wire: beyond 2^53 it names nothing. */
const num = (v: bigint | number): number =>
  Number(v > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : v);

const toPost = (p: Post): ContextPost => ({
  id: BigInt(p.id),
  from: p.from,
  postedAt: new Date(p.at),
  category: p.category,
  priority: p.priority,
  content: p.content,
  targets: p.targets,
  threadId: p.threadId,
  replyTo: BigInt(p.replyTo),
  metadata: p.metadata,
});

const toMessage = (m: Message): BridgeMessage => ({
  id: BigInt(m.id),
  from: m.from,
  to: m.to,
  sentAt: new Date(m.at),
  content: m.content,
  threadId: m.threadId,
  replyTo: BigInt(m.replyTo),
  deliver: m.deliver,
  readAt: m.readAt === undefined ? undefined : new Date(m.readAt),
});

/** The one recipient a SendMessage names (the oneof), or a refusal. */
function recipientOf(req: SendMessageRequest) {
  if (req.session !== undefined) return { session: req.session };
  if (req.role !== undefined) return { role: req.role };
  if (req.person !== undefined) return { person: req.person };
  throw new BridgeError(
    'invalid_argument',
    'to: name a session (name or id), a role or a person, or answer a message with reply_to',
    'collab_recipient_missing',
  );
}

/** The collaboration RPCs: the caller as a person of its project, each a call to the core. */
export function collabHandlers(
  kit: CallKit,
): Pick<
  BytesStreamingServer,
  'postContext' | 'readContext' | 'ackContext' | 'sendMessage' | 'listMessages'
> {
  const collab = kit.ctx.manager.collaboration;
  return {
    postContext: unaryCall(
      kit,
      'PostContext',
      async (caller, req): Promise<PostContextResponse> => ({
        post: toPost(
          await collab.post(caller.projectId, personOf(caller), {
            category: req.category,
            priority: (req.priority || 'info') as Post['priority'],
            content: req.content,
            targets: req.targets,
            threadId: req.threadId,
            replyTo: num(req.replyTo),
            metadata: req.metadata,
          }),
        ),
      }),
    ),

    readContext: unaryCall(kit, 'ReadContext', (caller, req): ReadContextResponse => {
      const page = collab.read(caller.projectId, personOf(caller), {
        afterId: num(req.afterId),
        ...(req.since ? { since: req.since.getTime() } : {}),
        category: req.category,
        source: req.source,
        threadId: req.threadId,
        unacked: req.unacked,
        limit: req.limit,
      });
      return { posts: page.posts.map(toPost), cursor: BigInt(page.cursor) };
    }),

    ackContext: unaryCall(
      kit,
      'AckContext',
      async (caller, req): Promise<AckContextResponse> => ({
        acked: await collab.ack(caller.projectId, personOf(caller), req.postIds.map(num)),
      }),
    ),

    sendMessage: unaryCall(
      kit,
      'SendMessage',
      async (caller, req): Promise<SendMessageResponse> => {
        const me = personOf(caller);
        const deliver = (req.deliver || 'inbox') as Message['deliver'];
        if (req.replyTo > 0n) {
          if (req.session ?? req.role ?? req.person) {
            throw new BridgeError(
              'invalid_argument',
              'a reply goes to the sender of the message it answers: leave `to` empty',
              'collab_reply_with_recipient',
            );
          }
          const m = await collab.reply(
            caller.projectId,
            me,
            num(req.replyTo),
            req.content,
            deliver,
          );
          return { messages: [toMessage(m)] };
        }
        const sent = await collab.send(caller.projectId, me, {
          to: recipientOf(req),
          content: req.content,
          threadId: req.threadId,
          deliver,
        });
        return { messages: sent.map(toMessage) };
      },
    ),

    listMessages: unaryCall(
      kit,
      'ListMessages',
      async (caller, req): Promise<ListMessagesResponse> => ({
        messages: (
          await collab.inbox(caller.projectId, personOf(caller), {
            limit: req.limit,
            unreadOnly: req.unreadOnly,
          })
        ).map(toMessage),
      }),
    ),
  };
}
