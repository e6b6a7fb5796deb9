/** A JSON-RPC error answer from the peer, or a local failure of a pending request. */
export class JsonRpcError extends Error {
  constructor(
    message: string,
    readonly code: number,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'JsonRpcError';
  }
}

export interface JsonRpcPeerOptions {
  /** Writes one message (already serialised, without the newline). */
  write(line: string): void;
  /** Include `"jsonrpc":"2.0"` (ACP needs it; codex app-server omits it). */
  jsonrpcField: boolean;
  /** A notification from the peer. Must not throw. */
  onNotification(method: string, params: unknown): void;
  /**
   * A request from the peer (permission prompts, approvals). The resolved
   * value is the result; a thrown JsonRpcError becomes the error answer.
   */
  onRequest(method: string, params: unknown, id: number | string): Promise<unknown>;
}

type Pending = {
  resolve(v: unknown): void;
  reject(e: Error): void;
  timer: NodeJS.Timeout | undefined;
  method: string;
};

/**
 * Both ends of JSON-RPC over newline-delimited JSON on a child's stdio: our
 * requests with ids and timeouts, the peer's requests answered through
 * `onRequest`, notifications passed on. Transport-agnostic: the owner feeds
 * parsed messages to `handle` and closes the peer when the process exits.
 */
export class JsonRpcPeer {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private closedWith: Error | undefined;

  constructor(private readonly opts: JsonRpcPeerOptions) {}

  /** Sends a request; rejects with JsonRpcError on an error answer, a timeout or close. */
  request<T = unknown>(method: string, params?: unknown, timeoutMs = 30_000): Promise<T> {
    if (this.closedWith) return Promise.reject(this.closedWith);
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer =
        timeoutMs > 0
          ? setTimeout(() => {
              this.pending.delete(id);
              reject(new JsonRpcError(`${method} timed out after ${timeoutMs}ms`, -32001));
            }, timeoutMs)
          : undefined;
      timer?.unref();
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, timer, method });
      try {
        this.send({ id, method, ...(params === undefined ? {} : { params }) });
      } catch (err) {
        this.settle(id)?.reject(err as Error);
      }
    });
  }

  notify(method: string, params?: unknown): void {
    if (this.closedWith) return;
    this.send({ method, ...(params === undefined ? {} : { params }) });
  }

  /**
   * Routes one parsed message. Returns false when it is not JSON-RPC
   * (the owner then treats it as stray output).
   */
  handle(msg: unknown): boolean {
    if (typeof msg !== 'object' || msg === null || Array.isArray(msg)) return false;
    const m = msg as Record<string, unknown>;
    const hasId = typeof m.id === 'number' || typeof m.id === 'string';
    if (typeof m.method === 'string') {
      if (hasId) this.answer(m.id as number | string, m.method, m.params);
      else this.opts.onNotification(m.method, m.params);
      return true;
    }
    if (hasId && ('result' in m || 'error' in m)) {
      const p = this.settle(m.id as number);
      if (!p) return true; // late answer to a timed-out request
      if ('error' in m && m.error) {
        const e = m.error as { message?: unknown; code?: unknown; data?: unknown };
        p.reject(
          new JsonRpcError(
            `${p.method}: ${typeof e.message === 'string' ? e.message : 'error'}`,
            typeof e.code === 'number' ? e.code : -32000,
            e.data,
          ),
        );
      } else p.resolve(m.result);
      return true;
    }
    return false;
  }

  /** Fails every pending request; later calls reject at once. */
  close(reason: string): void {
    if (this.closedWith) return;
    this.closedWith = new JsonRpcError(reason, -32099);
    for (const id of [...this.pending.keys()]) this.settle(id)?.reject(this.closedWith);
  }

  private answer(id: number | string, method: string, params: unknown): void {
    this.opts.onRequest(method, params, id).then(
      (result) => this.trySend({ id, result: result ?? null }),
      (err: unknown) => {
        const e =
          err instanceof JsonRpcError
            ? err
            : new JsonRpcError(err instanceof Error ? err.message : String(err), -32603);
        this.trySend({ id, error: { code: e.code, message: e.message } });
      },
    );
  }

  private settle(id: number): Pending | undefined {
    const p = this.pending.get(id);
    if (!p) return undefined;
    this.pending.delete(id);
    if (p.timer) clearTimeout(p.timer);
    return p;
  }

  private trySend(msg: Record<string, unknown>): void {
    if (this.closedWith) return;
    try {
      this.send(msg);
    } catch {
      // The agent is gone; its exit is reported elsewhere.
    }
  }

  private send(msg: Record<string, unknown>): void {
    const body = this.opts.jsonrpcField ? { jsonrpc: '2.0', ...msg } : msg;
    this.opts.write(JSON.stringify(body));
  }
}
