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
import { caNotLeafError, readCertificateFile } from '../private/leaf-certificate.js';
import { openCaFromOptions, readCaCertificate } from '../private/open-ca.js';
import { flag, optionalString, requiredString } from '../private/option-values.js';
import { CA_OPTIONS, PASSPHRASE_OPTION } from '../private/shared-options.js';

const ROOT_FIX =
  'revoke takes a leaf or a cross certificate this CA issued; a CA cannot revoke itself, and a root is retired by taking it out of the trust bundles';

export const revokeCommand: Command = {
  name: 'revoke',
  summary: "record a certificate as revoked in the CA database (publish with 'crl')",
  usage: 'bridge-ca revoke --ca FILE --ca-key FILE (--cert FILE | --serial HEX) [--reason REASON]',
  options: {
    ...CA_OPTIONS,
    cert: {
      type: 'string',
      value: 'FILE',
      description: 'the certificate to revoke: a leaf, or a cross certificate this CA issued',
    },
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
    'It takes a leaf or a cross certificate this CA issued, never a root: a CA cannot revoke',
    'itself; a root is retired by taking it out of the trust bundles.',
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
    const ca = await readCaCertificate(ctx, ctx.path(requiredString(values, 'ca')));
    let serial: string;
    let certPem: string | undefined;
    if (certFile !== undefined) {
      const cert = await readCertificateFile(ctx.path(certFile));
      // A cross certificate is a CA certificate too, and revoking it is how trust given to
      // another project is withdrawn early; a root (self-issued) is refused.
      if (cert.facts.isCa && cert.facts.selfIssued) throw caNotLeafError('cert', cert, ROOT_FIX);
      if (!isIssuedBy(cert.pem, ca.pem)) {
        throw new CliError(EXIT.caRefused, `${certFile} was not issued by CA ${ca.facts.subject}`);
      }
      certPem = cert.pem;
      serial = cert.facts.serialHex;
    } else {
      serial = normalizeSerial(serialText ?? '');
      if (!/^[0-9a-f]+$/.test(serial)) {
        throw new CliError(
          EXIT.usage,
          `--serial: "${serialText}" is not a hexadecimal serial number`,
        );
      }
      if (serial === normalizeSerial(ca.facts.serialHex)) {
        throw new CliError(
          EXIT.badInput,
          `--serial ${serial} is the serial of CA ${ca.facts.subject} itself: ${ROOT_FIX}`,
        );
      }
    }
    const opened = await openCaFromOptions(ctx);
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
