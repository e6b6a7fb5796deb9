// Each failure of bridge-ca: its exit status and its single line.
import { X509Certificate } from 'node:crypto';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createCA, encryptPrivateKey, issueCert } from '@agent-bridge/pki';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridgeCa, openssl, type ProcessResult } from './run-bridge-ca.js';
import { makeTempDir } from './temp-dir.js';

const PASS = 'error-path passphrase';

function expectOneLine(result: ProcessResult, code: number, pattern: RegExp): void {
  expect({ code: result.code, stdout: result.stdout }).toEqual({ code, stdout: '' });
  expect(result.stderr).toMatch(/^bridge-ca: [^\n]+\n$/);
  expect(result.stderr).toMatch(pattern);
}

describe('bridge-ca failures', () => {
  let dir: string;
  let remove: () => Promise<void>;
  const f = (name: string) => join(dir, name);
  const issueWith = (ca: string, key: string, out: string, extra: string[] = []) =>
    bridgeCa(
      [
        'issue',
        '--type',
        'client',
        '--cn',
        'x',
        '--ca',
        ca,
        '--ca-key',
        key,
        '--out',
        out,
        ...extra,
      ],
      {
        passphrase: PASS,
      },
    );

  /** issue with CA a: --type, --cn, optional --san, then --out. */
  const issueFromA = (type: string, cn: string, san: string | undefined, out: string) =>
    bridgeCa(
      [
        'issue',
        '--type',
        type,
        '--cn',
        cn,
        ...(san === undefined ? [] : ['--san', san]),
        '--ca',
        f('a/ca.crt'),
        '--ca-key',
        f('a/ca.key'),
        '--out',
        f(out),
      ],
      { passphrase: PASS },
    );

  beforeAll(async () => {
    ({ dir, remove } = await makeTempDir('bridge-ca-errors'));
    for (const name of ['a', 'b']) {
      const result = await bridgeCa(['init', '--name', `ca-${name}`, '--out', f(name)], {
        passphrase: PASS,
      });
      expect(result.code).toBe(0);
    }
    const leaf = await issueWith(f('a/ca.crt'), f('a/ca.key'), f('leaf'));
    expect(leaf.code).toBe(0);
    // An expired CA, made with the library's clock parameter.
    const expired = await createCA({
      name: 'old-ca',
      days: 1,
      now: new Date(Date.now() - 3 * 86_400_000),
    });
    await mkdir(f('old'));
    await writeFile(f('old/ca.crt'), expired.certPem);
    await writeFile(f('old/ca.key'), encryptPrivateKey(expired.keyPem, PASS), { mode: 0o600 });
    // A leaf key encrypted like a CA key, to pass as --ca-key for a leaf cert.
    await writeFile(
      f('leaf.enc.key'),
      encryptPrivateKey(await readFile(f('leaf.key'), 'utf8'), PASS),
    );
  }, 60_000);

  afterAll(async () => {
    await remove?.();
  });

  it('missing input file: exit 3', async () => {
    expectOneLine(
      await issueWith(f('nope.crt'), f('a/ca.key'), f('o1')),
      3,
      /CA certificate .*nope\.crt does not exist/,
    );
  });

  it('not a CA: exit 5', async () => {
    expectOneLine(
      await issueWith(f('leaf.crt'), f('leaf.enc.key'), f('o2')),
      5,
      /is not a CA certificate/,
    );
  });

  it('expired CA: exit 5', async () => {
    expectOneLine(
      await issueWith(f('old/ca.crt'), f('old/ca.key'), f('o3')),
      5,
      /CA CN=old-ca expired on \d{4}-/,
    );
  });

  it('key does not match the CA certificate: exit 5, nothing written', async () => {
    expectOneLine(
      await issueWith(f('a/ca.crt'), f('b/ca.key'), f('o4')),
      5,
      /CA key does not match the CA certificate/,
    );
    await expect(stat(f('o4.crt'))).rejects.toThrow();
  });

  it('existing output without --force: exit 3; with --force it is replaced', async () => {
    const before = await readFile(f('leaf.crt'), 'utf8');
    expectOneLine(
      await issueWith(f('a/ca.crt'), f('a/ca.key'), f('leaf')),
      3,
      /leaf\.crt already exists; use --force/,
    );
    expect(await readFile(f('leaf.crt'), 'utf8')).toBe(before);
    const forced = await issueWith(f('a/ca.crt'), f('a/ca.key'), f('leaf'), ['--force']);
    expect(forced.code).toBe(0);
    expect(await readFile(f('leaf.crt'), 'utf8')).not.toBe(before);
    expect((await stat(f('leaf.key'))).mode & 0o777).toBe(0o600);
  });

  it('init refuses to overwrite an existing CA: exit 3', async () => {
    const result = await bridgeCa(['init', '--name', 'again', '--out', f('a')], {
      passphrase: PASS,
    });
    expectOneLine(result, 3, /ca\.crt already exists/);
  });

  it('invalid SAN: exit 2', async () => {
    const result = await issueFromA('server', 'ok.example.com', 'good.example.com,bad_name!', 'o5');
    expectOneLine(result, 2, /invalid SAN "bad_name!"/);
  });

  it('empty SAN entry: exit 2', async () => {
    const result = await issueFromA(
      'server',
      'ok.example.com',
      'a.example.com,,b.example.com',
      'o6',
    );
    expectOneLine(result, 2, /empty SAN entry/);
  });

  it('empty CN: exit 2', async () => {
    const result = await issueFromA('client', '  ', undefined, 'o7');
    expectOneLine(result, 2, /the CN is empty/);
  });

  it('a server certificate without any DNS or IP name: exit 2', async () => {
    const result = await issueFromA('server', 'my server', undefined, 'o8');
    expectOneLine(result, 2, /needs at least one DNS or IP SAN/);
  });

  it('no passphrase source: exit 4', async () => {
    const result = await bridgeCa([
      'issue',
      '--type',
      'client',
      '--cn',
      'x',
      '--ca',
      f('a/ca.crt'),
      '--ca-key',
      f('a/ca.key'),
      '--out',
      f('o9'),
    ]);
    expectOneLine(result, 4, /no passphrase: use --passphrase-file/);
  });

  it('--passphrase-file is read, its trailing newline ignored', async () => {
    await writeFile(f('pass.txt'), `${PASS}\n`, { mode: 0o600 });
    const result = await bridgeCa([
      'issue',
      '--type',
      'client',
      '--cn',
      'from-file',
      '--ca',
      f('a/ca.crt'),
      '--ca-key',
      f('a/ca.key'),
      '--out',
      f('o10'),
      '--passphrase-file',
      f('pass.txt'),
    ]);
    expect(result.code).toBe(0);
  });

  it('a new CA passphrase under 8 characters is refused: exit 2, nothing written; old keys still open', async () => {
    const out = f('short-pass');
    expectOneLine(
      await bridgeCa(['init', '--name', 'short', '--out', out], { passphrase: 'a' }),
      2,
      /^bridge-ca: the new CA passphrase \(BRIDGE_CA_PASSPHRASE\) has 1 character; it needs at least 8, since whoever copies the encrypted key can guess a short one offline\n$/,
    );
    await writeFile(f('seven.txt'), '1234567\n', { mode: 0o600 });
    expectOneLine(
      await bridgeCa([
        'init',
        '--name',
        'short',
        '--out',
        out,
        '--passphrase-file',
        f('seven.txt'),
      ]),
      2,
      /the new CA passphrase \(passphrase file .*seven\.txt\) has 7 characters; it needs at least 8/,
    );
    await expect(stat(out)).rejects.toThrow();
    // Exactly 8 is enough, and OpenSSL opens the key with it.
    const made = await bridgeCa(['init', '--name', 'eight', '--out', out], {
      passphrase: '12345678',
    });
    expect(made.code).toBe(0);
    const opened = await openssl([
      'pkey',
      '-in',
      join(out, 'ca.key'),
      '-passin',
      'pass:12345678',
      '-noout',
    ]);
    expect(opened.code).toBe(0);
    // A CA key encrypted before the minimum, with 1 character, still opens.
    const old = await createCA({ name: 'short-old' });
    await mkdir(f('short-old'));
    await writeFile(f('short-old/ca.crt'), old.certPem);
    await writeFile(f('short-old/ca.key'), encryptPrivateKey(old.keyPem, 'k'), { mode: 0o600 });
    const issued = await bridgeCa(
      [
        'issue',
        '--type',
        'client',
        '--cn',
        'by-old',
        '--ca',
        f('short-old/ca.crt'),
        '--ca-key',
        f('short-old/ca.key'),
        '--out',
        f('by-old'),
      ],
      { passphrase: 'k' },
    );
    expect({ code: issued.code, stderr: issued.stderr }).toEqual({ code: 0, stderr: '' });
  });

  it('a passphrase on the command line is refused: exit 2', async () => {
    const result = await bridgeCa(['issue', '--passphrase', 'secret']);
    expectOneLine(result, 2, /passphrases never go on the command line/);
  });

  it('unknown command and unknown option: exit 2', async () => {
    expectOneLine(await bridgeCa(['frobnicate']), 2, /unknown command "frobnicate"/);
    expectOneLine(
      await bridgeCa(['verify', '--cert', 'x', '--bundle', 'y', '--bogus']),
      2,
      /Unknown option '--bogus'/,
    );
  });

  it('--json failures are one JSON line', async () => {
    const result = await issueWith(f('nope.crt'), f('a/ca.key'), f('o11'), ['--json']);
    expect(result.code).toBe(3);
    expect(JSON.parse(result.stderr)).toMatchObject({ ok: false, exitCode: 3 });
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('--help lists every command and each command has its own help', async () => {
    const help = await bridgeCa(['--help']);
    expect(help.code).toBe(0);
    const commands = [
      'init',
      'issue',
      'cross-sign',
      'bundle',
      'jwt-keygen',
      'renew',
      'verify',
      'revoke',
      'crl',
      'jwt-mint',
      'inspect',
    ];
    for (const command of commands) expect(help.stdout).toMatch(new RegExp(`^  ${command} `, 'm'));
    const issueHelp = await bridgeCa(['issue', '--help']);
    expect(issueHelp.code).toBe(0);
    for (const option of [
      '--type',
      '--cn',
      '--san',
      '--ca',
      '--ca-key',
      '--out',
      '--passphrase-file',
      '--force',
      '--json',
    ]) {
      expect(issueHelp.stdout).toContain(option);
    }
  });

  it('revoke refuses a serial the database does not know: exit 6', async () => {
    const result = await bridgeCa(
      ['revoke', '--ca', f('a/ca.crt'), '--ca-key', f('a/ca.key'), '--serial', 'abcdef'],
      { passphrase: PASS },
    );
    expectOneLine(result, 6, /serial abcdef is not in .*ca\.db\.json/);
  });

  it('a CA certificate where a leaf is expected: exit 6 before the passphrase, nothing changed', async () => {
    const dbBefore = await readFile(f('a/ca.db.json'), 'utf8');
    const caA = ['--ca', f('a/ca.crt'), '--ca-key', f('a/ca.key')];
    const rootSerial = new X509Certificate(await readFile(f('a/ca.crt'))).serialNumber;
    // With the passphrase: refused all the same, and the database is untouched.
    expectOneLine(
      await bridgeCa(['revoke', ...caA, '--cert', f('a/ca.crt')], { passphrase: PASS }),
      6,
      /--cert .*a\/ca\.crt is a CA certificate \(CN=ca-a\), not a leaf/,
    );
    expect(await readFile(f('a/ca.db.json'), 'utf8')).toBe(dbBefore);
    // No passphrase is given: each refusal comes before one is needed.
    expectOneLine(
      await bridgeCa(['revoke', ...caA, '--cert', f('a/ca.crt')]),
      6,
      /--cert .*a\/ca\.crt is a CA certificate \(CN=ca-a\), not a leaf: revoke takes a leaf or a cross certificate this CA issued; a CA cannot revoke itself/,
    );
    expectOneLine(
      await bridgeCa(['revoke', ...caA, '--cert', f('b/ca.crt')]),
      6,
      /--cert .*b\/ca\.crt is a CA certificate \(CN=ca-b\), not a leaf/,
    );
    expectOneLine(
      await bridgeCa(['revoke', ...caA, '--serial', rootSerial, '--force']),
      6,
      new RegExp(`--serial ${rootSerial.toLowerCase()} is the serial of CA CN=ca-a itself`),
    );
    expectOneLine(
      await bridgeCa(['renew', ...caA, '--cert', f('a/ca.crt')]),
      6,
      /--cert .*a\/ca\.crt is a CA certificate \(CN=ca-a\), not a leaf: renew re-issues server, client and peer certificates/,
    );
    expect((await bridgeCa(['jwt-keygen', '--out', f('jwt')])).code).toBe(0);
    const mint = (cert: string) =>
      bridgeCa([
        'jwt-mint',
        '--key',
        f('jwt.key'),
        '--iss',
        'i',
        '--sub',
        's',
        '--project',
        'p',
        '--bind-cert',
        f(cert),
      ]);
    expectOneLine(
      await mint('a/ca.crt'),
      6,
      /--bind-cert .*a\/ca\.crt is a CA certificate \(CN=ca-a\), not a leaf: bind the token to the client certificate/,
    );
    // A server certificate is no client certificate either: the daemon refuses it as one.
    const server = await issueCert({
      type: 'server',
      cn: 'srv.example.com',
      ca: await createCA({ name: 'lib-ca' }),
    });
    await writeFile(f('server-only.crt'), server.certPem);
    expectOneLine(
      await mint('server-only.crt'),
      6,
      /--bind-cert .*server-only\.crt \(CN=srv\.example\.com\) is not a client certificate \(no clientAuth extended key usage\)/,
    );
    expect((await mint('leaf.crt')).code).toBe(0);
    expect(await readFile(f('a/ca.db.json'), 'utf8')).toBe(dbBefore);
  });

  it('renew refuses a leaf that is neither server nor client (no EKU, made by OpenSSL): exit 6 before the passphrase', async () => {
    const plainKey = await openssl(['pkey', '-in', f('a/ca.key'), '-passin', `pass:${PASS}`]);
    expect(plainKey.code).toBe(0);
    await writeFile(f('a-plain.key'), plainKey.stdout, { mode: 0o600 });
    await writeFile(f('no-eku.cnf'), 'basicConstraints = critical, CA:FALSE\n');
    const csr = await openssl([
      'req',
      '-new',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      f('no-eku.key'),
      '-subj',
      '/CN=no-eku',
      '-out',
      f('no-eku.csr'),
    ]);
    expect(csr.code).toBe(0);
    const signed = await openssl([
      'x509',
      '-req',
      '-in',
      f('no-eku.csr'),
      '-CA',
      f('a/ca.crt'),
      '-CAkey',
      f('a-plain.key'),
      '-set_serial',
      '0x4e4f454b55',
      '-days',
      '30',
      '-extfile',
      f('no-eku.cnf'),
      '-out',
      f('no-eku.crt'),
    ]);
    expect(signed.code).toBe(0);
    const before = await readFile(f('no-eku.crt'), 'utf8');
    expectOneLine(
      await bridgeCa([
        'renew',
        '--ca',
        f('a/ca.crt'),
        '--ca-key',
        f('a/ca.key'),
        '--cert',
        f('no-eku.crt'),
      ]),
      6,
      /--cert .*no-eku\.crt \(CN=no-eku\) is not a server, client or peer certificate \(no serverAuth or clientAuth extended key usage\)/,
    );
    expect(await readFile(f('no-eku.crt'), 'utf8')).toBe(before);
  });

  it('verify --crl with a file that is no CRL names that file: exit 6', async () => {
    expectOneLine(
      await bridgeCa([
        'verify',
        '--cert',
        f('leaf.crt'),
        '--bundle',
        f('a/ca.crt'),
        '--crl',
        f('leaf.crt'),
      ]),
      6,
      /^bridge-ca: CRL \/.*\/leaf\.crt holds no X509 CRL block\n$/,
    );
  });

  it('inspect describes an encrypted key with its KDF parameters', async () => {
    const result = await bridgeCa(['inspect', f('a/ca.key')]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('PBES2, PBKDF2-HMAC-SHA256 600000 iterations, AES-256-CBC');
  });
});
