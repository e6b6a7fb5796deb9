// A minimal control plane: start a session of the mock agent, send it two
// turns, read its events as a subscriber, close the stream and resume it
// where it left off, stop the session.
//
//   npm run dev                                  # terminal 1: the dev daemon
//   node examples/minimal-control-plane.mjs      # terminal 2 (see examples/README.md)
//
// Environment; the defaults reach the daemon of `npm run dev` from the
// repository root:
//   BRIDGE_TARGET       the daemon, host:port                   localhost:9445
//   BRIDGE_SERVER_NAME  the name in its certificate, when it is not the target's host
//   BRIDGE_CA           CA bundle its certificate chains to      certs/dev/ca.crt
//   BRIDGE_CERT         this client's certificate                certs/dev/client.crt
//   BRIDGE_KEY          its private key                          certs/dev/client.key
//   BRIDGE_JWT_KEY      Ed25519 key that signs the tokens        certs/dev/jwt.key
//   BRIDGE_ISSUER       the issuer the daemon knows that key by  dev
//   BRIDGE_PROJECT      the project to act for                   dev
//   BRIDGE_REPO         a repository on the daemon's host        the current directory
//   BRIDGE_PROVIDER     the agent                                mock
import { BridgeClient, UnavailableError } from '@agent-bridge/bridgeclient';

const env = (name, fallback) => process.env[name] || fallback;
const subscriberId = 'minimal-control-plane';

const client = new BridgeClient({
  target: env('BRIDGE_TARGET', 'localhost:9445'),
  mtls: {
    ca: env('BRIDGE_CA', 'certs/dev/ca.crt'),
    cert: env('BRIDGE_CERT', 'certs/dev/client.crt'),
    key: env('BRIDGE_KEY', 'certs/dev/client.key'),
    serverName: env('BRIDGE_SERVER_NAME'),
  },
  jwt: {
    privateKey: env('BRIDGE_JWT_KEY', 'certs/dev/jwt.key'),
    issuer: env('BRIDGE_ISSUER', 'dev'),
    subject: 'minimal-control-plane',
    projectId: env('BRIDGE_PROJECT', 'dev'),
  },
});

/** One line per event: its seq, its type and what it says. */
function show(e) {
  const what = e.missing ? `missed #${e.missing.first}-#${e.missing.last}` : e.error || e.text;
  console.log(`  #${e.seq} ${e.type} ${what}`.trimEnd());
}

try {
  const health = await client.health();
  console.log(`connected to ${client.target}: bridge ${health.version}`);

  const { sessionId, status } = await client.startSession({
    provider: env('BRIDGE_PROVIDER', 'mock'),
    repoPath: env('BRIDGE_REPO', process.cwd()),
  });
  console.log(`session ${sessionId}: ${status}`);

  // Turn 1, read as a subscriber: what the loop has processed is acknowledged.
  await client.sendInput(sessionId, 'Summarise the README');
  const first = client.events(sessionId, { subscriberId });
  for await (const e of first) {
    show(e);
    // Ends the loop once this body returns; the event counts as processed.
    if (e.type === 'TURN_COMPLETED') first.close();
  }
  console.log(`stream closed after #${first.processedSeq}`);

  // Turn 2, sent while nobody reads: the daemon keeps the events.
  await client.sendInput(sessionId, 'Now list the open TODOs');

  // The same subscriber resumes after the last event it processed.
  console.log(`resuming as ${subscriberId}`);
  const second = client.events(sessionId, { subscriberId });
  for await (const e of second) {
    show(e);
    if (e.type === 'TURN_COMPLETED') await client.stopSession(sessionId);
  }
  // The loop ends by itself after the session's terminal event.
  console.log(`session ${sessionId} ended`);
} catch (err) {
  console.error(`${err.name}: ${err.message}`);
  if (err instanceof UnavailableError) console.error('Is the daemon running (npm run dev)?');
  process.exitCode = 1;
} finally {
  client.close();
}
