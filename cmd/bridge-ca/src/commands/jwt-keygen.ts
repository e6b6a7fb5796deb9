import type { Command } from '@agent-bridge/cli';
import { generateJwtKeyPair } from '@agent-bridge/pki';
import { PUBLIC_MODE, SECRET_MODE, writeOutputs } from '../private/files.js';
import { flag, requiredString } from '../private/option-values.js';
import { FORCE_OPTION } from '../private/shared-options.js';

export const jwtKeygenCommand: Command = {
  name: 'jwt-keygen',
  summary: 'an Ed25519 key pair for signing JWTs: PREFIX.key, PREFIX.pub, PREFIX.jwk.json',
  usage: 'bridge-ca jwt-keygen --out PREFIX',
  options: {
    out: { type: 'string', value: 'PREFIX', description: 'output file prefix', required: true },
    ...FORCE_OPTION,
  },
  notes: [
    'PREFIX.key is PKCS#8 (mode 0600), PREFIX.pub SPKI, PREFIX.jwk.json the public JWK with',
    'kid = its RFC 7638 thumbprint. The JWK has no "alg" member, so verifiers accept tokens',
    'whether their header says EdDSA or Ed25519; bridge-ca jwt-mint writes EdDSA.',
  ],
  async run(ctx) {
    const prefix = ctx.path(requiredString(ctx.values, 'out'));
    const pair = await generateJwtKeyPair();
    const files = {
      key: `${prefix}.key`,
      pub: `${prefix}.pub`,
      jwk: `${prefix}.jwk.json`,
    };
    await writeOutputs(
      [
        { path: files.key, content: pair.privatePem, mode: SECRET_MODE },
        { path: files.pub, content: pair.publicPem, mode: PUBLIC_MODE },
        { path: files.jwk, content: `${JSON.stringify(pair.jwk, null, 2)}\n`, mode: PUBLIC_MODE },
      ],
      flag(ctx.values, 'force'),
    );
    return {
      text: [
        `generated Ed25519 key pair, kid ${pair.kid}`,
        `  private: ${files.key}`,
        `  public: ${files.pub}`,
        `  JWK: ${files.jwk}`,
      ],
      json: { kid: pair.kid, jwk: pair.jwk, key: files.key, pub: files.pub, jwkFile: files.jwk },
    };
  },
};
