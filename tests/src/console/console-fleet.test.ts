/**
 * The web console over a fleet of two real daemons (one PKI, mutual TLS),
 * in a real headless Chromium: the overview shows each daemon, a task
 * started on the daemon the person picks runs there, the sessions list
 * says where each session lives, an approval waiting on either daemon is
 * answered from the one approvals page, and a daemon that stops answering
 * is shown as such while the other goes on serving.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BridgeFleet } from '@agent-bridge/bridgeclient';
import { fleetTarget, type RunningConsole } from '@agent-bridge/bridgectl';
import {
  createTestPki,
  startTcpProxy,
  type TcpProxy,
  type TestPki,
  useDaemon,
} from '@agent-bridge/harness';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientOptions } from '../sdk/helpers.js';
import { consoleView, openConsole, screenshot, seriousViolations } from './browser.js';

// One repository both daemons may work in: placement is free to choose.
const shared = realpathSync(mkdtempSync(join(tmpdir(), 'console-fleet-')));
const repo = join(shared, 'app');
mkdirSync(repo);

let pki: TestPki;
beforeAll(async () => {
  pki = await createTestPki();
});
const config = {
  allowed_paths: [shared],
  providers: { mock_ask: { adapter: 'mock', permissions: 'ask', permission_timeout: '60s' } },
};
const north = useDaemon(() => ({ pki, config }));
const south = useDaemon(() => ({ pki, config }));

let proxy: TcpProxy;
/** North, for the console: a proxy too, so that north can stop answering as well. */
let proxyNorth: TcpProxy;
/** The console's fleets, one per project (alpha, the console's own, and beta). */
let fleets: BridgeFleet[];
let sdk: BridgeFleet;
/** Project beta's fleet, straight to both daemons. */
let sdkBeta: BridgeFleet;
let ui: RunningConsole;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  // The console reaches south through a proxy that can stop answering.
  proxy = await startTcpProxy(south.daemon.port);
  proxyNorth = await startTcpProxy(north.daemon.port);
  const daemons = (southTarget: string, projectId: string, northTarget?: string) => [
    {
      name: 'north',
      ...clientOptions(north, {
        jwt: { projectId },
        ...(northTarget ? { target: northTarget } : {}),
      }),
    },
    { name: 'south', ...clientOptions(south, { target: southTarget, jwt: { projectId } }) },
  ];
  const direct = `127.0.0.1:${south.daemon.port}`;
  fleets = ['alpha', 'beta'].map(
    (p) => new BridgeFleet({ daemons: daemons(proxy.target, p, proxyNorth.target) }),
  );
  sdk = new BridgeFleet({ daemons: daemons(direct, 'alpha') });
  sdkBeta = new BridgeFleet({ daemons: daemons(direct, 'beta') });
  ({ ui, browser, page } = await openConsole(
    new Map([
      ['alpha', fleetTarget(fleets[0] as BridgeFleet, 'of north, south')],
      ['beta', fleetTarget(fleets[1] as BridgeFleet, 'of north, south')],
    ]),
  ));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await ui?.close();
  for (const f of fleets ?? []) f.close();
  sdk?.close();
  sdkBeta?.close();
  await proxy?.close();
  await proxyNorth?.close();
  rmSync(shared, { recursive: true, force: true });
});

const { seeText, go, clickButton } = consoleView(
  () => page,
  () => ui.origin,
);

// Each wait of the page has its own bound (30 s); a test takes several.
describe('the web console over a fleet', { timeout: 120_000 }, () => {
  it('shows each daemon of the fleet on the overview', async () => {
    await seeText('Fleet of north, south: 2 daemons.');
    await seeText('Daemon north');
    await seeText('Daemon south');
    expect(await page.$$eval('section.daemon', (s) => s.length)).toBe(2);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'fleet-overview');
  });

  it('starts a task on the daemon the person picks; the list says where each session lives', async () => {
    // South has less room than north: placement alone would pick north.
    const before = await Promise.all(
      (['north', 'south', 'south'] as const).map((daemon) =>
        sdk.startSession({ provider: 'mock', repoPath: repo, daemon }),
      ),
    );
    await go('#/sessions');
    await page.waitForSelector('#start-daemon', { timeout: 15_000 });
    await page.select('#start-daemon', 'south');
    await page.type('#start-repo', repo);
    await page.type('#start-prompt', 'hello fleet');
    await clickButton('Start task');
    await page.waitForFunction("location.hash.startsWith('#/sessions/')", { timeout: 30_000 });
    await seeText('received "hello fleet"');
    await seeText(' on south');
    const id = decodeURIComponent(String(await page.evaluate('location.hash')).slice(11));
    // It lives where it was put: the daemon itself has it.
    expect((await sdk.getSession(id)).daemon).toBe('south');
    await seeText('Session stopped');
    await go('#/sessions');
    await page.waitForSelector(`a[href="#/sessions/${id}"]`, { timeout: 30_000 });
    const rows = await page.$$eval('.sessions li', (lis) => lis.map((li) => li.textContent ?? ''));
    for (const s of before) {
      expect(rows.find((r) => r.includes(s.sessionId))).toContain(`on ${s.daemon}`);
    }
    expect(rows.find((r) => r.includes(id))).toContain('on south');
    expect(await seriousViolations(page)).toEqual([]);
    await Promise.all(before.map((s) => sdk.stopSession(s.sessionId)));
  });

  it('answers approvals waiting on either daemon from one page', async () => {
    const asks = await Promise.all(
      (['north', 'south'] as const).map(async (daemon) => {
        const s = await sdk.startSession({ provider: 'mock_ask', repoPath: repo, daemon });
        await sdk.sendInput(s.sessionId, `/tool Bash echo from-${daemon}`);
        return s.sessionId;
      }),
    );
    await go('#/approvals');
    await seeText('echo from-north');
    await seeText('echo from-south');
    // One at a time: each answer takes its request off the list.
    for (const left of [1, 0]) {
      await clickButton('Allow once');
      await page.waitForFunction(`document.querySelectorAll('li.approval').length === ${left}`, {
        timeout: 30_000,
      });
    }
    await seeText('No permission request waits for an answer.');
    for (const id of asks) {
      await go(`#/sessions/${id}`);
      await seeText('Bash was allowed');
      await sdk.stopSession(id);
    }
  });

  it('shows a daemon that stops answering, and goes on serving the other', async () => {
    proxy.mode = 'refuse';
    proxy.cutAll();
    try {
      await go('#/');
      await seeText('1 not answering');
      await seeText('unreachable');
      await seeText('Daemon north');
      await go('#/sessions');
      await seeText('Not listed: the sessions of south, which did not answer.');
      // North still takes new sessions, and placement does not try south.
      const started = await sdk.startSession({ provider: 'mock', repoPath: repo, daemon: 'north' });
      await page.waitForSelector(`a[href="#/sessions/${started.sessionId}"]`, { timeout: 30_000 });
      await sdk.stopSession(started.sessionId);
      // Project beta's approval on north is answered: alpha's fleet, which cannot tell where
      // the session is while south is away, does not stand in the way.
      const asking = await sdkBeta.startSession({
        provider: 'mock_ask',
        repoPath: repo,
        daemon: 'north',
      });
      await sdkBeta.sendInput(asking.sessionId, '/tool Bash echo from-beta');
      await go('#/approvals');
      await seeText('echo from-beta');
      await clickButton('Allow once');
      await seeText('No permission request waits for an answer.');
      await go(`#/sessions/${asking.sessionId}`);
      await seeText('Bash was allowed');
      await sdkBeta.stopSession(asking.sessionId);
    } finally {
      proxy.mode = 'forward';
    }
  });

  it('reads the context bus through the first daemon that answers, from its first post when that changes', async () => {
    const post = (daemon: string) =>
      sdk.clients.get(daemon)?.context.post({ category: 'finding', content: `kept on ${daemon}` });
    await post('north');
    await post('south');
    await go('#/collab');
    await seeText('Read and posted through daemon north.');
    await seeText('kept on north');
    proxyNorth.mode = 'refuse';
    proxyNorth.cutAll();
    try {
      await seeText('Read and posted through daemon south.');
      await seeText('kept on south');
      // North's posts, numbered its own way, are not mixed in with south's.
      await page.waitForFunction("!document.body.textContent.includes('kept on north')", {
        timeout: 30_000,
      });
    } finally {
      proxyNorth.mode = 'forward';
    }
  });
});
