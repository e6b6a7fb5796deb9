import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  bearer,
  call,
  connect,
  createTestPki,
  mintToken,
  sessionClient,
  startDaemon,
  type TestDaemon,
  type TestPki,
  waitFor,
  within,
} from '@agent-bridge/harness';
import {
  type BridgeServiceClient,
  EventType,
  type PermissionDecision,
  ProbeState,
  type ProviderInfo,
  type RespondPermissionResponse,
} from '@agent-bridge/proto';
import type { Metadata } from '@grpc/grpc-js';

export { ofType, showEvents as show, turnsDone } from '@agent-bridge/harness';
export * from './contract-expectations.js';

/** The pinned CLIs, installed by scripts/install-clis.mjs. */
export const CLI_BIN = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  'clis',
  'node_modules',
  '.bin',
);
export const T = EventType;

/** A temporary HOME (and scratch space) for one CLI, removed by `cleanup`. */
export function tempHome(name: string): { home: string; cleanup(): void } {
  const home = realpathSync(mkdtempSync(join(tmpdir(), `contract-${name}-`)));
  return { home, cleanup: () => rmSync(home, { recursive: true, force: true }) };
}

export function writeFile(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/**
 * A CODEX_HOME in `dir` whose config.toml points codex at a loopback
 * OpenAI Responses fake (`baseUrl`) as a custom model provider, its key
 * read from FAKE_KEY, with no retries; returns `dir`.
 */
export function codexHomeFor(dir: string, baseUrl: string): string {
  writeFile(
    join(dir, 'config.toml'),
    [
      'model = "fake-model"',
      'model_provider = "fake"',
      '[model_providers.fake]',
      'name = "fake"',
      `base_url = "${baseUrl}/v1"`,
      'env_key = "FAKE_KEY"',
      'wire_api = "responses"',
      'request_max_retries = 0',
      'stream_max_retries = 0',
      '',
    ].join('\n'),
  );
  return dir;
}

/**
 * The environment of the real opencode with its bundled @ai-sdk/anthropic
 * provider pointed at an Anthropic Messages fake (OPENCODE_CONFIG_CONTENT),
 * nothing fetched or updated from the network.
 */
export function opencodeEnv(baseUrl: string, key: string, home: string): Record<string, string> {
  return {
    HOME: home,
    OPENCODE_CONFIG_CONTENT: JSON.stringify({
      provider: {
        fake: {
          npm: '@ai-sdk/anthropic',
          options: { baseURL: `${baseUrl}/v1`, apiKey: key },
          models: { m: {} },
        },
      },
      model: 'fake/m',
    }),
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
  };
}

/** What a restarted daemon takes over from the one it replaces. */
interface Earlier {
  pki: TestPki;
  scratch: string;
  dir: string;
}

/**
 * A daemon over mTLS with the given providers, and a client for project
 * "alpha"; with `earlier`, started again on an earlier daemon's directory
 * (its store, repository and PKI).
 */
export async function contractDaemon(
  providers: Record<string, Record<string, unknown>>,
  earlier?: Earlier,
): Promise<ContractDaemon> {
  const pki = earlier?.pki ?? (await createTestPki());
  // Each CLI gets its own TMPDIR, removed on close: opencode unpacks a 5 MB
  // native library into the temp directory on every start, gemini writes an
  // error report there on every API error, claude and codex leave folders.
  const scratch = earlier?.scratch ?? realpathSync(mkdtempSync(join(tmpdir(), 'contract-tmp-')));
  const withTmp = Object.fromEntries(
    Object.entries(providers).map(([id, p]) => {
      const dir = join(scratch, id);
      mkdirSync(dir, { recursive: true });
      const env = (p.env ?? {}) as Record<string, string>;
      return [id, { ...p, env: { TMPDIR: dir, ...env } }];
    }),
  );
  const daemon: TestDaemon = await startDaemon({
    pki,
    ...(earlier ? { dir: earlier.dir } : {}),
    config: { sessions: { max_per_project: 20, max_global: 20 }, providers: withTmp },
  });
  // Some CLIs want a git repository (codex warns, claude records the branch).
  if (!earlier) execFileSync('git', ['init', '-q', daemon.repo]);
  const client: BridgeServiceClient = connect({
    port: daemon.port,
    caPem: pki.ca.certPem,
    client: pki.client,
  });
  // Tokens live at most 5 minutes (the daemon's jwt_max_ttl): renew as a client would.
  let minted = 0;
  let current = bearer('');
  const renew = async () => {
    if (Date.now() - minted > 120_000) {
      current = bearer(
        await mintToken({
          privatePem: pki.issuers.control.privatePem,
          project: 'alpha',
          ttl: 300,
          bindCertPem: pki.client.certPem,
        }),
      );
      minted = Date.now();
    }
    return current;
  };

  // Real CLIs and their turns take seconds; a turn that hangs ends at its
  // turn_timeout (up to 90 s); eight opencode started at once on two cores
  // took over two minutes.
  const sessions = sessionClient(client, renew, {
    projectId: 'alpha',
    repoPath: daemon.repo,
    eventsTimeoutMs: 100_000,
    startTimeoutMs: 250_000,
  });
  return {
    daemon,
    client,
    auth: renew,
    providers: sessions.providers,
    /**
     * A provider as ListProviders shows it once its background probes have
     * answered: the first answer may be PENDING while a slow CLI's
     * `--version` or auth check runs (or is retried, on a busy host).
     */
    probed: async (id: string): Promise<ProviderInfo> => {
      let last: ProviderInfo | undefined;
      await waitFor(
        () => `${id}'s probes to answer (last: ${last?.probeDetail ?? 'not listed'})`,
        async () => {
          last = (await sessions.providers()).providers.find((p) => p.id === id);
          return last !== undefined && last.probeState !== ProbeState.PROBE_STATE_PENDING;
        },
        120_000,
        250,
      );
      return last!;
    },
    start: sessions.start,
    session: sessions.session,
    /** RespondPermission as the test's client (subject "tester", issuer "control"). */
    respond: async (
      sessionId: string,
      requestId: string,
      decision: PermissionDecision,
      reason = '',
    ) =>
      call(
        client,
        (c) => c.respondPermission,
        { sessionId, requestId, decision, reason },
        await renew(),
      ),
    /**
     * SIGKILLs the daemon (its agents die with it) and starts a new one on
     * its store; use the new one from then on (this one must not be closed).
     */
    killAndRestart: async (): Promise<ContractDaemon> => {
      daemon.proc.kill('SIGKILL');
      await within('the daemon to die', daemon.exited, 30_000);
      client.close();
      return contractDaemon(providers, { pki, scratch, dir: daemon.dir });
    },
    close: async () => {
      client.close();
      await daemon.stop();
      // createTestPki leaves its directory (certificates, keys) behind.
      rmSync(pki.dir, { recursive: true, force: true });
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}

export type ContractDaemon = {
  daemon: TestDaemon;
  client: BridgeServiceClient;
  /** Credentials of the test's caller (subject "tester", project "alpha"), renewed as needed. */
  auth(): Promise<Metadata>;
  providers: ReturnType<typeof sessionClient>['providers'];
  probed(id: string): Promise<ProviderInfo>;
  start: ReturnType<typeof sessionClient>['start'];
  session: ReturnType<typeof sessionClient>['session'];
  respond(
    sessionId: string,
    requestId: string,
    decision: PermissionDecision,
    reason?: string,
  ): Promise<RespondPermissionResponse>;
  killAndRestart(): Promise<ContractDaemon>;
  close(): Promise<void>;
};
