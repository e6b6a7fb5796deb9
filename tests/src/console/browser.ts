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
import {
  ASSETS_DIR,
  type ConsoleTarget,
  type RunningConsole,
  startConsole,
} from '@agent-bridge/bridgectl';
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

function launchBrowser(): Promise<Browser> {
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

/** What a console test does with its page (both given late: they exist once `beforeAll` ran). */
export function consoleView(page: () => Page, origin: () => string) {
  return {
    /** Waits until the page's text contains `text`; fails with what it shows otherwise. */
    async seeText(text: string, timeout = 30_000): Promise<void> {
      try {
        await page().waitForFunction(
          `document.body.textContent.includes(${JSON.stringify(text)})`,
          { timeout },
        );
      } catch (err) {
        const shown = await page().evaluate('document.body.textContent');
        throw new Error(
          `the page did not show "${text}" within ${timeout} ms; it shows:\n${shown}`,
          { cause: err },
        );
      }
    },
    /** Waits until `expression` (run in the page) is true. */
    async until(expression: string, timeout = 30_000): Promise<void> {
      await page().waitForFunction(expression, { timeout });
    },
    /** Opens the console's view `hash` (e.g. "#/sessions"). */
    async go(hash: string): Promise<void> {
      await page().goto(`${origin()}/${hash}`);
      await page().waitForSelector('main h1', { timeout: 15_000 });
    },
    async clickButton(label: string): Promise<void> {
      const handle = await page().waitForSelector(`::-p-aria(${label}[role="button"])`, {
        timeout: 10_000,
      });
      await handle?.click();
    },
  };
}

/** A console for `target` (as project "alpha") or for projects, and a browser page signed in to it. */
export async function openConsole(
  target: ConsoleTarget | ReadonlyMap<string, ConsoleTarget>,
): Promise<{ ui: RunningConsole; browser: Browser; page: Page }> {
  const projects = target instanceof Map ? target : new Map([['alpha', target as ConsoleTarget]]);
  const ui = await startConsole({ projects, assetsDir: ASSETS_DIR });
  const browser = await launchBrowser();
  const page = await browser.newPage();
  await page.setBypassCSP(false);
  await page.setViewport({ width: 1200, height: 900 });
  await page.goto(ui.signInUrl);
  await page.waitForSelector('h1', { timeout: 15_000 });
  return { ui, browser, page };
}

/** The daemon the console tests drive: a repo in its scratch, and mock_ask asking for each tool. */
export function consoleDaemon(scratch: string) {
  mkdirSync(join(scratch, 'repo'));
  return {
    config: {
      allowed_paths: [scratch],
      providers: { mock_ask: { adapter: 'mock', permissions: 'ask', permission_timeout: '60s' } },
    },
  };
}
