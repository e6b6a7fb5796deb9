import { connect, type Socket } from 'node:net';

/** How long a request to the daemon's tool socket may take (docs/collaboration.md). */
export interface ToolSocketBounds {
  /** For the connection to be accepted. */
  connectMs: number;
  /** For an answer, beyond what the call itself waits (wait_for_message). */
  answerMs: number;
}

const DEFAULT_BOUNDS: ToolSocketBounds = { connectMs: 10_000, answerMs: 30_000 };

export interface Reply {
  id: number;
  result?: unknown;
  error?: { code: string; message: string };
}

/** Requests to the daemon's tool socket, one connection, answers matched by id. */
export class ToolSocketClient {
  private socket: Socket | undefined;
  private next = 1;
  private readonly pending = new Map<number, (r: Reply) => void>();

  constructor(
    private readonly path: string,
    private readonly capability: string,
    private readonly bounds: ToolSocketBounds = DEFAULT_BOUNDS,
  ) {}

  /**
   * One request; answered `deadline_exceeded` when the daemon has not
   * answered within the answer bound plus `waitsMs` (what the call itself
   * may wait).
   */
  async request(method: string, extra: Record<string, unknown>, waitsMs = 0): Promise<Reply> {
    const socket = await this.connected();
    const id = this.next++;
    const timeoutMs = this.bounds.answerMs + waitsMs;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        const message = `the bridge daemon did not answer within ${seconds(timeoutMs)}`;
        resolve({ id, error: { code: 'deadline_exceeded', message } });
      }, timeoutMs);
      this.pending.set(id, (reply) => {
        clearTimeout(timer);
        resolve(reply);
      });
      socket.write(`${JSON.stringify({ id, capability: this.capability, method, ...extra })}\n`);
    });
  }

  /** The connection, opened again after the daemon went away and came back. */
  private async connected(): Promise<Socket> {
    if (this.socket && !this.socket.destroyed) return this.socket;
    const socket = connect(this.path);
    await new Promise<void>((resolve, reject) => {
      // A Unix socket answers at once, or refuses: a hung daemon still gets a bound.
      const timer = setTimeout(() => {
        socket.destroy();
        reject(
          new Error(`the connection was not accepted within ${seconds(this.bounds.connectMs)}`),
        );
      }, this.bounds.connectMs);
      socket
        .once('connect', () => {
          clearTimeout(timer);
          resolve();
        })
        .once('error', (err) => {
          clearTimeout(timer);
          reject(err);
        });
    });
    let buffered = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        let reply: Reply;
        try {
          reply = JSON.parse(line) as Reply;
        } catch {
          // Not the daemon speaking: drop the connection (what waits is told).
          socket.destroy();
          return;
        }
        this.pending.get(reply.id)?.(reply);
        this.pending.delete(reply.id);
      }
    });
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      // What was under way will not be answered: say so rather than hang.
      for (const [id, done] of this.pending) {
        done({
          id,
          error: { code: 'unavailable', message: 'the bridge daemon closed the connection' },
        });
      }
      this.pending.clear();
    });
    this.socket = socket;
    return socket;
  }

  close(): void {
    this.socket?.destroy();
  }
}

const seconds = (ms: number) => (ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`);
