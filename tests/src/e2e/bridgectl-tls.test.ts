// bridgectl's connection failures as a user meets them: a real child process
// against a real daemon over mutual TLS (with a CRL), its settings from a
// profile file. TLS refusals are exit 5 and say which certificate, file and
// flag; the network is exit 4; bad or exposed files are exit 3; each in one
// line that names bridgectl's flags and profile keys, never the SDK's options.
import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createTestPki,
  REPO_ROOT,
  startDaemon,
  type TestDaemon,
  type TestPki,
  writeCtlProfile,
} from '@agent-bridge/harness';
import { createCA, createCrl, issueCert } from '@agent-bridge/pki';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let pki: TestPki;
let daemon: TestDaemon;
let dir: string;
let profiles: string;

/** The environment of every run: only the temp profile file, no BRIDGECTL_* of the caller. */
function env(extra: Record<string, string>): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(out)) {
    if (k.startsWith('BRIDGECTL_') || k === 'INIT_CWD' || k === 'NODE_OPTIONS') delete out[k];
  }
  return { ...out, BRIDGECTL_PROFILES: profiles, ...extra };
}

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

function ctl(args: string[], extraEnv: Record<string, string> = {}): Promise<Result> {
  const entry = join(REPO_ROOT, 'cmd/bridgectl/src/main.ts');
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--conditions=development', '--import', 'tsx', entry, ...args],
      { cwd: REPO_ROOT, env: env(extraEnv), timeout: 60_000 },
      (error, stdout, stderr) => {
        if (error?.killed) reject(new Error(`${args.join(' ')} did not finish: ${stderr}`));
        else resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
      },
    );
  });
}

/** Exit `code`, nothing on stdout, and one line on stderr that matches every pattern. */
function expectOneLine(r: Result, code: number, ...patterns: RegExp[]): void {
  expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toMatchObject({
    code,
    stdout: '',
    stderr: expect.stringMatching(/^bridgectl: [^\n]+\n$/),
  });
  for (const p of patterns) expect(r.stderr).toMatch(p);
  // The SDK's option names and grpc-js's texts are not bridgectl's.
  expect(r.stderr).not.toMatch(
    /mtls\.(ca|cert|key|serverName)|jwt\.(privateKey|projectId|issuer|subject|keyId)|Resolution note|No connection established/,
  );
}

/** Writes `text` to a file of the test directory (mode 0600 unless given) and returns its path. */
function file(name: string, text: string, mode = 0o600): string {
  const p = join(dir, name);
  writeFileSync(p, text, { mode });
  chmodSync(p, mode);
  return p;
}

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

let revoked: { certPem: string; keyPem: string };

beforeAll(async () => {
  pki = await createTestPki();
  revoked = await issueCert({ type: 'client', cn: 'revoked-operator', ca: pki.ca });
  const crl = join(pki.dir, 'crl.pem');
  const serialHex = new X509Certificate(revoked.certPem).serialNumber.toLowerCase();
  writeFileSync(crl, await createCrl({ ca: pki.ca, revoked: [{ serialHex }] }));
  daemon = await startDaemon({ pki, config: { tls: { crl: [crl] } } });
  dir = mkdtempSync(join(tmpdir(), 'bridgectl-tls-'));
  profiles = writeCtlProfile(dir, daemon.port, pki);
});
afterAll(async () => {
  await daemon?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('bridgectl and TLS refusals', () => {
  it('a client certificate the daemon refuses (revoked, another CA, not for clients): exit 5, naming the file and its flag', async () => {
    const server = {
      certPem: readFileSync(pki.serverCertPath, 'utf8'),
      keyPem: readFileSync(pki.serverKeyPath, 'utf8'),
    };
    const cases = [
      ['revoked', revoked],
      ['rogue', pki.rogueClient],
      ['server', server],
    ] as const;
    const results = await Promise.all(
      cases.map(([name, c]) =>
        ctl([
          'health',
          '--cert',
          file(`${name}.crt`, c.certPem),
          '--key',
          file(`${name}.key`, c.keyPem),
        ]),
      ),
    );
    results.forEach((r, i) => {
      const cert = join(dir, `${cases[i]?.[0]}.crt`);
      expectOneLine(
        r,
        5,
        new RegExp(
          `^bridgectl: the daemon at 127\\.0\\.0\\.1:${daemon.port} \\(address of profile "dev" in ${esc(profiles)}\\) refused the client certificate ${esc(cert)} \\(--cert\\): it closed the connection right after the TLS handshake; revoked, expired, not issued by a CA the daemon trusts, or not a client certificate\\?`,
        ),
      );
    });
  });

  it('a daemon certificate this client refuses (--server-name, --ca): exit 5, naming the flag and the fix', async () => {
    const otherCa = file('other-ca.crt', (await createCA({ name: 'another CA' })).certPem);
    const [name, ca] = await Promise.all([
      ctl(['health', '--server-name', 'evil.example']),
      ctl(['health', '--ca', otherCa]),
    ]);
    expectOneLine(
      name,
      5,
      /^bridgectl: the daemon's certificate does not carry the name evil\.example: it carries DNS:localhost, IP Address:127\.0\.0\.1 \(the name comes from --server-name\): set --server-name \(profile key server_name\) to a name it carries\n$/,
    );
    expectOneLine(
      ca,
      5,
      new RegExp(
        `^bridgectl: the daemon's certificate is not trusted: .+: is ${esc(otherCa)} \\(--ca\\) the CA bundle of the daemon at 127\\.0\\.0\\.1:${daemon.port}\\?\\n$`,
      ),
    );
  });

  it('a daemon nobody answers for: exit 4, in one readable line', async () => {
    expectOneLine(
      await ctl(['health'], { BRIDGECTL_ADDRESS: '127.0.0.1:1' }),
      4,
      /^bridgectl: daemon unreachable at 127\.0\.0\.1:1 \(\$BRIDGECTL_ADDRESS\): connect ECONNREFUSED 127\.0\.0\.1:1\n$/,
    );
  });

  it('an IP address without server_name: the IP SAN checked, and no DEP0123 warning', async () => {
    const text = readFileSync(profiles, 'utf8').replace(/^ {4}server_name: .*\n/m, '');
    const byAddress = join(dir, 'by-address.yaml');
    writeFileSync(byAddress, text);
    expect(text).not.toContain('server_name');
    // The key files are named relative to the profile file, which sits beside them.
    const r = await ctl(['health'], { BRIDGECTL_PROFILES: byAddress });
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toMatch(/^serving /);
  });
});

describe('bridgectl and the files of its settings', () => {
  it('refuses a private key other users can read, as ssh does: exit 3, naming the file and chmod 600', async () => {
    const key = join(dir, 'client.key');
    chmodSync(key, 0o644);
    const jwt = file('open-jwt.key', pki.issuers.control.privatePem, 0o640);
    try {
      expectOneLine(
        await ctl(['health']),
        3,
        new RegExp(
          `^bridgectl: the client key ${esc(key)} \\(key of profile "dev" in ${esc(profiles)}\\) is open to other users \\(mode 0644\\); a private key must be yours alone: run \`chmod 600 ${esc(key)}\`\\n$`,
        ),
      );
      chmodSync(key, 0o600);
      expectOneLine(
        await ctl(['health', '--jwt-key', jwt]),
        3,
        new RegExp(
          `^bridgectl: the Ed25519 JWT signing key ${esc(jwt)} \\(--jwt-key\\) is open to other users \\(mode 0640\\).*: run \`chmod 600 ${esc(jwt)}\`\\n$`,
        ),
      );
    } finally {
      chmodSync(key, 0o600);
    }
  });

  it('names the flag of a file that is not what it should be, never an SDK option: exit 3; a bad address exit 2', async () => {
    const [notPem, unreadableCa, notEd25519, otherKey, badAddress] = await Promise.all([
      ctl(['health', '--ca', file('not-pem.crt', 'just text\n')]),
      ctl(['health', '--ca', join(dir, 'no-such-ca.crt')]),
      ctl(['health', '--jwt-key', file('ec-jwt.key', pki.client.keyPem)]),
      ctl(['health', '--key', file('other.key', pki.otherClient.keyPem)]),
      ctl(['health', '--address', 'nope']),
    ]);
    expectOneLine(notPem, 3, /^bridgectl: the CA bundle \S+not-pem\.crt \(--ca\) holds no PEM\n$/);
    expectOneLine(
      unreadableCa,
      3,
      /^bridgectl: cannot read the CA bundle \(--ca\) \S+no-such-ca\.crt: ENOENT\n$/,
    );
    expectOneLine(
      notEd25519,
      3,
      /^bridgectl: the Ed25519 JWT signing key \S+ec-jwt\.key \(--jwt-key\) is not an Ed25519 key \(it is EC\); `bridge-ca jwt-keygen` makes one\n$/,
    );
    expectOneLine(
      otherKey,
      3,
      /^bridgectl: the client key \S+other\.key \(--key\) does not belong to the client certificate \S+client\.crt \(cert of profile "dev" in /,
    );
    expectOneLine(
      badAddress,
      2,
      /^bridgectl: --address is "nope": must be "host:port" with a port of 1-65535\n$/,
    );
  });
});
