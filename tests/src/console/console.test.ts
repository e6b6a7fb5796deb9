import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { BridgeClient, permissionRequest, permissionResolution } from '@agent-bridge/bridgeclient';
import { daemonTarget, type RunningConsole } from '@agent-bridge/bridgectl';
import { startTcpProxy, type TcpProxy, useDaemon, waitFor, within } from '@agent-bridge/harness';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { clientOptions } from '../sdk/helpers.js';
import {
  consoleDaemon,
  consoleView,
  openConsole,
  screenshot,
  seriousViolations,
} from './browser.js';

const daemon = useDaemon(consoleDaemon);

let proxy: TcpProxy;
let client: BridgeClient;
let sdk: BridgeClient;
let ui: RunningConsole;
let browser: Browser;
let page: Page;
const repo = () => join(daemon.scratch, 'repo');

beforeAll(async () => {
  proxy = await startTcpProxy(daemon.daemon.port);
  client = new BridgeClient(clientOptions(daemon, { target: `127.0.0.1:${proxy.port}` }));
  // A second client, straight to the daemon: "elsewhere" for the console.
  sdk = new BridgeClient(clientOptions(daemon));
  ({ ui, browser, page } = await openConsole(daemonTarget(client, 'test daemon')));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await ui?.close();
  client?.close();
  sdk?.close();
  await proxy?.close();
});

const { seeText, until, go, clickButton } = consoleView(
  () => page,
  () => ui.origin,
);

async function expectAccessible(): Promise<void> {
  expect(await seriousViolations(page)).toEqual([]);
}

/** The seqs of the raw events view, in the order shown. */
async function rawSeqs(): Promise<number[]> {
  return page.$$eval('.raw li', (lis) => lis.map((li) => Number(li.getAttribute('data-seq'))));
}

/** How many times `text` occurs in the text of the page's conversation (all the page without one). */
async function occurrences(text: string): Promise<number> {
  const shown = String(
    await page.evaluate("(document.querySelector('.chat') ?? document.body).textContent"),
  );
  return shown.split(text).length - 1;
}

/** One HTTP request to the console, every header as given (Host too). */
function request(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  const { port } = new URL(ui.origin);
  return within(
    `${method} ${path}`,
    new Promise((resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port,
          method,
          path,
          headers: { host: `127.0.0.1:${port}`, ...headers },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (d: string) => {
            text += d;
          });
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }),
          );
        },
      );
      req.on('error', reject);
      req.end(body);
    }),
  );
}

/** The request of session `id` that waits for an answer, read by the other client. */
async function waitingRequestOf(id: string): Promise<string> {
  let found: string | undefined;
  await waitFor('a waiting permission request', async () => {
    const { lastSeq } = await sdk.getSession(id);
    const stream = sdk.events(id, { afterSeq: 0 });
    const waiting = new Set<string>();
    for await (const e of stream) {
      const r = permissionRequest(e);
      if (r) waiting.add(r.requestId);
      const done = permissionResolution(e);
      if (done) waiting.delete(done.requestId);
      if (e.seq >= lastSeq) break;
    }
    found = [...waiting][0];
    return found !== undefined;
  });
  return found as string;
}

/** A mock session started by the other client, its page open in the console. */
async function openSession(provider = 'mock', name?: string): Promise<string> {
  const { sessionId } = await sdk.startSession({
    provider,
    repoPath: repo(),
    ...(name ? { name } : {}),
  });
  await go(`#/sessions/${sessionId}`);
  await seeText('Events: live');
  // The input box is enabled once the page knows the session runs (its own call, not the feed).
  await until("document.querySelector('#input-text')?.disabled === false");
  return sessionId;
}

// Each wait of the page has its own bound (30 s); a test takes several.
describe('the web console', { timeout: 120_000 }, () => {
  beforeEach(async () => {
    await page.setViewport({ width: 1200, height: 900 });
  });

  it('signs in once with the printed link and shows the daemon', async () => {
    await seeText('serving');
    await seeText('mock_ask');
    await expectAccessible();
    await screenshot(page, 'overview');
    // The link worked once: opened again without the cookie, it is refused.
    const again = await fetch(ui.signInUrl, { redirect: 'manual' });
    expect(again.status).toBe(403);
    expect(await again.text()).toContain('each link works once');
  });

  it('starts a mock task from the sessions page and streams it to its end', async () => {
    await go('#/sessions');
    await page.waitForSelector('#start-repo', { timeout: 15_000 });
    await page.type('#start-repo', repo());
    await page.type('#start-prompt', 'hello console');
    await expectAccessible();
    await screenshot(page, 'sessions');
    await clickButton('Start task');
    await until("location.hash.startsWith('#/sessions/')");
    await seeText('received "hello console"');
    await seeText('Turn done');
    await seeText('Session stopped');
    await seeText('Events: ended');
    await expectAccessible();
    await screenshot(page, 'session');
    await clickButton('Raw events');
    const seqs = await rawSeqs();
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    expect(seqs.length).toBeGreaterThan(4);
  });
  it('answers an approval of mock_ask, sees the tool run, and drops one answered elsewhere', async () => {
    const id = await openSession('mock_ask', 'asker');
    await page.type('#input-text', 'look around\n/tool Bash ls -la');
    await clickButton('Send');
    await go('#/approvals');
    await seeText('ls -la');
    await seeText('Allow once');
    expect(await occurrences('Bash')).toBeGreaterThan(0);
    await expectAccessible();
    await screenshot(page, 'approvals');
    await clickButton('Allow once');
    await seeText('No permission request waits for an answer.');
    await go(`#/sessions/${id}`);
    await seeText('allow once by caller');
    await seeText('Bash was allowed');

    // Answered by another client while the page shows it: it goes away by itself.
    await sdk.sendInput(id, 'again\n/tool Bash pwd');
    await go('#/approvals');
    await seeText('pwd');
    const requestId = await waitingRequestOf(id);
    await sdk.respondPermission(id, requestId, 'deny', { reason: 'not now' });
    await seeText('No permission request waits for an answer.');
    await go(`#/sessions/${id}`);
    await seeText('deny by caller: not now');
    await sdk.stopSession(id);
  });

  it('interrupts a turn and stops the session', async () => {
    const id = await openSession();
    await page.type('#input-text', 'a slow answer please');
    await clickButton('Send');
    await until('document.querySelector(\'.msg.agent[aria-busy="true"]\') !== null');
    await clickButton('Interrupt turn');
    await seeText('interrupted');
    await clickButton('Stop session');
    await seeText('Session stopped');
    await seeText('Events: ended');
    expect((await sdk.getSession(id)).status).toMatch(/STOPP(ING|ED)/);
  });

  it('resumes after the daemon connection drops, showing every event once', async () => {
    const id = await openSession();
    await page.type('#input-text', 'before the cut');
    await clickButton('Send');
    await seeText('received "before the cut"');
    const cuts = proxy.cuts;
    expect(proxy.cutAll()).toBeGreaterThan(0);
    await page.type('#input-text', 'after the cut');
    await clickButton('Send');
    await seeText('received "after the cut"');
    expect(proxy.cuts).toBeGreaterThan(cuts);
    expect(await occurrences('received "before the cut"')).toBe(1);
    expect(await occurrences('received "after the cut"')).toBe(1);
    await clickButton('Raw events');
    const seqs = await rawSeqs();
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    expect(seqs.at(-1)).toBe((await sdk.getSession(id)).lastSeq);
    await sdk.stopSession(id);
  });

  it('resumes after the browser connection drops, from the last seq it showed, nothing twice', async () => {
    const id = await openSession();
    await page.type('#input-text', 'before the drop');
    await clickButton('Send');
    await seeText('received "before the drop"');
    // The turn is over: nothing more comes until the next input.
    await seeText('Turn done');
    const shown = Number(
      /last seq (\d+)/.exec(String(await page.evaluate('document.body.textContent')))?.[1],
    );
    expect(shown).toBeGreaterThan(0);
    const resumedFrom: string[] = [];
    const watch = (req: IncomingMessage) => {
      if (req.url?.startsWith(`/api/sessions/${id}/events`)) {
        resumedFrom.push(String(req.headers['last-event-id']));
      }
    };
    ui.server.on('request', watch);
    // Every connection of the browser to the console is cut, its feed with them.
    ui.server.closeAllConnections();
    await sdk.sendInput(id, 'while cut off');
    await seeText('received "while cut off"');
    ui.server.off('request', watch);
    // The browser came back from the last seq it had, not from the start.
    expect(resumedFrom[0]).toBe(String(shown));
    await seeText('Events: live');
    expect(await occurrences('received "before the drop"')).toBe(1);
    expect(await occurrences('received "while cut off"')).toBe(1);
    await clickButton('Raw events');
    const seqs = await rawSeqs();
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    await sdk.stopSession(id);
  });

  it('shows what an agent wrote as text: HTML, scripts and javascript: links do nothing', async () => {
    await openSession();
    const hostile =
      '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script> [click](javascript:window.__pwned=3) <a href="javascript:window.__pwned=4">x</a>';
    await page.type('#input-text', hostile);
    await clickButton('Send');
    await seeText(`received "${hostile}"`);
    expect(await occurrences('<script>window.__pwned=2</script>')).toBe(2);
    expect(
      await page.evaluate(
        'document.querySelectorAll(\'main img, main script, main a[href^="javascript"]\').length',
      ),
    ).toBe(0);
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
  });

  it('can be used with the keyboard alone, focus always visible', async () => {
    await go('#/');
    const focused = () =>
      page.evaluate('document.activeElement?.id || document.activeElement?.textContent');
    const tabTo = async (target: string) => {
      for (let i = 0; i < 20; i++) {
        await page.keyboard.press('Tab');
        if ((await focused()) === target) {
          // The focused element shows it.
          expect(
            await page.evaluate('getComputedStyle(document.activeElement).outlineStyle'),
          ).not.toBe('none');
          return;
        }
      }
      throw new Error(`Tab never reached ${target} (last: ${await focused()})`);
    };
    await tabTo('Sessions');
    await page.keyboard.press('Enter');
    await until("location.hash === '#/sessions' && document.activeElement?.id === 'main'");
    await page.waitForSelector('#start-repo', { timeout: 15_000 });
    await tabTo('start-repo');
    await page.keyboard.type(repo());
    await tabTo('start-prompt');
    await page.keyboard.type('typed without a mouse');
    await tabTo('Start task');
    await page.keyboard.press('Enter');
    await until("location.hash.startsWith('#/sessions/') && location.hash.length > 12");
    await seeText('received "typed without a mouse"');
  });

  it('fits a phone: 390 by 844, nothing wider than the screen', async () => {
    await page.setViewport({ width: 390, height: 844, isMobile: true, hasTouch: true });
    await go('#/');
    await seeText('serving');
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await screenshot(page, 'phone-overview');
    await openSession();
    await page.type('#input-text', 'hello from a phone');
    await clickButton('Send');
    await seeText('received "hello from a phone"');
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await expectAccessible();
    await screenshot(page, 'phone-session');
  });
  it('refuses foreign hosts, origins and sites, and calls without both the cookie and the page key; nothing changes', async () => {
    const port = new URL(ui.origin).port;
    const [cookie] = await page.cookies();
    expect(cookie).toMatchObject({
      name: `bridge_console_${port}`,
      httpOnly: true,
      sameSite: 'Strict',
    });
    const jar = `${cookie?.name}=${cookie?.value}`;
    const key = String(await page.evaluate("localStorage.getItem('bridge-console-key')"));
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const origin = `http://127.0.0.1:${port}`;
    const start = JSON.stringify({ provider: 'mock', repoPath: repo() });
    const json = { 'content-type': 'application/json' };
    const before = (await sdk.listSessions()).sessions.length;

    // What the page does is allowed: the checks do not refuse everything.
    const page0 = await request('GET', '/', { cookie: jar });
    expect(page0.status).toBe(200);
    const csp = page0.headers['content-security-policy'] as string;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(
      (await request('GET', '/api/overview', { cookie: jar, 'x-console-key': key })).status,
    ).toBe(200);

    const cases: [string, string, string, Record<string, string>, number, string][] = [
      ['the page without the cookie', 'GET', '/', {}, 401, 'not signed in'],
      [
        'a rebound DNS name',
        'GET',
        '/api/overview',
        { cookie: jar, 'x-console-key': key, host: `evil.example:${port}` },
        421,
        'answers to 127.0.0.1 only',
      ],
      ['no cookie', 'GET', '/api/overview', { 'x-console-key': key }, 401, 'not signed in'],
      [
        'a forged cookie',
        'GET',
        '/api/overview',
        { cookie: `bridge_console_${port}=forged`, 'x-console-key': key },
        401,
        'not signed in',
      ],
      ['the cookie alone', 'GET', '/api/overview', { cookie: jar }, 403, 'page key'],
      [
        'a wrong key',
        'GET',
        '/api/overview',
        { cookie: jar, 'x-console-key': 'x'.repeat(43) },
        403,
        'page key',
      ],
      [
        'a cross-site fetch',
        'GET',
        '/api/overview',
        { cookie: jar, 'x-console-key': key, 'sec-fetch-site': 'cross-site' },
        403,
        'cross-site',
      ],
      [
        'another port of 127.0.0.1',
        'GET',
        '/api/overview',
        { cookie: jar, 'x-console-key': key, 'sec-fetch-site': 'same-site' },
        403,
        'same-site',
      ],
      [
        'a foreign origin',
        'POST',
        '/api/sessions',
        { ...json, cookie: jar, 'x-console-key': key, origin: 'http://evil.example' },
        403,
        'cross-site request refused',
      ],
      ['no page key', 'POST', '/api/sessions', { ...json, cookie: jar, origin }, 403, 'page key'],
      [
        'no origin',
        'POST',
        '/api/sessions',
        { ...json, cookie: jar, 'x-console-key': key },
        403,
        'must say its origin',
      ],
      [
        'no cookie, with the key',
        'POST',
        '/api/sessions',
        { ...json, origin, 'x-console-key': key },
        401,
        'not signed in',
      ],
      [
        'a form post',
        'POST',
        '/api/sessions',
        {
          cookie: jar,
          origin,
          'x-console-key': key,
          'content-type': 'application/x-www-form-urlencoded',
        },
        415,
        'application/json',
      ],
      [
        'a wrong method',
        'DELETE',
        '/api/sessions',
        { cookie: jar, origin, 'x-console-key': key },
        405,
        'not allowed',
      ],
      ['a broken path', 'GET', '//[', { cookie: jar }, 400, 'not a valid request path'],
    ];
    for (const [what, method, path, headers, status, message] of cases) {
      const res = await request(method, path, headers, method === 'POST' ? start : undefined);
      expect({ what, status: res.status }).toEqual({ what, status });
      expect(JSON.parse(res.body).error, what).toContain(message);
    }
    expect((await sdk.listSessions()).sessions.length).toBe(before);
  });
  it('posts to the context bus as a person, messages an agent, and shows the inbox', async () => {
    const { sessionId } = await sdk.startSession({
      provider: 'mock',
      repoPath: repo(),
      name: 'helper',
    });
    await go('#/collab');
    await page.waitForSelector('#post-content', { timeout: 15_000 });
    await page.type('#post-category', '-decision');
    await page.type('#post-content', 'use <b>tabs</b>, not spaces');
    await clickButton('Post');
    await seeText('use <b>tabs</b>, not spaces');
    expect(await page.evaluate("document.querySelectorAll('.posts b').length")).toBe(0);
    // Another party's post comes in by itself.
    await sdk.context.post({ category: 'finding', content: 'the build is green' });
    await seeText('the build is green');

    await page.type('#msg-to', 'helper');
    await page.type('#msg-content', 'please look at the tests');
    await clickButton('Send message');
    await seeText('Sent to helper.');
    await waitFor('the agent to answer the message it got as a turn', async () => {
      const { lastSeq } = await sdk.getSession(sessionId);
      const seen: string[] = [];
      for await (const e of sdk.events(sessionId, { afterSeq: 0 })) {
        seen.push(e.type);
        if (e.seq >= lastSeq) break;
      }
      return seen.includes('MESSAGE_RECEIVED') && seen.includes('TURN_COMPLETED');
    });

    await sdk.messages.send({ person: 'sdk-test' }, 'a word for the person');
    await go('#/collab');
    await seeText('a word for the person');
    await expectAccessible();
    await screenshot(page, 'collab');
    await sdk.stopSession(sessionId);
  });
});
