import type { Command } from '@agent-bridge/cli';
import {
  certificateFacts,
  checkSubjectName,
  DEFAULT_KEY_TYPE,
  DEFAULT_LEAF_DAYS,
  issueCert,
  KEY_TYPES,
  leafSans,
  recordIssued,
} from '@agent-bridge/pki';
import { certificateJson, sanSummary, updateCaDatabase } from '../private/ca-records.js';
import { daysOption } from '../private/duration.js';
import { checkOutputs, PUBLIC_MODE, SECRET_MODE, writeOutputs } from '../private/files.js';
import { openCaFromOptions } from '../private/open-ca.js';
import {
  flag,
  oneOf,
  optionalString,
  requiredString,
  stringList,
} from '../private/option-values.js';
import {
  CA_OPTIONS,
  FORCE_OPTION,
  KEY_TYPE_OPTION,
  PASSPHRASE_OPTION,
} from '../private/shared-options.js';

export const issueCommand: Command = {
  name: 'issue',
  summary: 'issue a server, client or peer certificate: PREFIX.crt and PREFIX.key',
  usage:
    'bridge-ca issue --type server|client|peer --cn CN [--san A,B] --ca FILE --ca-key FILE --out PREFIX',
  options: {
    type: {
      type: 'string',
      value: 'server|client|peer',
      description: 'certificate purpose (peer: both, as a NATS server on its cluster routes)',
      required: true,
    },
    cn: { type: 'string', value: 'CN', description: 'subject common name', required: true },
    san: {
      type: 'string',
      multiple: true,
      value: 'LIST',
      description: 'DNS names and IP addresses, comma-separated or repeated',
    },
    ...CA_OPTIONS,
    out: {
      type: 'string',
      value: 'PREFIX',
      description: 'writes PREFIX.crt and PREFIX.key (unencrypted PKCS#8, mode 0600)',
      required: true,
    },
    days: {
      type: 'string',
      value: 'N',
      description: `validity in days (default ${DEFAULT_LEAF_DAYS})`,
    },
    ...KEY_TYPE_OPTION,
    ...PASSPHRASE_OPTION,
    ...FORCE_OPTION,
  },
  notes: [
    'Server and peer certificates also list the CN as a SAN when it is a DNS name or IP address.',
    'Client certificates carry the URI SAN urn:agent-bridge:client:<CN>; the CN is limited to',
    'letters, digits, ".", "_" and "-".',
  ],
  async run(ctx) {
    const { values } = ctx;
    const type = oneOf(values, 'type', ['server', 'client', 'peer'] as const);
    if (!type) throw new Error('unreachable: --type is required');
    const cn = checkSubjectName(requiredString(values, 'cn'), 'the CN');
    const sans = stringList(values, 'san').flatMap((s) => s.split(','));
    leafSans(type, cn, sans);
    const keyType = oneOf(values, 'key-type', KEY_TYPES) ?? DEFAULT_KEY_TYPE;
    const days = daysOption(optionalString(values, 'days'), DEFAULT_LEAF_DAYS);
    const prefix = ctx.path(requiredString(values, 'out'));
    const force = flag(values, 'force');
    const certPath = `${prefix}.crt`;
    const keyPath = `${prefix}.key`;
    await checkOutputs([certPath, keyPath], force);
    const opened = await openCaFromOptions(ctx);
    const now = ctx.io.now();
    const issued = await issueCert({ type, cn, sans, ca: opened.ca, days, keyType, now });
    await writeOutputs(
      [
        { path: keyPath, content: issued.keyPem, mode: SECRET_MODE },
        { path: certPath, content: issued.certPem, mode: PUBLIC_MODE },
      ],
      force,
    );
    const facts = certificateFacts(issued.certPem);
    await updateCaDatabase(opened, (db) => recordIssued(db, facts, { file: certPath, now }));
    return {
      text: [
        `issued ${type} certificate ${facts.subject} serial ${facts.serialHex}`,
        `  SANs: ${sanSummary(facts)}`,
        `  valid until ${facts.notAfter.toISOString()}`,
        `  certificate: ${certPath}`,
        `  key: ${keyPath}`,
      ],
      json: { ...certificateJson(facts), cert: certPath, key: keyPath },
    };
  },
};
