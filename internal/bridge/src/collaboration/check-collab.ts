import { invalid } from '../errors.js';
import { checkSessionLabel, isLabel, isSessionId, preview } from '../validate.js';
import {
  DELIVERIES,
  type Delivery,
  LIMITS,
  type MessageDraft,
  type PostDraft,
  PRIORITIES,
  type Priority,
  type ReadQuery,
  type Recipient,
} from './collab-types.js';

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

function checkContent(content: string): void {
  if (content.trim() === '') throw invalid('content is empty', 'collab_content_empty');
  if (bytes(content) > LIMITS.contentBytes) {
    throw invalid(
      `content is ${bytes(content)} bytes; at most ${LIMITS.contentBytes} are allowed`,
      'collab_content_too_large',
    );
  }
}

function checkThreadId(threadId: string): void {
  if (bytes(threadId) > LIMITS.threadIdBytes || /\p{Cc}/u.test(threadId)) {
    throw invalid(
      `thread_id must be at most ${LIMITS.threadIdBytes} bytes without control characters`,
      'collab_thread_invalid',
    );
  }
}

/** A label like a session name: the category of a post, a target, a role. */
function checkLabel(value: string, field: string): void {
  if (!isLabel(value)) {
    throw invalid(
      `${field} must be 1-64 characters of A-Z a-z 0-9 . _ - starting with a letter or digit, got ${preview(value)}`,
      'collab_label_invalid',
    );
  }
}

function checkChoice<T extends string>(value: string, field: string, of: readonly T[]): T {
  if (!(of as readonly string[]).includes(value)) {
    throw invalid(
      `${field} must be one of ${of.join(', ')}, got ${preview(value)}`,
      'collab_choice_invalid',
    );
  }
  return value as T;
}

/** A post as asked for, checked against LIMITS; what it returns is what is stored. */
export function checkPostDraft(d: PostDraft): PostDraft {
  checkLabel(d.category, 'category');
  const priority = checkChoice<Priority>(d.priority || 'info', 'priority', PRIORITIES);
  checkContent(d.content);
  if (d.targets.length > LIMITS.targets) {
    throw invalid(
      `at most ${LIMITS.targets} targets are allowed, got ${d.targets.length}`,
      'collab_targets_too_many',
    );
  }
  for (const t of d.targets) checkLabel(t, 'a target');
  checkThreadId(d.threadId);
  if (!Number.isSafeInteger(d.replyTo) || d.replyTo < 0) {
    throw invalid('reply_to must be a post id', 'collab_reply_invalid');
  }
  const entries = Object.entries(d.metadata);
  if (entries.length > LIMITS.metadataEntries) {
    throw invalid(
      `at most ${LIMITS.metadataEntries} metadata entries are allowed`,
      'collab_metadata_too_large',
    );
  }
  for (const [k, v] of entries) {
    if (k === '' || k.length > LIMITS.metadataKeyChars || bytes(v) > LIMITS.metadataValueBytes) {
      throw invalid(
        `a metadata key is 1-${LIMITS.metadataKeyChars} characters and its value at most ${LIMITS.metadataValueBytes} bytes (key ${preview(k)})`,
        'collab_metadata_too_large',
      );
    }
  }
  return { ...d, priority, targets: [...new Set(d.targets)], metadata: { ...d.metadata } };
}

/** A page size asked for (0 or absent: the default), checked against LIMITS. */
export function checkLimit(asked: number | undefined): number {
  const limit = asked || LIMITS.readDefault;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > LIMITS.readMax) {
    throw invalid(`limit must be 1-${LIMITS.readMax}, got ${asked}`, 'collab_limit_invalid');
  }
  return limit;
}

/** A read query with its limit settled. */
export function checkReadQuery(q: ReadQuery): ReadQuery & { limit: number } {
  const limit = checkLimit(q.limit);
  if (q.category !== undefined && q.category !== '') checkLabel(q.category, 'category');
  if (q.threadId !== undefined) checkThreadId(q.threadId);
  return { ...q, limit };
}

function checkRecipient(to: Recipient): void {
  if ('session' in to) {
    if (to.session === '')
      throw invalid('to: name a session, a role or a person', 'collab_recipient_missing');
    // A session id, or a name.
    if (!isSessionId(to.session)) checkSessionLabel(to.session, 'name');
  } else if ('role' in to) {
    checkLabel(to.role, 'role');
  } else if (to.person === '' || bytes(to.person) > 256) {
    throw invalid('to.person must be a token subject of 1-256 bytes', 'collab_recipient_invalid');
  }
}

/** A message as asked for, checked against LIMITS. */
export function checkMessageDraft(d: MessageDraft): MessageDraft {
  checkRecipient(d.to);
  checkContent(d.content);
  checkThreadId(d.threadId);
  const deliver = checkChoice<Delivery>(d.deliver || 'inbox', 'deliver', DELIVERIES);
  return { ...d, deliver };
}

/** A wait's bound, in ms: 0 to LIMITS.waitMaxMs. */
export function checkWait(ms: number): number {
  if (!Number.isFinite(ms) || ms < 0 || ms > LIMITS.waitMaxMs) {
    throw invalid(
      `a wait is 0-${LIMITS.waitMaxMs / 1000} s, got ${ms / 1000} s`,
      'collab_wait_invalid',
    );
  }
  return ms;
}
