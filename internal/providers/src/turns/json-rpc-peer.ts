import { isRecord, type JsonObject } from '../contract/json-value.js';
import { PendingRequests, RequestError } from './pending-requests.js';

/** JSON-RPC error codes both ends use. */
export const JSON_RPC = {
  /** A method the receiver does not handle. */
  methodNotFound: -32601,
  /** What a handler's unexpected exception is answered with. */
  internalError: -32603,
} as const;

export interface JsonRpcPeerOptions {
  /** Writes one message as a line. Throws when the agent no longer reads. */
  write(msg: JsonObject): void;
  /** Include `"jsonrpc":"2.0"` (ACP needs it; codex app-server omits it). */
  jsonrpcField: boolean;
  /** A notification from the peer. Must not throw. */
  onNotification(method: string, params: unknown): void;
  /**
   * A request from the peer (permission prompts, approvals). The resolved
   * value is the result; a thrown RequestError becomes the error answer
   * with its code.
   */
  onRequest(method: string, params: unknown, id: number | string): Promise<unknown>;
}

/**
 * Both ends of JSON-RPC over newline-delimited JSON on a child's stdio: our
 * requests, the peer's requests answered through `onRequest`, notifications
 * passed on. Transport-agnostic: the owner feeds parsed messages to
 * `handle` and closes the peer when the process exits.
 */
export class JsonRpcPeer {
  private lastId = 0;
  private readonly requests = new PendingRequests<number>(() => ++this.lastId);

  constructor(private readonly opts: JsonRpcPeerOptions) {}

  /**
   * Sends a request. A message that cannot be written throws synchronously
   * (so an input can be refused before anything is recorded); the promise
   * rejects with a RequestError on an error answer, a timeout
   * (`timeoutMs` > 0) or close, and at once when the peer is already closed.
   */
  request<T = unknown>(method: string, params?: unknown, timeoutMs = 30_000): Promise<T> {
    return this.requests.send<T>(method, timeoutMs, (id) =>
      this.send({ id, method, ...(params === undefined ? {} : { params }) }),
    );
  }

  /** Sends a notification. Throws when the message cannot be written. */
  notify(method: string, params?: unknown): void {
    if (this.requests.closed) return;
    this.send({ method, ...(params === undefined ? {} : { params }) });
  }

  /**
   * Routes one parsed message. Returns false when it is not JSON-RPC
   * (the owner then treats it as stray output).
   */
  handle(msg: unknown): boolean {
    if (!isRecord(msg)) return false;
    const id = msg.id;
    const hasId = typeof id === 'number' || typeof id === 'string';
    if (typeof msg.method === 'string') {
      if (hasId) this.answer(id, msg.method, msg.params);
      else this.opts.onNotification(msg.method, msg.params);
      return true;
    }
    if (!hasId || !('result' in msg || 'error' in msg)) return false;
    // Our ids are numbers: an answer with another id is not to anything we sent.
    if (typeof id !== 'number') return true;
    // An answer to a request that already timed out finds nothing pending and is dropped.
    if (msg.error) {
      const e = isRecord(msg.error) ? msg.error : {};
      const message = typeof e.message === 'string' ? e.message : 'error';
      this.requests.reject(id, message, typeof e.code === 'number' ? e.code : -32000, e.data);
    } else this.requests.resolve(id, msg.result);
    return true;
  }

  /** Fails every pending request; later requests reject at once. */
  close(reason: string): void {
    this.requests.close(reason);
  }

  private answer(id: number | string, method: string, params: unknown): void {
    this.opts.onRequest(method, params, id).then(
      (result) => this.trySend({ id, result: result ?? null }),
      (err: unknown) => {
        const e =
          err instanceof RequestError
            ? err
            : new RequestError(
                err instanceof Error ? err.message : String(err),
                JSON_RPC.internalError,
              );
        this.trySend({ id, error: { code: e.code, message: e.message } });
      },
    );
  }

  private trySend(msg: JsonObject): void {
    if (this.requests.closed) return;
    try {
      this.send(msg);
    } catch {
      // The agent is gone; its exit is reported elsewhere.
    }
  }

  private send(msg: JsonObject): void {
    this.opts.write(this.opts.jsonrpcField ? { jsonrpc: '2.0', ...msg } : msg);
  }
}
