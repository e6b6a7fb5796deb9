import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SECURITY_HEADERS } from './http-replies.js';

/**
 * A server-sent events answer. `send` resolves once the browser's socket
 * took the event, or once it drained when its buffer was full: a reader
 * that writes with await never queues more than one event beyond what the
 * page reads. `closed` aborts when the page goes away.
 */
export interface EventFeed {
  send(event: string, data: unknown, id?: number): Promise<void>;
  readonly closed: AbortSignal;
  end(): void;
}

/** How often a comment line keeps idle connections (and proxies) open. */
const KEEPALIVE_MS = 15_000;

export function openEventFeed(req: IncomingMessage, res: ServerResponse): EventFeed {
  const gone = new AbortController();
  res.writeHead(200, {
    ...SECURITY_HEADERS,
    'content-type': 'text/event-stream; charset=utf-8',
    'x-accel-buffering': 'no',
  });
  // The browser reconnects after 2 s when the stream breaks, with Last-Event-ID.
  res.write('retry: 2000\n\n');
  const keepalive = setInterval(() => res.write(': keepalive\n\n'), KEEPALIVE_MS);
  keepalive.unref();
  const close = () => {
    clearInterval(keepalive);
    gone.abort();
  };
  req.on('close', close);
  res.on('close', close);
  return {
    closed: gone.signal,
    async send(event, data, id) {
      if (gone.signal.aborted) return;
      const lines = [`event: ${event}`];
      if (id !== undefined) lines.push(`id: ${id}`);
      // JSON has no raw newlines, so one data line carries it whole.
      lines.push(`data: ${JSON.stringify(data)}`, '', '');
      if (!res.write(lines.join('\n'))) {
        await once(res, 'drain', { signal: gone.signal }).catch(() => undefined);
      }
    },
    end() {
      close();
      res.end();
    },
  };
}

/** Where a feed resumes: after the Last-Event-ID the browser sends on reconnect, else `?after=`. */
export function resumeFrom(req: IncomingMessage, query: URLSearchParams): number {
  const raw = req.headers['last-event-id'] ?? query.get('after') ?? '0';
  const n = Number(raw);
  return Number.isSafeInteger(n) && n >= 0 ? n : 0;
}
