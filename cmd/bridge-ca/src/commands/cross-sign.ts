import type { Command } from '@agent-bridge/cli';
import { certificateFacts, crossSign, recordIssued } from '@agent-bridge/pki';
import { certificateJson, updateCaDatabase } from '../private/ca-records.js';
import { claimOutput } from '../private/claimed-output.js';
import { parseDays } from '../private/duration.js';
import { openCa, readCaCertificate } from '../private/open-ca.js';
import { optionalString, requiredString } from '../private/option-values.js';
import { FORCE_OPTION, PASSPHRASE_OPTION } from '../private/shared-options.js';

export const crossSignCommand: Command = {
  name: 'cross-sign',
  summary: "certify another project's CA with ours (same subject, key and SKI; pathlen 0)",
  usage:
    'bridge-ca cross-sign --signer-ca FILE --signer-key FILE --target-ca FILE --out FILE [--days N]',
  options: {
    'signer-ca': {
      type: 'string',
      value: 'FILE',
      description: 'our CA certificate',
      required: true,
    },
    'signer-key': {
      type: 'string',
      value: 'FILE',
      description: 'our encrypted CA key',
      required: true,
    },
    'target-ca': {
      type: 'string',
      value: 'FILE',
      description: "the other project's CA certificate",
      required: true,
    },
    out: {
      type: 'string',
      value: 'FILE',
      description: 'the cross-signed certificate',
      required: true,
    },
    days: {
      type: 'string',
      value: 'N',
      description: 'validity in days (default: until the target CA expires)',
    },
    ...PASSPHRASE_OPTION,
    ...FORCE_OPTION,
  },
  notes: [
    'A leaf issued by the target CA then verifies against a bundle holding our root and this',
    'certificate. pathlen 0: the target may issue leaves under this trust, not further CAs.',
  ],
  async run(ctx) {
    const { values } = ctx;
    const daysText = optionalString(values, 'days');
    const days = daysText === undefined ? undefined : parseDays(daysText, '--days');
    const out = await claimOutput(ctx);
    const target = await readCaCertificate(
      ctx,
      ctx.path(requiredString(values, 'target-ca')),
      'target CA certificate',
    );
    const opened = await openCa(
      ctx,
      ctx.path(requiredString(values, 'signer-ca')),
      ctx.path(requiredString(values, 'signer-key')),
      optionalString(values, 'passphrase-file'),
    );
    const now = ctx.io.now();
    const pem = await crossSign({ signer: opened.ca, targetCaPem: target.pem, days, now });
    await out.write(pem);
    const facts = certificateFacts(pem);
    await updateCaDatabase(opened, (db) =>
      recordIssued(db, facts, { file: out.path, kind: 'cross-signed', now }),
    );
    return {
      text: [
        `cross-signed ${facts.subject} by ${facts.issuer}, serial ${facts.serialHex}`,
        `  valid until ${facts.notAfter.toISOString()}`,
        `  certificate: ${out.path}`,
      ],
      json: { ...certificateJson(facts), cert: out.path },
    };
  },
};
