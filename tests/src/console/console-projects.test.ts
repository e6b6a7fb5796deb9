import { join } from 'node:path';
import { BridgeClient, NotFoundError } from '@agent-bridge/bridgeclient';
import { daemonTarget, type RunningConsole } from '@agent-bridge/bridgectl';
import { useDaemon, waitFor } from '@agent-bridge/harness';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientOptions } from '../sdk/helpers.js';
import {
  consoleDaemon,
  consoleView,
  openConsole,
  screenshot,
  seriousViolations,
} from './browser.js';

const daemon = useDaemon(consoleDaemon);
const repo = () => join(daemon.scratch, 'repo');

const as = (projectId: string) => new BridgeClient(clientOptions(daemon, { jwt: { projectId } }));
let clients: BridgeClient[] = [];
/** Straight to the daemon, each as its project: "elsewhere" for the console. */
let alpha: BridgeClient;
let beta: BridgeClient;
let ui: RunningConsole;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  const [forAlpha, forBeta] = [as('alpha'), as('beta')];
  [alpha, beta] = [as('alpha'), as('beta')];
  clients = [forAlpha, forBeta, alpha, beta];
  ({ ui, browser, page } = await openConsole(
    new Map([
      ['alpha', daemonTarget(forAlpha, 'test daemon')],
      ['beta', daemonTarget(forBeta, 'test daemon')],
    ]),
  ));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await ui?.close();
  for (const c of clients) c.close();
});

const { seeText, until, go, clickButton } = consoleView(
  () => page,
  () => ui.origin,
);

/** The session ids the sessions page lists now. */
const listed = () =>
  page.$$eval('.sessions li a', (as) => as.map((a) => a.getAttribute('href')?.slice(11) ?? ''));

// Each wait of the page has its own bound (30 s); a test takes several.
describe('the web console over two projects', { timeout: 120_000 }, () => {
  it('counts each project on the overview and filters the sessions list by project', async () => {
    const inAlpha = await alpha.startSession({ provider: 'mock', repoPath: repo() });
    const inBeta = await Promise.all(
      [1, 2].map(() => beta.startSession({ provider: 'mock', repoPath: repo() })),
    );
    await go('#/');
    await waitFor('the overview to count both projects', async () => {
      const rows = await page.$$eval('#states-h ~ div tbody tr', (trs) =>
        trs.map((tr) => tr.textContent ?? ''),
      );
      // Project, starting, running, …: alpha runs one, beta two.
      return rows[0] === 'alpha01000' && rows[1] === 'beta02000';
    });
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'projects-overview');

    await go('#/sessions');
    await page.waitForSelector('#f-project', { timeout: 15_000 });
    await waitFor('both projects listed', async () => (await listed()).length === 3);
    await page.select('#f-project', 'beta');
    await waitFor('beta alone listed', async () => {
      const ids = await listed();
      return ids.length === 2 && inBeta.every((s) => ids.includes(s.sessionId));
    });
    await page.select('#f-project', 'alpha');
    await waitFor('alpha alone listed', async () => {
      const ids = await listed();
      return ids.length === 1 && ids[0] === inAlpha.sessionId;
    });
    for (const s of [inAlpha, ...inBeta]) {
      await (s === inAlpha ? alpha : beta).stopSession(s.sessionId);
    }
  });

  it('starts a task in the project picked, and answers its approval there', async () => {
    await go('#/sessions');
    await page.waitForSelector('#start-project', { timeout: 15_000 });
    await page.select('#start-project', 'beta');
    await page.select('#start-provider', 'mock_ask');
    await page.type('#start-repo', repo());
    await page.type('#start-prompt', '/tool Bash echo in-beta');
    await clickButton('Start task');
    await until("location.hash.startsWith('#/sessions/')");
    await seeText('project beta');
    const id = decodeURIComponent(String(await page.evaluate('location.hash')).slice(11));
    // It is beta's: alpha's token does not find it.
    expect((await beta.getSession(id)).projectId).toBe('beta');
    await expect(alpha.getSession(id)).rejects.toBeInstanceOf(NotFoundError);
    await go('#/approvals');
    await seeText('echo in-beta');
    await seeText('project beta');
    await clickButton('Allow once');
    await seeText('No permission request waits for an answer.');
    await go(`#/sessions/${id}`);
    await seeText('Bash was allowed');
  });

  it('keeps each project its own context bus', async () => {
    await go('#/collab');
    await page.waitForSelector('#collab-project', { timeout: 15_000 });
    await page.select('#collab-project', 'beta');
    await page.waitForSelector('#post-content', { timeout: 15_000 });
    await page.type('#post-category', 'finding');
    await page.type('#post-content', 'beta only');
    await clickButton('Post');
    await seeText('beta only');
    expect((await beta.context.read({})).posts.map((p) => p.content)).toContain('beta only');
    expect((await alpha.context.read({})).posts.map((p) => p.content)).not.toContain('beta only');
    await page.select('#collab-project', 'alpha');
    await seeText('Nothing posted yet.');
  });
});
