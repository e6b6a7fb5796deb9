import type { Command } from '@agent-bridge/cli';
import {
  createCrl,
  DEFAULT_CRL_DAYS,
  readCaDatabase,
  revokedEntries,
  writeCaDatabase,
} from '@agent-bridge/pki';
import { claimOutput } from '../private/claimed-output.js';
import { daysOption } from '../private/duration.js';
import { openCaFromOptions } from '../private/open-ca.js';
import { optionalString } from '../private/option-values.js';
import { CA_OPTIONS, FORCE_OPTION, PASSPHRASE_OPTION } from '../private/shared-options.js';

export const crlCommand: Command = {
  name: 'crl',
  summary: 'write a signed CRL of the revoked serials in the CA database',
  usage: 'bridge-ca crl --ca FILE --ca-key FILE --out FILE [--days N]',
  options: {
    ...CA_OPTIONS,
    out: {
      type: 'string',
      value: 'FILE',
      description: 'the CRL (PEM, label X509 CRL)',
      required: true,
    },
    days: {
      type: 'string',
      value: 'N',
      description: `days until nextUpdate (default ${DEFAULT_CRL_DAYS})`,
    },
    ...PASSPHRASE_OPTION,
    ...FORCE_OPTION,
  },
  notes: [
    'Re-run before nextUpdate: Node and OpenSSL reject an expired CRL, and with CRLs configured',
    'every CA in the trust bundle needs a current one. A cron job passes --force.',
  ],
  async run(ctx) {
    const days = daysOption(optionalString(ctx.values, 'days'), DEFAULT_CRL_DAYS);
    const out = await claimOutput(ctx);
    const opened = await openCaFromOptions(ctx);
    const now = ctx.io.now();
    const db = await readCaDatabase(opened.dbPath, opened.facts);
    const crlNumber = db.crlNumber + 1;
    const revoked = revokedEntries(db);
    const pem = await createCrl({ ca: opened.ca, revoked, days, now, crlNumber });
    await out.write(pem);
    // Counted only once the CRL is out, so a failure does not skip a number.
    db.crlNumber = crlNumber;
    await writeCaDatabase(opened.dbPath, db);
    const count = revoked.length;
    const nextUpdate = new Date(now.getTime() + days * 86_400_000).toISOString();
    return {
      text: [
        `wrote ${out.path}: CRL number ${crlNumber}, ${count} revoked, next update ${nextUpdate}`,
      ],
      json: { crl: out.path, crlNumber, revoked: count, nextUpdate },
    };
  },
};
