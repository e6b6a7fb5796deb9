#!/usr/bin/env node
// `node scripts/ensure-chromium.mjs`: makes sure a Chromium is installed for
// the web console's browser tests (driven by puppeteer-core, which downloads
// no browser). When it is missing and this runs as root on Debian, it
// installs Debian's `chromium` package with apt-get; otherwise it fails at
// once with one line saying what to install. Set CHROMIUM_BIN to use another.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const candidates = [
  process.env.CHROMIUM_BIN,
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
].filter(Boolean);

const found = () => candidates.find((p) => existsSync(p));

if (!found()) {
  const root = process.getuid?.() === 0;
  const apt = existsSync('/usr/bin/apt-get');
  if (!root || !apt) {
    console.error(
      `chromium is not installed, and this ${root ? 'host has no apt-get' : 'is not root'}: install Debian's package (apt-get install chromium), or set CHROMIUM_BIN to a Chromium or Chrome`,
    );
    process.exit(1);
  }
  console.log('chromium: installing the Debian package (apt-get install chromium)');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = () =>
    spawnSync('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], {
      stdio: 'inherit',
      env,
    });
  let r = install();
  if (r.status !== 0) {
    // A fresh machine may not have the package lists yet.
    spawnSync('apt-get', ['update'], { stdio: 'inherit', env });
    r = install();
  }
  if (r.status !== 0 || !found()) {
    console.error('chromium: apt-get install chromium failed (see above)');
    process.exit(1);
  }
  console.log(`chromium: ${found()}`);
}
