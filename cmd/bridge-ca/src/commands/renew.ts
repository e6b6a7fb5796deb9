import type { Command } from '@agent-bridge/cli';
import { CliError } from '@agent-bridge/cli';
import {
  certificateFacts,
  DEFAULT_LEAF_DAYS,
  isKeyType,
  KEY_TYPES,
  recordIssued,
  renewCert,
} from '@agent-bridge/pki';
import { EXIT } from '../exit-codes.js';
import { certificateJson, sanSummary, updateCaDatabase } from '../private/ca-records.js';
import { daysOption, parseDuration } from '../private/duration.js';
import {
  checkOutputs,
  type OutputFile,
  PUBLIC_MODE,
  SECRET_MODE,
  writeOutputs,
} from '../private/files.js';
import { type InputCertificate, readLeafCertificate } from '../private/leaf-certificate.js';
import { openCaFromOptions } from '../private/open-ca.js';
import { flag, oneOf, optionalString, requiredString } from '../private/option-values.js';
import {
  CA_OPTIONS,
  FORCE_OPTION,
  KEY_TYPE_OPTION,
  PASSPHRASE_OPTION,
} from '../private/shared-options.js';

/** Only what `issue` makes can be renewed; checked before the passphrase is asked for. */
async function readRenewable(path: string): Promise<InputCertificate> {
  const cert = await readLeafCertificate(
    'cert',
    path,
    "renew re-issues server, client and peer certificates; for a cross certificate run 'bridge-ca cross-sign' again, for a CA 'bridge-ca init'",
  );
  if (cert.facts.kind !== 'server' && cert.facts.kind !== 'client' && cert.facts.kind !== 'peer') {
    throw new CliError(
      EXIT.badInput,
      `--cert ${path} (${cert.facts.subject}) is not a server, client or peer certificate (no serverAuth or clientAuth extended key usage): renew re-issues what 'bridge-ca issue' made`,
    );
  }
  return cert;
}

export const renewCommand: Command = {
  name: 'renew',
  summary: 'reissue a certificate with the same subject, SANs and (unless --rekey) key',
  usage:
    'bridge-ca renew --cert FILE --ca FILE --ca-key FILE [--if-expiring-within 30d] [--rekey] [--out PREFIX]',
  options: {
    cert: {
      type: 'string',
      value: 'FILE',
      description: 'the server or client certificate to renew (not a CA)',
      required: true,
    },
    ...CA_OPTIONS,
    days: {
      type: 'string',
      value: 'N',
      description: `validity in days (default ${DEFAULT_LEAF_DAYS})`,
    },
    'if-expiring-within': {
      type: 'string',
      value: 'DURATION',
      description:
        'only renew when it expires within DURATION (e.g. 30d); otherwise say so and exit 0',
    },
    rekey: { type: 'boolean', description: 'generate a new key too' },
    ...KEY_TYPE_OPTION,
    out: {
      type: 'string',
      value: 'PREFIX',
      description: 'write PREFIX.crt (and PREFIX.key) instead of replacing the files in place',
    },
    ...PASSPHRASE_OPTION,
    ...FORCE_OPTION,
  },
  notes: [
    'Without --out the certificate is replaced in place (and with --rekey the key beside it,',
    'FILE with .crt changed to .key): replacing is what renew is for, so no --force is needed.',
    'The old certificate stays valid until it expires; revoke it if it must not.',
  ],
  async run(ctx) {
    const { values } = ctx;
    const certPath = ctx.path(requiredString(values, 'cert'));
    const rekey = flag(values, 'rekey');
    const keyType = oneOf(values, 'key-type', KEY_TYPES);
    const days = daysOption(optionalString(values, 'days'), DEFAULT_LEAF_DAYS);
    const windowText = optionalString(values, 'if-expiring-within');
    const windowMs =
      windowText === undefined ? undefined : parseDuration(windowText, '--if-expiring-within');
    const { pem: certPem, facts: old } = await readRenewable(certPath);
    const now = ctx.io.now();
    if (windowMs !== undefined && old.notAfter.getTime() - now.getTime() > windowMs) {
      return {
        text: [
          `not due: ${certPath} expires on ${old.notAfter.toISOString()}, more than ${windowText} away; nothing changed`,
        ],
        json: { renewed: false, cert: certPath, notAfter: old.notAfter.toISOString() },
      };
    }
    const outPrefix = optionalString(values, 'out');
    const newCertPath = outPrefix ? `${ctx.path(outPrefix)}.crt` : certPath;
    let newKeyPath: string | undefined;
    if (rekey) {
      if (outPrefix) newKeyPath = `${ctx.path(outPrefix)}.key`;
      else if (certPath.endsWith('.crt')) newKeyPath = `${certPath.slice(0, -4)}.key`;
      else
        throw new CliError(
          EXIT.usage,
          '--rekey needs --out PREFIX when the certificate file does not end in .crt',
        );
    }
    const force = outPrefix ? flag(values, 'force') : true;
    await checkOutputs([newCertPath, ...(newKeyPath ? [newKeyPath] : [])], force);
    const opened = await openCaFromOptions(ctx);
    const renewed = await renewCert({
      certPem,
      ca: opened.ca,
      days,
      now,
      rekey,
      ...(keyType && isKeyType(keyType) ? { keyType } : {}),
    });
    const outputs: OutputFile[] = [];
    if (newKeyPath && renewed.keyPem) {
      outputs.push({ path: newKeyPath, content: renewed.keyPem, mode: SECRET_MODE });
    }
    outputs.push({ path: newCertPath, content: renewed.certPem, mode: PUBLIC_MODE });
    await writeOutputs(outputs, force);
    const facts = certificateFacts(renewed.certPem);
    await updateCaDatabase(opened, (db) => recordIssued(db, facts, { file: newCertPath, now }));
    return {
      text: [
        `renewed ${facts.subject}: serial ${facts.serialHex}, valid until ${facts.notAfter.toISOString()}`,
        `  SANs: ${sanSummary(facts)}`,
        `  certificate: ${newCertPath}`,
        ...(newKeyPath ? [`  new key: ${newKeyPath}`] : ['  key: unchanged']),
      ],
      json: {
        renewed: true,
        ...certificateJson(facts),
        previousSerial: old.serialHex,
        cert: newCertPath,
        ...(newKeyPath ? { key: newKeyPath } : {}),
      },
    };
  },
};
