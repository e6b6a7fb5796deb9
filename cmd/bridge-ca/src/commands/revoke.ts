import type { Command } from '@agent-bridge/cli';
import { CliError } from '@agent-bridge/cli';
import {
  certificateFacts,
  findEntry,
  isIssuedBy,
  normalizeSerial,
  REVOCATION_REASONS,
  revocationReason,
} from '@agent-bridge/pki';
import { EXIT } from '../exit-codes.js';
import { updateCaDatabase } from '../private/ca-records.js';
import { readInput } from '../private/files.js';
import { openCaFromOptions } from '../private/open-ca.js';
import { flag, optionalString } from '../private/option-values.js';
import { CA_OPTIONS, PASSPHRASE_OPTION } from '../private/shared-options.js';

export const revokeCommand: Command = {
  name: 'revoke',
  summary: "record a certificate as revoked in the CA database (publish with 'crl')",
  usage: 'bridge-ca revoke --ca FILE --ca-key FILE (--cert FILE | --serial HEX) [--reason REASON]',
  options: {
    ...CA_OPTIONS,
    cert: { type: 'string', value: 'FILE', description: 'the certificate to revoke' },
    serial: { type: 'string', value: 'HEX', description: 'or its serial number in hex' },
    reason: {
      type: 'string',
      value: 'REASON',
      description: `one of ${REVOCATION_REASONS.join(', ')} (default unspecified)`,
    },
    force: {
      type: 'boolean',
      description: 'record a --serial the database does not know (issued elsewhere)',
    },
    ...PASSPHRASE_OPTION,
  },
  notes: [
    'The CA key is required so that only its holder can revoke. Revoking twice is not an error.',
  ],
  async run(ctx) {
    const { values } = ctx;
    const reasonText = optionalString(values, 'reason') ?? 'unspecified';
    const reason = revocationReason(reasonText);
    if (!reason) {
      throw new CliError(EXIT.usage, `--reason must be one of ${REVOCATION_REASONS.join(', ')}`);
    }
    const certFile = optionalString(values, 'cert');
    const serialText = optionalString(values, 'serial');
    if ((certFile === undefined) === (serialText === undefined)) {
      throw new CliError(EXIT.usage, 'give exactly one of --cert or --serial');
    }
    let serial: string;
    let certPem: string | undefined;
    if (certFile !== undefined) {
      const path = ctx.path(certFile);
      certPem = await readInput(path, 'certificate');
      serial = certificateFacts(certPem, `certificate ${path}`).serialHex;
    } else {
      serial = normalizeSerial(serialText ?? '');
      if (!/^[0-9a-f]+$/.test(serial)) {
        throw new CliError(
          EXIT.usage,
          `--serial: "${serialText}" is not a hexadecimal serial number`,
        );
      }
    }
    const opened = await openCaFromOptions(ctx);
    if (certPem !== undefined && !isIssuedBy(certPem, opened.ca.certPem)) {
      throw new CliError(
        EXIT.caRefused,
        `${certFile} was not issued by CA ${opened.facts.subject}`,
      );
    }
    const now = ctx.io.now();
    let already: string | undefined;
    await updateCaDatabase(opened, (db) => {
      let entry = findEntry(db, serial);
      if (!entry) {
        if (certPem === undefined && !flag(values, 'force')) {
          throw new CliError(
            EXIT.badInput,
            `serial ${serial} is not in ${opened.dbPath}; check it, or use --force to record it anyway`,
          );
        }
        const facts = certPem ? certificateFacts(certPem) : undefined;
        entry = {
          serial,
          subject: facts?.subject ?? '(unknown)',
          kind: facts?.kind ?? 'unknown',
          notBefore: facts?.notBefore.toISOString() ?? '',
          notAfter: facts?.notAfter.toISOString() ?? '',
          issuedAt: '',
        };
        db.certificates.push(entry);
      }
      if (entry.revoked) already = entry.revoked.date;
      else entry.revoked = { date: now.toISOString(), reason };
    });
    const text = already
      ? `serial ${serial} was already revoked on ${already}; nothing changed`
      : `revoked serial ${serial} (${reason}); run 'bridge-ca crl' to publish a new CRL`;
    return {
      text: [text],
      json: { serial, reason, alreadyRevoked: already !== undefined, database: opened.dbPath },
    };
  },
};
