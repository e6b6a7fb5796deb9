import { invalid } from '../errors.js';

interface Position {
  createdAt: number;
  id: string;
}

/** Opaque page token: the last position of the previous page, bound to its filter. */
export function encodePageToken(pos: Position, filterKey: string): string {
  return Buffer.from(JSON.stringify({ c: pos.createdAt, i: pos.id, f: filterKey })).toString(
    'base64url',
  );
}

export function decodePageToken(token: string, filterKey: string): Position {
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw invalid('page_token is malformed');
  }
  const o = v as { c?: unknown; i?: unknown; f?: unknown };
  if (typeof o?.c !== 'number' || typeof o.i !== 'string' || typeof o.f !== 'string') {
    throw invalid('page_token is malformed');
  }
  if (o.f !== filterKey) throw invalid('page_token was issued for a different filter');
  return { createdAt: o.c, id: o.i };
}
