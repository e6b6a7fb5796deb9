import type { OptionSpec } from '@agent-bridge/cli';

export const CA_OPTIONS = {
  ca: { type: 'string', value: 'FILE', description: 'the CA certificate (PEM)', required: true },
  'ca-key': {
    type: 'string',
    value: 'FILE',
    description: 'the encrypted CA private key (PKCS#8 PEM)',
    required: true,
  },
} satisfies Record<string, OptionSpec>;

export const PASSPHRASE_OPTION = {
  'passphrase-file': {
    type: 'string',
    value: 'FILE',
    description:
      'read the CA key passphrase from FILE (else $BRIDGE_CA_PASSPHRASE, else a terminal prompt)',
  },
} satisfies Record<string, OptionSpec>;

export const FORCE_OPTION = {
  force: { type: 'boolean', description: 'overwrite existing output files' },
} satisfies Record<string, OptionSpec>;

export const KEY_TYPE_OPTION = {
  'key-type': {
    type: 'string',
    value: 'TYPE',
    description: 'ecdsa-p384 (default) or rsa-4096',
  },
} satisfies Record<string, OptionSpec>;
