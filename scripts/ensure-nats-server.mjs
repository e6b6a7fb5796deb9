#!/usr/bin/env node
// `node scripts/ensure-nats-server.mjs`: makes sure nats-server (JetStream
// built in) is installed, for the tests that start real NATS clusters. When
// it is missing and this runs as root on Debian, it installs Debian's
// `nats-server` package with apt-get; otherwise it fails at once, saying
// exactly what to install. It never downloads a binary of its own.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const candidates = [
  process.env.NATS_SERVER_BIN,
  ...(process.env.PATH ?? '')
    .split(':')
    .filter(Boolean)
    .map((d) => join(d, 'nats-server')),
  '/usr/sbin/nats-server',
  '/usr/bin/nats-server',
  '/usr/local/bin/nats-server',
].filter(Boolean);

const found = () => candidates.find((p) => existsSync(p));

function version(bin) {
  return execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim();
}

let bin = found();
if (!bin) {
  const root = process.getuid?.() === 0;
  const apt = existsSync('/usr/bin/apt-get');
  if (!root || !apt) {
    console.error(
      `nats-server is not installed, and this ${root ? 'host has no apt-get' : 'is not root'}: install Debian's package (apt-get install nats-server), or put nats-server 2.9 or newer on PATH (or set NATS_SERVER_BIN)`,
    );
    process.exit(1);
  }
  console.log('nats-server: installing the Debian package (apt-get install nats-server)');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  let r = spawnSync('apt-get', ['install', '-y', '--no-install-recommends', 'nats-server'], {
    stdio: 'inherit',
    env,
  });
  if (r.status !== 0) {
    // A fresh machine may not have the package lists yet.
    spawnSync('apt-get', ['update'], { stdio: 'inherit', env });
    r = spawnSync('apt-get', ['install', '-y', '--no-install-recommends', 'nats-server'], {
      stdio: 'inherit',
      env,
    });
  }
  bin = found();
  if (r.status !== 0 || !bin) {
    console.error('nats-server: apt-get install nats-server failed (see above)');
    process.exit(1);
  }
}
console.log(`nats-server: ${bin} (${version(bin)})`);
