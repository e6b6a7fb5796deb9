import { invalid } from './errors.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SUBSCRIBER = /^[A-Za-z0-9._:-]{1,128}$/;

export function checkSessionId(id: string): void {
  if (!UUID.test(id)) {
    throw invalid(
      `session_id must be a lowercase UUID like "0b7c1d2e-6f3a-4c5b-9d8e-7f6a5b4c3d2e", got ${preview(id)}`,
      'session_id_invalid',
    );
  }
}

export function checkSubscriberId(id: string, required: boolean): void {
  if (id === '' && !required) return;
  if (!SUBSCRIBER.test(id)) {
    throw invalid(
      'subscriber_id must be 1-128 characters of [A-Za-z0-9._:-]',
      'subscriber_id_invalid',
    );
  }
}

/** Quotes untrusted input for an error message, cut short so messages stay small. */
export function preview(s: string): string {
  return JSON.stringify(s.length > 64 ? `${s.slice(0, 64)}…` : s);
}
