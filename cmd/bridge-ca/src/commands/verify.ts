import type { Command } from '@agent-bridge/cli';
import { certificateFacts, type Purpose, verifyChain } from '@agent-bridge/pki';
import { EXIT } from '../exit-codes.js';
import { readInput } from '../private/files.js';
import { oneOf, requiredString, stringList } from '../private/option-values.js';

export const verifyCommand: Command = {
  name: 'verify',
  summary: 'validate a certificate path against a trust bundle (and CRLs)',
  usage: 'bridge-ca verify --cert FILE --bundle FILE [--crl FILE ...] [--purpose server|client]',
  options: {
    cert: {
      type: 'string',
      value: 'FILE',
      description:
        'the certificate (further certificates in FILE count as untrusted intermediates)',
      required: true,
    },
    bundle: {
      type: 'string',
      multiple: true,
      value: 'FILE',
      description: 'trust bundle: self-signed roots are anchors, others intermediates (repeatable)',
      required: true,
    },
    crl: {
      type: 'string',
      multiple: true,
      value: 'FILE',
      description: 'CRL (repeatable); then every CA in the path needs a current CRL',
    },
    purpose: {
      type: 'string',
      value: 'server|client',
      description: 'require the serverAuth or clientAuth extended key usage',
    },
  },
  notes: [
    `Exit status ${EXIT.ok} when the path validates, ${EXIT.verifyFailed} with the reason when it does not.`,
  ],
  async run(ctx) {
    const { values } = ctx;
    const certPath = ctx.path(requiredString(values, 'cert'));
    const purpose = oneOf<Purpose>(values, 'purpose', ['server', 'client']);
    const certPem = await readInput(certPath, 'certificate');
    const bundlePems: string[] = [];
    for (const file of stringList(values, 'bundle')) {
      bundlePems.push(await readInput(ctx.path(file), 'bundle'));
    }
    const crlPems: string[] = [];
    for (const file of stringList(values, 'crl'))
      crlPems.push(await readInput(ctx.path(file), 'CRL'));
    const result = await verifyChain({
      certPem,
      bundlePems,
      crlPems,
      at: ctx.io.now(),
      ...(purpose ? { purpose } : {}),
    });
    if (!result.ok) {
      return {
        text: [`${certPath}: verification failed: ${result.reason}`],
        json: { ok: false, cert: certPath, reason: result.reason },
        exitCode: EXIT.verifyFailed,
      };
    }
    const chain = result.chainPems.map((pem) => certificateFacts(pem));
    return {
      text: [
        `${certPath}: OK`,
        ...chain.map(
          (c, depth) =>
            `  ${depth} ${c.subject}${c.selfIssued ? ' (root)' : ` (issuer ${c.issuer})`}, until ${c.notAfter.toISOString()}`,
        ),
      ],
      json: {
        ok: true,
        cert: certPath,
        chain: chain.map((c) => ({ subject: c.subject, issuer: c.issuer, serial: c.serialHex })),
      },
    };
  },
};
