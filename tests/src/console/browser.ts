/**
 * What the console's browser tests share: a real headless Chromium (Debian's
 * package, driven by puppeteer-core, which downloads no browser), an
 * accessibility check with axe-core in the page, and screenshots kept as CI
 * artifacts under test-artifacts/console/.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

/** The browser, or an error saying what to install: a browser test never skips. */
function chromiumPath(): string {
  const found = [process.env.CHROMIUM_BIN ?? '', ...CANDIDATES].find((p) => p && existsSync(p));
  if (!found) {
    throw new Error(
      "chromium is not installed: run `node scripts/ensure-chromium.mjs` (as root it installs Debian's chromium), or set CHROMIUM_BIN",
    );
  }
  return found;
}

export function launchBrowser(): Promise<Browser> {
  return puppeteer.launch({
    executablePath: chromiumPath(),
    headless: true,
    // Root (CI's containers) cannot use Chromium's sandbox; /dev/shm is small there.
    args: [
      ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
      '--disable-dev-shm-usage',
      '--disable-gpu',
    ],
    protocolTimeout: 60_000,
  });
}

const ARTIFACTS = join(dirname(fileURLToPath(import.meta.url)), '../../../test-artifacts/console');

/** Saves a full-page screenshot as test-artifacts/console/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({
    path: join(ARTIFACTS, `${name}.png`) as `${string}.png`,
    fullPage: true,
  });
}

const axeSource = readFileSync(
  createRequire(import.meta.url).resolve('axe-core/axe.min.js'),
  'utf8',
);

/** Runs axe-core on the page as it is now: the serious and critical violations, described. */
export async function seriousViolations(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol: the page's own CSP would refuse a script tag.
  await page.evaluate(axeSource);
  // A string: it runs in the page, where axe and document are (this program has no DOM types).
  const violations = (await page.evaluate(`axe.run(document).then((r) =>
    r.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      targets: v.nodes.map((n) => n.target.join(' ')),
    })))`)) as { id: string; impact: string; help: string; targets: string[] }[];
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.targets.join(', ')}`);
}
