// A fleet: several daemons used as one. Each new session goes to the daemon
// with the most room for this project; calls by session id go to the daemon
// that runs it; daemons that do not answer are reported and skipped.
//
//   npm run dev                                  # terminal 1: a daemon on 9445
//   npm run dev -- --listen 127.0.0.1:9446       # terminal 2: another, same dev PKI
//   node examples/fleet.mjs                      # terminal 3 (see examples/README.md)
//
// Environment:
//   BRIDGE_TARGETS  the daemons, comma-separated host:port   localhost:9445,localhost:9446
// and, for credentials every daemon accepts (one PKI for the fleet), the
// variables of minimal-control-plane.mjs: BRIDGE_SERVER_NAME, BRIDGE_CA,
// BRIDGE_CERT, BRIDGE_KEY, BRIDGE_JWT_KEY, BRIDGE_ISSUER, BRIDGE_PROJECT,
// BRIDGE_REPO (a path that exists on every daemon's host).
import { BridgeFleet } from '@agent-bridge/bridgeclient';

const env = (name, fallback) => process.env[name] || fallback;
const credentials = {
  mtls: {
    ca: env('BRIDGE_CA', 'certs/dev/ca.crt'),
    cert: env('BRIDGE_CERT', 'certs/dev/client.crt'),
    key: env('BRIDGE_KEY', 'certs/dev/client.key'),
    serverName: env('BRIDGE_SERVER_NAME'),
  },
  jwt: {
    privateKey: env('BRIDGE_JWT_KEY', 'certs/dev/jwt.key'),
    issuer: env('BRIDGE_ISSUER', 'dev'),
    subject: 'fleet-example',
    projectId: env('BRIDGE_PROJECT', 'dev'),
  },
};
const targets = env('BRIDGE_TARGETS', 'localhost:9445,localhost:9446').split(',');
const daemons = targets.map((target) => ({ name: target, target, ...credentials }));
const repoPath = env('BRIDGE_REPO', process.cwd());

/** What placement sees of each daemon. */
async function printStatus(fleet) {
  for (const d of await fleet.status()) {
    if (!d.reachable) {
      console.log(`  ${d.daemon}: unreachable (${d.error.code})`);
      continue;
    }
    const h = d.health;
    const providers = d.providers.filter((p) => p.available).map((p) => p.id);
    console.log(
      `  ${d.daemon}: ${h.status}, ${h.projectActiveSessions} of ${h.projectSessionLimit} sessions of this project, room for ${h.freeCapacity}, providers ${providers.join(' ')}`,
    );
  }
}

const fleet = new BridgeFleet({ daemons });
try {
  console.log('fleet:');
  await printStatus(fleet);

  // Placement: each session goes where there is the most room.
  const sessions = [];
  for (let i = 1; i <= 4; i++) {
    const s = await fleet.startSession({ provider: 'mock', repoPath });
    console.log(`started ${s.sessionId} on ${s.daemon}`);
    sessions.push(s.sessionId);
  }
  console.log('fleet:');
  await printStatus(fleet);

  // Routing: calls name the session; the fleet knows which daemon runs it.
  for (const [i, id] of sessions.entries()) {
    await fleet.sendInput(id, `task ${i + 1}`);
    for await (const e of fleet.events(id)) {
      if (e.type === 'AGENT_MESSAGE') console.log(`${id}: ${e.text}`);
      if (e.type === 'TURN_COMPLETED') break;
    }
  }

  // One list across the fleet, newest first.
  const { sessions: running, unreachable } = await fleet.listSessions({ statuses: ['RUNNING'] });
  console.log('running:');
  for (const s of running) console.log(`  ${s.sessionId} on ${s.daemon}`);
  for (const u of unreachable) console.log(`  ${u.daemon} did not answer (${u.error.code})`);

  // A fleet that did not start a session (say, after a restart of this
  // process) finds it by asking every daemon.
  const other = new BridgeFleet({ daemons });
  const found = await other.getSession(sessions[0]);
  console.log(`another fleet found ${found.sessionId} on ${found.daemon}`);
  other.close();

  for (const id of sessions) await fleet.stopSession(id);
  console.log(`stopped ${sessions.length} sessions`);
} finally {
  fleet.close();
}
