import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Headers on every answer: the page may load scripts, styles and data
 * from this server only, run no inline script, be framed by nobody, and
 * send no referrer; nothing is cached.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-store',
};

/** An error the API reports with its HTTP status and message. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

export function sendError(res: ServerResponse, status: number, message: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendJson(res, status, { error: message });
}

const MAX_BODY = 1 << 20;

/** A request's JSON body (an object), at most 1 MiB; anything else is a 400 or 413. */
export async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  if (!/^application\/json\b/.test(req.headers['content-type'] ?? '')) {
    throw new HttpError(415, 'the body must be application/json');
  }
  if (Number(req.headers['content-length'] ?? 0) > MAX_BODY) {
    throw new HttpError(413, 'the body is over 1 MiB');
  }
  const chunks: Buffer[] = [];
  let size = 0;
  // Read to the end even past the bound (a chunked body says its size only
  // as it comes), so that the answer reaches the browser; only 1 MiB is kept.
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size <= MAX_BODY) chunks.push(chunk as Buffer);
  }
  if (size > MAX_BODY) throw new HttpError(413, 'the body is over 1 MiB');
  let body: unknown;
  try {
    body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new HttpError(400, 'the body is not JSON');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new HttpError(400, 'the body must be a JSON object');
  }
  return body as Record<string, unknown>;
}

/** A string field of a body, or a 400 naming it. */
export function field(body: Record<string, unknown>, name: string, required = true): string {
  const v = body[name];
  if (v === undefined || v === '') {
    if (required) throw new HttpError(400, `${name} is required`);
    return '';
  }
  if (typeof v !== 'string') throw new HttpError(400, `${name} must be a string`);
  return v;
}
