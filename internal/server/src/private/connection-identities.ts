import type { TLSSocket } from 'node:tls';
import { certificatePeerIdentity, type PeerIdentity } from './peer-identity.js';

/**
 * The identity of each live connection, worked out once when the listener
 * hands it over, so a call does not parse its connection's certificate
 * again (Node builds a new certificate object on every ask). Calls find
 * their connection by the peer address grpc-js reports (`getPeer()`). Two
 * live connections can share a remote address and port only when they
 * reach different local addresses; while they do, that address answers
 * nothing and their calls read their certificate themselves.
 */
export class ConnectionIdentities {
  private readonly byPeer = new Map<string, Map<TLSSocket, PeerIdentity>>();

  /** Remembers the identity of `socket` (an accepted, verified connection) until it closes. */
  add(socket: TLSSocket): void {
    const { remoteAddress: a, remotePort: p } = socket;
    if (a === undefined || p === undefined) return;
    // As grpc-js's getPeer() writes it: no brackets around IPv6.
    const key = `${a}:${p}`;
    let sockets = this.byPeer.get(key);
    if (!sockets) {
      sockets = new Map();
      this.byPeer.set(key, sockets);
    }
    sockets.set(socket, certificatePeerIdentity(socket.getPeerCertificate(), key));
    socket.once('close', () => {
      sockets.delete(socket);
      if (sockets.size === 0 && this.byPeer.get(key) === sockets) this.byPeer.delete(key);
    });
  }

  /** The identity of the one live connection at `peer`, as grpc-js names it. */
  get(peer: string): PeerIdentity | undefined {
    const sockets = this.byPeer.get(peer);
    if (sockets?.size !== 1) return undefined;
    return sockets.values().next().value;
  }
}
