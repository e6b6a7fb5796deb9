import { randomUUID } from 'node:crypto';
import type { Command } from '@agent-bridge/cli';
import { CliError } from '@agent-bridge/cli';
import {
  certificateThumbprint,
  EKU,
  ed25519PublicParts,
  PkiError,
  splitPem,
} from '@agent-bridge/pki';
import { importPKCS8, SignJWT } from 'jose';
import { EXIT } from '../exit-codes.js';
import { parseDuration } from '../private/duration.js';
import { readInput } from '../private/files.js';
import { readLeafCertificate } from '../private/leaf-certificate.js';
import { optionalString, requiredString } from '../private/option-values.js';

/**
 * Tokens live five minutes at most: a leaked token is soon useless, and the
 * daemon's default `auth.jwt_max_ttl` (5m) would refuse a longer one anyway.
 */
const MAX_TTL_MS = 5 * 60_000;

const JWT_TYPE = 'JWT';

export const jwtMintCommand: Command = {
  name: 'jwt-mint',
  summary: 'print a short-lived EdDSA JWT for generic gRPC tools',
  usage:
    'bridge-ca jwt-mint --key FILE --iss ISS --sub SUB --project ID [--aud bridge] [--ttl 5m] [--bind-cert FILE]',
  options: {
    key: {
      type: 'string',
      value: 'FILE',
      description: 'Ed25519 private key (PKCS#8 PEM)',
      required: true,
    },
    iss: {
      type: 'string',
      value: 'ISS',
      description: 'issuer (the consumer project)',
      required: true,
    },
    sub: { type: 'string', value: 'SUB', description: 'caller identity', required: true },
    project: { type: 'string', value: 'ID', description: 'project_id claim', required: true },
    aud: { type: 'string', value: 'AUD', description: 'audience (default bridge)' },
    ttl: { type: 'string', value: 'DURATION', description: 'lifetime, at most 5m (default 5m)' },
    'bind-cert': {
      type: 'string',
      value: 'FILE',
      description:
        'bind the token to this client certificate (cnf.x5t#S256, RFC 8705; not a CA or server certificate)',
    },
  },
  notes: [
    `Header: alg EdDSA, typ ${JWT_TYPE}, kid = RFC 7638 thumbprint of the key.`,
    'Claims: iss, sub, aud, project_id, iat, exp, jti (random UUID), and cnf when bound.',
  ],
  async run(ctx) {
    const { values } = ctx;
    const keyPath = ctx.path(requiredString(values, 'key'));
    const iss = requiredString(values, 'iss');
    const sub = requiredString(values, 'sub');
    const project = requiredString(values, 'project');
    const aud = optionalString(values, 'aud') ?? 'bridge';
    for (const [name, value] of [
      ['iss', iss],
      ['sub', sub],
      ['project', project],
      ['aud', aud],
    ]) {
      if (!value?.trim()) throw new CliError(EXIT.usage, `--${name} is empty`);
    }
    const ttlMs = parseDuration(optionalString(values, 'ttl') ?? '5m', '--ttl');
    if (ttlMs > MAX_TTL_MS) throw new CliError(EXIT.usage, '--ttl must be at most 5m');
    const keyPem = await readInput(keyPath, 'JWT key');
    if (!splitPem(keyPem).some((b) => b.label === 'PRIVATE KEY')) {
      throw new CliError(EXIT.badInput, `${keyPath} is not an unencrypted PKCS#8 private key`);
    }
    const { kid } = ed25519PublicParts(keyPem);
    const claims: Record<string, unknown> = { project_id: project };
    const bindFile = optionalString(values, 'bind-cert');
    if (bindFile !== undefined) {
      const cert = await readLeafCertificate(
        'bind-cert',
        ctx.path(bindFile),
        'bind the token to the client certificate the caller connects with (the daemon refuses a CA certificate as a client)',
      );
      // The daemon refuses a client certificate without clientAuth, so a token
      // bound to a server certificate could never be used.
      if (!cert.facts.extendedKeyUsages.includes(EKU.clientAuth)) {
        throw new CliError(
          EXIT.badInput,
          `--bind-cert ${cert.path} (${cert.facts.subject}) is not a client certificate (no clientAuth extended key usage): bind the token to the client certificate the caller connects with`,
        );
      }
      const der = splitPem(cert.pem)[0]?.der;
      if (!der) throw new PkiError('invalid-input', `${cert.path} holds no certificate`);
      claims.cnf = { 'x5t#S256': certificateThumbprint(der) };
    }
    const now = ctx.io.now();
    const iat = Math.floor(now.getTime() / 1000);
    const exp = iat + Math.floor(ttlMs / 1000);
    const jti = randomUUID();
    const token = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'EdDSA', typ: JWT_TYPE, kid })
      .setIssuer(iss)
      .setSubject(sub)
      .setAudience(aud)
      .setIssuedAt(iat)
      .setExpirationTime(exp)
      .setJti(jti)
      .sign(await importPKCS8(keyPem, 'EdDSA'));
    return {
      text: [token],
      json: { token, kid, claims: { iss, sub, aud, iat, exp, jti, ...claims } },
    };
  },
};
