// bridge-ca through its real process, judged by OpenSSL and Node's TLS,
// for both key types. Fixtures are built once per key type through the CLI.
import { createHash, X509Certificate } from 'node:crypto';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { connect, createServer, type TLSSocket } from 'node:tls';
import { within } from '@agent-bridge/harness';
import { createCrl } from '@agent-bridge/pki';
import { calculateJwkThumbprint, importSPKI, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withEmptyEntryExtensions } from './old-style-crl.js';
import { bridgeCa, openssl, type ProcessResult } from './run-bridge-ca.js';
import { makeTempDir } from './temp-dir.js';

const PASS_A = 'bridge passphrase A';
const PASS_B = 'prd-manager passphrase B';

function ok(result: ProcessResult): ProcessResult {
  if (result.code !== 0) {
    throw new Error(`exit ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`);
  }
  return result;
}

describe.each(['ecdsa-p384', 'rsa-4096'] as const)('bridge-ca with %s', (keyType) => {
  let dir: string;
  let remove: () => Promise<void>;
  const f = (name: string) => join(dir, name);

  beforeAll(async () => {
    ({ dir, remove } = await makeTempDir(`bridge-ca-${keyType}`));
    const kt = ['--key-type', keyType];
    const caA = ['--ca', f('a/ca.crt'), '--ca-key', f('a/ca.key')];
    const caB = ['--ca', f('b/ca.crt'), '--ca-key', f('b/ca.key')];
    await Promise.all([
      bridgeCa(['init', '--name', `bridge-${keyType}`, '--out', f('a'), ...kt], {
        passphrase: PASS_A,
      }).then(ok),
      bridgeCa(['init', '--name', `prd-${keyType}`, '--out', f('b'), ...kt], {
        passphrase: PASS_B,
      }).then(ok),
      bridgeCa(['jwt-keygen', '--out', f('jwt')]).then(ok),
    ]);
    await Promise.all([
      bridgeCa(
        [
          'issue',
          '--type',
          'server',
          '--cn',
          'localhost',
          '--san',
          '127.0.0.1,bridge.example.com',
          ...caA,
          '--out',
          f('server'),
          ...kt,
        ],
        { passphrase: PASS_A },
      ).then(ok),
      bridgeCa(
        ['issue', '--type', 'client', '--cn', 'ops', ...caA, '--out', f('client-a'), ...kt],
        {
          passphrase: PASS_A,
        },
      ).then(ok),
      bridgeCa(
        ['issue', '--type', 'client', '--cn', 'prd-manager', ...caB, '--out', f('client-b'), ...kt],
        {
          passphrase: PASS_B,
        },
      ).then(ok),
      bridgeCa(
        ['issue', '--type', 'client', '--cn', 'retired', ...caB, '--out', f('revoked-b'), ...kt],
        {
          passphrase: PASS_B,
        },
      ).then(ok),
    ]);
    await bridgeCa(
      [
        'cross-sign',
        '--signer-ca',
        f('a/ca.crt'),
        '--signer-key',
        f('a/ca.key'),
        '--target-ca',
        f('b/ca.crt'),
        '--out',
        f('b-cross.crt'),
      ],
      { passphrase: PASS_A },
    ).then(ok);
    await bridgeCa([
      'bundle',
      '--ca',
      f('a/ca.crt'),
      '--cross-signed',
      f('b-cross.crt'),
      '--out',
      f('bundle.crt'),
    ]).then(ok);
    await bridgeCa(['revoke', ...caB, '--cert', f('revoked-b.crt'), '--reason', 'keyCompromise'], {
      passphrase: PASS_B,
    }).then(ok);
    await Promise.all([
      bridgeCa(['crl', ...caA, '--out', f('a.crl')], { passphrase: PASS_A }).then(ok),
      bridgeCa(['crl', ...caB, '--out', f('b.crl')], { passphrase: PASS_B }).then(ok),
    ]);
  }, 120_000);

  afterAll(async () => {
    await remove?.();
  });

  describe('openssl verify', () => {
    it('accepts server and client leaves against their own CA', async () => {
      const a = await openssl([
        'verify',
        '-CAfile',
        f('a/ca.crt'),
        f('server.crt'),
        f('client-a.crt'),
      ]);
      expect(a.stdout).toContain(`${f('server.crt')}: OK`);
      expect(a.stdout).toContain(`${f('client-a.crt')}: OK`);
      expect(a.code).toBe(0);
      const b = await openssl(['verify', '-CAfile', f('b/ca.crt'), f('client-b.crt')]);
      expect(b.code).toBe(0);
    });

    it('accepts a leaf of the cross-signed CA against a bundle of our root and the cross cert', async () => {
      const viaBundle = await openssl([
        'verify',
        '-show_chain',
        '-CAfile',
        f('bundle.crt'),
        f('client-b.crt'),
      ]);
      expect(viaBundle.code).toBe(0);
      expect(viaBundle.stdout).toContain(`depth=2: CN = bridge-${keyType}`);
      const viaUntrusted = await openssl([
        'verify',
        '-CAfile',
        f('a/ca.crt'),
        '-untrusted',
        f('b-cross.crt'),
        f('client-b.crt'),
      ]);
      expect(viaUntrusted.code).toBe(0);
    });

    it('refuses the same leaf with our root alone (the cross cert is what makes it trusted)', async () => {
      const result = await openssl(['verify', '-CAfile', f('a/ca.crt'), f('client-b.crt')]);
      expect(result.code).not.toBe(0);
      expect(result.stderr + result.stdout).toContain('unable to get local issuer certificate');
    });

    it('refuses a client cert as sslserver and a server cert as sslclient', async () => {
      const asPurpose = (purpose: string, cert: string) =>
        openssl(['verify', '-purpose', purpose, '-CAfile', f('bundle.crt'), f(cert)]);
      for (const wrong of [
        await asPurpose('sslserver', 'client-a.crt'),
        await asPurpose('sslclient', 'server.crt'),
      ]) {
        expect(wrong.code).not.toBe(0);
        expect(wrong.stderr + wrong.stdout).toContain('unsuitable certificate purpose');
      }
      expect((await asPurpose('sslserver', 'server.crt')).code).toBe(0);
      expect((await asPurpose('sslclient', 'client-b.crt')).code).toBe(0);
    });
  });

  describe('bridge-ca verify', () => {
    it('prints the chain through the cross-signed CA', async () => {
      const result = await bridgeCa([
        'verify',
        '--cert',
        f('client-b.crt'),
        '--bundle',
        f('bundle.crt'),
        '--purpose',
        'client',
      ]);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(
        /0 CN=prd-manager .*\n.*1 CN=prd-.*issuer CN=bridge-.*\n.*2 CN=bridge-.*\(root\)/,
      );
    });

    it('exits 1 with the reason for the wrong purpose', async () => {
      const result = await bridgeCa([
        'verify',
        '--cert',
        f('client-a.crt'),
        '--bundle',
        f('bundle.crt'),
        '--purpose',
        'server',
      ]);
      expect(result.code).toBe(1);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toContain('no serverAuth extended key usage');
    });

    it('checks exactly the certificate named, CA or not, and says what it verified (OpenSSL agrees)', async () => {
      const verify = async (cert: string) => {
        const bridge = await bridgeCa(['verify', '--cert', f(cert), '--bundle', f('bundle.crt')]);
        const json = await bridgeCa([
          'verify',
          '--cert',
          f(cert),
          '--bundle',
          f('bundle.crt'),
          '--json',
        ]);
        const oracle = await openssl([
          'verify',
          '-show_chain',
          '-CAfile',
          f('bundle.crt'),
          f(cert),
        ]);
        const fingerprint = new X509Certificate(await readFile(f(cert))).fingerprint256;
        return { bridge, json, oracle, fingerprint };
      };
      // Our root is in the bundle: a trust anchor, its chain itself alone.
      const root = await verify('a/ca.crt');
      expect(root.oracle.code).toBe(0);
      expect(root.oracle.stdout).toContain(`depth=0: CN = bridge-${keyType}\n`);
      expect(root.oracle.stdout).not.toContain('depth=1');
      expect(root.bridge.code).toBe(0);
      expect(root.bridge.stdout).toMatch(
        new RegExp(
          `^${f('a/ca.crt')}: OK as a trust anchor .*\n  0 CN=bridge-${keyType} \\(root\\), until [^\n]+\n$`,
        ),
      );
      expect(JSON.parse(root.json.stdout)).toMatchObject({
        ok: true,
        verifiedAs: 'trust anchor',
        verified: { subject: `CN=bridge-${keyType}`, fingerprintSha256: root.fingerprint },
        chain: [{ subject: `CN=bridge-${keyType}` }],
      });
      // The cross certificate: verified as a CA, through our root.
      const cross = await verify('b-cross.crt');
      expect(cross.oracle.code).toBe(0);
      expect(cross.oracle.stdout).toMatch(/depth=0: CN = prd-.*\ndepth=1: CN = bridge-/);
      expect(cross.bridge.stdout).toMatch(
        /: OK as a CA certificate \(not a leaf\)\n {2}0 CN=prd-.*issuer CN=bridge-.*\n {2}1 CN=bridge-.*\(root\)/,
      );
      expect(JSON.parse(cross.json.stdout)).toMatchObject({
        verifiedAs: 'CA',
        verified: { fingerprintSha256: cross.fingerprint },
      });
      // The other project's own root is not in the bundle (only its cross certificate is).
      const other = await verify('b/ca.crt');
      expect(other.oracle.code).not.toBe(0);
      expect(other.oracle.stderr + other.oracle.stdout).toContain('self-signed certificate');
      expect(other.bridge.code).toBe(1);
      expect(other.bridge.stderr).toContain(
        `"CN=prd-${keyType}" is self-signed and is not a root of the bundle`,
      );
      // A leaf is still just "OK", and its fingerprint is the one checked.
      const leaf = await verify('client-a.crt');
      expect(leaf.bridge.stdout).toMatch(new RegExp(`^${f('client-a.crt')}: OK\n  0 CN=ops `));
      expect(JSON.parse(leaf.json.stdout)).toMatchObject({
        verifiedAs: 'leaf',
        verified: { fingerprintSha256: leaf.fingerprint },
      });
    });

    it('exits 1 when no path reaches a root in the bundle', async () => {
      const result = await bridgeCa([
        'verify',
        '--cert',
        f('client-b.crt'),
        '--bundle',
        f('a/ca.crt'),
      ]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`issuer "CN=prd-${keyType}"`);
    });
  });

  describe('revocation', () => {
    it('openssl: the revoked cert fails -crl_check, an unrevoked one passes', async () => {
      const revoked = await openssl([
        'verify',
        '-crl_check',
        '-CAfile',
        f('bundle.crt'),
        '-CRLfile',
        f('b.crl'),
        f('revoked-b.crt'),
      ]);
      expect(revoked.code).not.toBe(0);
      expect(revoked.stderr + revoked.stdout).toContain('certificate revoked');
      const fine = await openssl([
        'verify',
        '-crl_check',
        '-CAfile',
        f('bundle.crt'),
        '-CRLfile',
        f('b.crl'),
        f('client-b.crt'),
      ]);
      expect(fine.code).toBe(0);
      const all = await openssl([
        'verify',
        '-crl_check_all',
        '-CAfile',
        f('bundle.crt'),
        '-CRLfile',
        f('a.crl'),
        '-CRLfile',
        f('b.crl'),
        f('client-b.crt'),
      ]);
      expect(all.code).toBe(0);
    });

    it('bridge-ca verify --crl: fails with the revocation reason, passes the unrevoked one', async () => {
      const crls = ['--crl', f('a.crl'), '--crl', f('b.crl')];
      const revoked = await bridgeCa([
        'verify',
        '--cert',
        f('revoked-b.crt'),
        '--bundle',
        f('bundle.crt'),
        ...crls,
      ]);
      expect(revoked.code).toBe(1);
      expect(revoked.stderr).toMatch(
        /"CN=retired" \(serial [0-9a-f]+\) was revoked on .*reason: keyCompromise/,
      );
      const fine = await bridgeCa([
        'verify',
        '--cert',
        f('client-b.crt'),
        '--bundle',
        f('bundle.crt'),
        ...crls,
      ]);
      expect(fine.code).toBe(0);
    });

    it('the CRL has the X509 CRL label, a nextUpdate and the reason code', async () => {
      const pem = await readFile(f('b.crl'), 'utf8');
      expect(pem.startsWith('-----BEGIN X509 CRL-----')).toBe(true);
      const text = await openssl([
        'crl',
        '-in',
        f('b.crl'),
        '-noout',
        '-text',
        '-CAfile',
        f('b/ca.crt'),
      ]);
      expect(text.code).toBe(0);
      expect(text.stdout).toContain('Next Update:');
      expect(text.stdout).toContain('Key Compromise');
      expect(text.stderr + text.stdout).toContain('verify OK');
    });

    describe('an entry without a reason', () => {
      const crlChecks = async (crl: string, revokedCert: string) => {
        const text = await openssl([
          'crl',
          '-in',
          f(crl),
          '-noout',
          '-text',
          '-CAfile',
          f('a/ca.crt'),
        ]);
        expect(text.code).toBe(0);
        expect(text.stderr + text.stdout).toContain('verify OK');
        const serial = new X509Certificate(await readFile(f(revokedCert))).serialNumber;
        expect(text.stdout).toContain(`Serial Number: ${serial}`);
        const opensslVerify = (cert: string) =>
          openssl(['verify', '-crl_check', '-CAfile', f('a/ca.crt'), '-CRLfile', f(crl), f(cert)]);
        const revoked = await opensslVerify(revokedCert);
        expect(revoked.code).not.toBe(0);
        expect(revoked.stderr + revoked.stdout).toContain('certificate revoked');
        expect((await opensslVerify('client-a.crt')).code).toBe(0);
        const bridgeVerify = (cert: string) =>
          bridgeCa(['verify', '--cert', f(cert), '--bundle', f('a/ca.crt'), '--crl', f(crl)]);
        const gone = await bridgeVerify(revokedCert);
        expect(gone.code).toBe(1);
        expect(gone.stderr).toMatch(
          /"CN=no-reason" \(serial [0-9a-f]+\) was revoked on .*, reason: unspecified/,
        );
        expect(await bridgeVerify('client-a.crt')).toMatchObject({ code: 0 });
        const inspected = await bridgeCa(['inspect', f(crl)]);
        expect(inspected.code).toBe(0);
        expect(inspected.stdout).toContain(serial.toLowerCase());
      };

      beforeAll(async () => {
        await bridgeCa(
          [
            'issue',
            '--type',
            'client',
            '--cn',
            'no-reason',
            '--ca',
            f('a/ca.crt'),
            '--ca-key',
            f('a/ca.key'),
            '--out',
            f('no-reason'),
            '--key-type',
            keyType,
          ],
          { passphrase: PASS_A },
        ).then(ok);
        await bridgeCa(
          [
            'revoke',
            '--ca',
            f('a/ca.crt'),
            '--ca-key',
            f('a/ca.key'),
            '--cert',
            f('no-reason.crt'),
          ],
          { passphrase: PASS_A },
        ).then(ok);
        await bridgeCa(
          ['crl', '--ca', f('a/ca.crt'), '--ca-key', f('a/ca.key'), '--out', f('a-no-reason.crl')],
          { passphrase: PASS_A },
        ).then(ok);
      }, 60_000);

      it('has no crlEntryExtensions field, and OpenSSL and bridge-ca verify --crl read the CRL', async () => {
        const parsed = await openssl(['asn1parse', '-in', f('a-no-reason.crl')]);
        expect(parsed.code).toBe(0);
        expect(parsed.stdout).not.toMatch(/l= +0 cons: SEQUENCE/);
        await crlChecks('a-no-reason.crl', 'no-reason.crt');
      });

      it('an older CRL with an empty crlEntryExtensions SEQUENCE is read too', async () => {
        const key = await openssl(['pkey', '-in', f('a/ca.key'), '-passin', `pass:${PASS_A}`]);
        expect(key.code).toBe(0);
        const der = Buffer.from(
          (await readFile(f('a-no-reason.crl'), 'utf8')).replace(/-----[A-Z0-9 ]+-----|\s/g, ''),
          'base64',
        );
        const digest = keyType === 'rsa-4096' ? 'sha256' : 'sha384';
        const old = withEmptyEntryExtensions(der, key.stdout, digest);
        const body = old
          .toString('base64')
          .replace(/(.{64})/g, '$1\n')
          .trim();
        await writeFile(
          f('a-old-style.crl'),
          `-----BEGIN X509 CRL-----\n${body}\n-----END X509 CRL-----\n`,
        );
        // The fixture is what it claims to be: the entry ends in a SEQUENCE of length 0.
        const parsed = await openssl(['asn1parse', '-in', f('a-old-style.crl')]);
        expect(parsed.stdout).toMatch(/l= +0 cons: SEQUENCE/);
        await crlChecks('a-old-style.crl', 'no-reason.crt');
      });
    });

    describe('certificates that are CAs', () => {
      const caA = () => ['--ca', f('a/ca.crt'), '--ca-key', f('a/ca.key')];

      it('revoke refuses our root (by --cert or --serial), so a CRL made after still passes every leaf in OpenSSL', async () => {
        const rootSerial = new X509Certificate(await readFile(f('a/ca.crt'))).serialNumber;
        for (const args of [
          ['--cert', f('a/ca.crt')],
          ['--serial', rootSerial, '--force'],
        ]) {
          const refused = await bridgeCa(['revoke', ...caA(), ...args], { passphrase: PASS_A });
          expect(refused.code).toBe(6);
          expect(refused.stderr).toContain('a CA cannot revoke itself');
        }
        await bridgeCa(['crl', ...caA(), '--out', f('a-after-root.crl')], {
          passphrase: PASS_A,
        }).then(ok);
        const text = await openssl(['crl', '-in', f('a-after-root.crl'), '-noout', '-text']);
        expect(text.stdout).not.toContain(`Serial Number: ${rootSerial}`);
        const leaf = await openssl([
          'verify',
          '-crl_check_all',
          '-CAfile',
          f('a/ca.crt'),
          '-CRLfile',
          f('a-after-root.crl'),
          f('server.crt'),
        ]);
        expect(leaf.stderr + leaf.stdout).toContain(`${f('server.crt')}: OK`);
        expect(leaf.code).toBe(0);
        // What a refused revoke prevents: with the root's own serial on its CRL
        // (made here with the library), OpenSSL fails every leaf.
        const key = await openssl(['pkey', '-in', f('a/ca.key'), '-passin', `pass:${PASS_A}`]);
        expect(key.code).toBe(0);
        const certPem = await readFile(f('a/ca.crt'), 'utf8');
        await writeFile(
          f('a-root-on-crl.crl'),
          await createCrl({
            ca: { certPem, keyPem: key.stdout },
            revoked: [{ serialHex: rootSerial }],
          }),
        );
        const harmed = await openssl([
          'verify',
          '-crl_check_all',
          '-CAfile',
          f('a/ca.crt'),
          '-CRLfile',
          f('a-root-on-crl.crl'),
          f('server.crt'),
        ]);
        expect(harmed.code).not.toBe(0);
        expect(harmed.stderr + harmed.stdout).toContain('certificate revoked');
      });

      it('revoke still takes a cross certificate this CA issued: then OpenSSL refuses the leaves under it', async () => {
        await bridgeCa(['revoke', ...caA(), '--cert', f('b-cross.crt')], {
          passphrase: PASS_A,
        }).then(ok);
        await bridgeCa(['crl', ...caA(), '--out', f('a-cross-revoked.crl')], {
          passphrase: PASS_A,
        }).then(ok);
        const opensslVerify = (cert: string) =>
          openssl([
            'verify',
            '-crl_check_all',
            '-CAfile',
            f('bundle.crt'),
            '-CRLfile',
            f('a-cross-revoked.crl'),
            '-CRLfile',
            f('b.crl'),
            f(cert),
          ]);
        const underCross = await opensslVerify('client-b.crt');
        expect(underCross.code).not.toBe(0);
        expect(underCross.stderr + underCross.stdout).toContain('certificate revoked');
        expect((await opensslVerify('client-a.crt')).code).toBe(0);
      });
    });
  });

  describe('encrypted CA key', () => {
    it('openssl pkey reads it with the passphrase and not without', async () => {
      const withPass = await openssl([
        'pkey',
        '-in',
        f('a/ca.key'),
        '-passin',
        `pass:${PASS_A}`,
        '-noout',
      ]);
      expect(withPass.code).toBe(0);
      const wrong = await openssl([
        'pkey',
        '-in',
        f('a/ca.key'),
        '-passin',
        'pass:not it',
        '-noout',
      ]);
      expect(wrong.code).not.toBe(0);
      const empty = await openssl([
        'pkey',
        '-in',
        f('a/ca.key'),
        '-passin',
        'file:/dev/null',
        '-noout',
      ]);
      expect(empty.code).not.toBe(0);
      expect(
        (await readFile(f('a/ca.key'), 'utf8')).startsWith('-----BEGIN ENCRYPTED PRIVATE KEY-----'),
      ).toBe(true);
      expect((await stat(f('a/ca.key'))).mode & 0o777).toBe(0o600);
      expect((await stat(f('server.key'))).mode & 0o777).toBe(0o600);
    });

    it('a wrong passphrase to issue fails in one line with exit 4 and writes nothing', async () => {
      const dbBefore = await readFile(f('a/ca.db.json'), 'utf8');
      const result = await bridgeCa(
        [
          'issue',
          '--type',
          'client',
          '--cn',
          'nobody',
          '--ca',
          f('a/ca.crt'),
          '--ca-key',
          f('a/ca.key'),
          '--out',
          f('nobody'),
        ],
        { passphrase: 'wrong' },
      );
      expect(result.code).toBe(4);
      expect(result.stderr).toBe(`bridge-ca: wrong passphrase for CA key ${f('a/ca.key')}\n`);
      expect(result.stdout).toBe('');
      await expect(stat(f('nobody.crt'))).rejects.toThrow();
      await expect(stat(f('nobody.key'))).rejects.toThrow();
      expect(await readFile(f('a/ca.db.json'), 'utf8')).toBe(dbBefore);
    });
  });

  describe('Node TLS 1.3 mutual TLS', () => {
    it('completes with our client and with a client trusted only through cross-signing', async () => {
      const bundle = await readFile(f('bundle.crt'));
      const serverOpts = {
        cert: await readFile(f('server.crt')),
        key: await readFile(f('server.key')),
        ca: bundle,
      };
      for (const client of ['client-a', 'client-b']) {
        const peer = await handshake(serverOpts, {
          cert: await readFile(f(`${client}.crt`)),
          key: await readFile(f(`${client}.key`)),
          ca: await readFile(f('a/ca.crt')),
        });
        expect(peer).toEqual({ ok: true, peerCn: client === 'client-a' ? 'ops' : 'prd-manager' });
      }
    });

    it('rejects the cross-signed CA client when the server trusts only our root', async () => {
      const result = await handshake(
        {
          cert: await readFile(f('server.crt')),
          key: await readFile(f('server.key')),
          ca: await readFile(f('a/ca.crt')),
        },
        {
          cert: await readFile(f('client-b.crt')),
          key: await readFile(f('client-b.key')),
          ca: await readFile(f('a/ca.crt')),
        },
      );
      expect(result.ok).toBe(false);
    });
  });

  describe('renew', () => {
    it('keeps subject, SANs and key, and extends validity', async () => {
      await bridgeCa(
        [
          'issue',
          '--type',
          'server',
          '--cn',
          'renew.example.com',
          '--san',
          '10.0.0.7',
          '--days',
          '1',
          '--ca',
          f('a/ca.crt'),
          '--ca-key',
          f('a/ca.key'),
          '--out',
          f('short'),
          '--key-type',
          keyType,
        ],
        { passphrase: PASS_A },
      ).then(ok);
      const before = new X509Certificate(await readFile(f('short.crt')));
      const result = await bridgeCa(
        [
          'renew',
          '--cert',
          f('short.crt'),
          '--ca',
          f('a/ca.crt'),
          '--ca-key',
          f('a/ca.key'),
          '--if-expiring-within',
          '30d',
          '--json',
        ],
        { passphrase: PASS_A },
      ).then(ok);
      expect(JSON.parse(result.stdout)).toMatchObject({
        renewed: true,
        previousSerial: before.serialNumber.toLowerCase(),
      });
      const after = new X509Certificate(await readFile(f('short.crt')));
      expect(after.subject).toBe(before.subject);
      expect(after.subjectAltName).toBe(before.subjectAltName);
      expect(after.subjectAltName).toContain('DNS:renew.example.com');
      expect(after.subjectAltName).toContain('IP Address:10.0.0.7');
      expect(after.serialNumber).not.toBe(before.serialNumber);
      expect(
        new Date(after.validTo).getTime() - new Date(before.validTo).getTime(),
      ).toBeGreaterThan(80 * 86_400_000);
      expect(after.publicKey.export({ type: 'spki', format: 'der' })).toEqual(
        before.publicKey.export({ type: 'spki', format: 'der' }),
      );
      expect(
        (
          await openssl([
            'verify',
            '-purpose',
            'sslserver',
            '-CAfile',
            f('a/ca.crt'),
            f('short.crt'),
          ])
        ).code,
      ).toBe(0);
    });

    it('--if-expiring-within says "not due" and changes nothing', async () => {
      const before = await readFile(f('server.crt'), 'utf8');
      const result = await bridgeCa([
        'renew',
        '--cert',
        f('server.crt'),
        '--ca',
        f('a/ca.crt'),
        '--ca-key',
        f('a/ca.key'),
        '--if-expiring-within',
        '30d',
      ]);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/^not due: .* nothing changed\n$/);
      expect(await readFile(f('server.crt'), 'utf8')).toBe(before);
    });
  });

  describe('jwt-mint', () => {
    it('mints an EdDSA token that verifies with the public key, with the claims and cnf', async () => {
      const before = Math.floor(Date.now() / 1000);
      const result = await bridgeCa([
        'jwt-mint',
        '--key',
        f('jwt.key'),
        '--iss',
        'prd-manager',
        '--sub',
        'prd-manager/worker-1',
        '--project',
        'proj-42',
        '--ttl',
        '2m',
        '--bind-cert',
        f('client-b.crt'),
      ]).then(ok);
      const token = result.stdout.trim();
      const publicKey = await importSPKI(await readFile(f('jwt.pub'), 'utf8'), 'EdDSA');
      const { payload, protectedHeader } = await jwtVerify(token, publicKey, {
        issuer: 'prd-manager',
        audience: 'bridge',
        typ: 'JWT',
        algorithms: ['EdDSA'],
      });
      const jwk = JSON.parse(await readFile(f('jwt.jwk.json'), 'utf8')) as Record<string, string>;
      expect(jwk.alg).toBeUndefined();
      expect(jwk.kid).toBe(
        await calculateJwkThumbprint({ kty: 'OKP', crv: 'Ed25519', x: jwk.x as string }),
      );
      expect(protectedHeader).toEqual({ alg: 'EdDSA', typ: 'JWT', kid: jwk.kid });
      expect(payload).toMatchObject({
        sub: 'prd-manager/worker-1',
        project_id: 'proj-42',
        aud: 'bridge',
      });
      expect(typeof payload.jti).toBe('string');
      expect(payload.iat).toBeGreaterThanOrEqual(before - 1);
      expect((payload.exp as number) - (payload.iat as number)).toBe(120);
      const der = new X509Certificate(await readFile(f('client-b.crt'))).raw;
      expect(payload.cnf).toEqual({
        'x5t#S256': createHash('sha256').update(der).digest('base64url'),
      });
    });

    it('refuses a TTL over five minutes', async () => {
      const result = await bridgeCa([
        'jwt-mint',
        '--key',
        f('jwt.key'),
        '--iss',
        'a',
        '--sub',
        'b',
        '--project',
        'c',
        '--ttl',
        '6m',
      ]);
      expect(result.code).toBe(2);
    });
  });
});

interface TlsOptions {
  cert: Buffer;
  key: Buffer;
  ca: Buffer;
}

/** One handshake on 127.0.0.1; reports the client CN the server saw, or failure. */
async function handshake(
  server: TlsOptions,
  client: TlsOptions,
): Promise<{ ok: true; peerCn: string } | { ok: false; error: string }> {
  const tlsServer = createServer({
    ...server,
    minVersion: 'TLSv1.3',
    requestCert: true,
    rejectUnauthorized: true,
  });
  const peer = new Promise<string>((resolve) => {
    tlsServer.on('secureConnection', (socket: TLSSocket) => {
      resolve(String(socket.getPeerCertificate().subject?.CN ?? ''));
      socket.end('hello');
    });
  });
  await new Promise<void>((resolve) => tlsServer.listen(0, '127.0.0.1', resolve));
  const address = tlsServer.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  try {
    return await within(
      "the TLS handshake and the server's greeting",
      new Promise((resolve) => {
        const socket = connect({
          ...client,
          host: '127.0.0.1',
          port,
          servername: 'localhost',
          minVersion: 'TLSv1.3',
        });
        let data = '';
        socket.setEncoding('utf8');
        socket.on('data', (chunk) => {
          data += chunk;
        });
        socket.on('error', (error) => resolve({ ok: false, error: error.message }));
        socket.on('end', async () => {
          if (data !== 'hello') {
            resolve({ ok: false, error: 'closed without data' });
            return;
          }
          expect(socket.getProtocol()).toBe('TLSv1.3');
          resolve({ ok: true, peerCn: await peer });
        });
      }),
      10_000,
    );
  } finally {
    await new Promise((resolve) => tlsServer.close(resolve));
  }
}
