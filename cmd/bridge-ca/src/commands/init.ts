import { join } from 'node:path';
import type { Command } from '@agent-bridge/cli';
import {
  certificateFacts,
  createCA,
  DEFAULT_CA_DAYS,
  DEFAULT_KEY_TYPE,
  emptyCaDatabase,
  encryptPrivateKey,
  KEY_TYPES,
} from '@agent-bridge/pki';
import { daysOption } from '../private/duration.js';
import { checkOutputs, PUBLIC_MODE, SECRET_MODE, writeOutputs } from '../private/files.js';
import { oneOf, optionalString, requiredString } from '../private/option-values.js';
import { MIN_NEW_PASSPHRASE_LENGTH, readPassphrase } from '../private/passphrase.js';
import { FORCE_OPTION, KEY_TYPE_OPTION, PASSPHRASE_OPTION } from '../private/shared-options.js';

export const initCommand: Command = {
  name: 'init',
  summary: 'create a CA: DIR/ca.crt, DIR/ca.key (encrypted) and DIR/ca.db.json',
  usage: 'bridge-ca init --name NAME --out DIR [--key-type TYPE] [--days N]',
  options: {
    name: {
      type: 'string',
      value: 'NAME',
      description: 'the CA name (its subject CN)',
      required: true,
    },
    out: {
      type: 'string',
      value: 'DIR',
      description: 'directory to write the CA into',
      required: true,
    },
    ...KEY_TYPE_OPTION,
    days: {
      type: 'string',
      value: 'N',
      description: `validity in days (default ${DEFAULT_CA_DAYS})`,
    },
    ...PASSPHRASE_OPTION,
    ...FORCE_OPTION,
  },
  notes: [
    `The passphrase needs at least ${MIN_NEW_PASSPHRASE_LENGTH} characters: whoever copies the encrypted`,
    'key can guess a short one offline. On a terminal it is asked for twice.',
  ],
  async run(ctx) {
    const { values } = ctx;
    const name = requiredString(values, 'name');
    const dir = ctx.path(requiredString(values, 'out'));
    const keyType = oneOf(values, 'key-type', KEY_TYPES) ?? DEFAULT_KEY_TYPE;
    const days = daysOption(optionalString(values, 'days'), DEFAULT_CA_DAYS);
    const force = values.force === true;
    const certPath = join(dir, 'ca.crt');
    const keyPath = join(dir, 'ca.key');
    const dbPath = join(dir, 'ca.db.json');
    await checkOutputs([certPath, keyPath, dbPath], force);
    const passphrase = await readPassphrase(ctx.io, optionalString(values, 'passphrase-file'), {
      newKey: true,
    });
    const ca = await createCA({ name, keyType, days, now: ctx.io.now() });
    const facts = certificateFacts(ca.certPem);
    const db = emptyCaDatabase(facts);
    await writeOutputs(
      [
        { path: keyPath, content: encryptPrivateKey(ca.keyPem, passphrase), mode: SECRET_MODE },
        { path: certPath, content: ca.certPem, mode: PUBLIC_MODE },
        { path: dbPath, content: `${JSON.stringify(db, null, 2)}\n`, mode: PUBLIC_MODE },
      ],
      force,
    );
    return {
      text: [
        `created CA ${facts.subject} (${facts.keyType}), valid until ${facts.notAfter.toISOString()}`,
        `  certificate: ${certPath}`,
        `  key (encrypted): ${keyPath}`,
        `  database: ${dbPath}`,
      ],
      json: {
        subject: facts.subject,
        serial: facts.serialHex,
        keyType: facts.keyType,
        notAfter: facts.notAfter.toISOString(),
        cert: certPath,
        key: keyPath,
        database: dbPath,
      },
    };
  },
};
