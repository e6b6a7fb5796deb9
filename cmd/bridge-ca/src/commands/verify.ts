import type { Command } from '@agent-bridge/cli';
import {
  type CertificateFacts,
  certificateFacts,
  type Purpose,
  parseCrlBlocks,
  verifyChain,
} from '@agent-bridge/pki';
import { EXIT } from '../exit-codes.js';
import { readInput } from '../private/files.js';
import { oneOf, requiredString, stringList } from '../private/option-values.js';

type VerifiedAs = 'leaf' | 'CA' | 'trust anchor';

/** After "FILE: OK": what was verified, when it is not the usual leaf. */
const VERIFIED_AS_TEXT: Record<VerifiedAs, string> = {
  leaf: '',
  CA: ' as a CA certificate (not a leaf)',
  'trust anchor': ' as a trust anchor (a root of the bundle itself, trusted as given)',
};

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
    'The certificate checked is the first in --cert, always: a CA certificate is verified as a CA',
    '(the output says so), and a root of the bundle itself is trusted as it is (a trust anchor).',
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
    for (const file of stringList(values, 'crl')) {
      const path = ctx.path(file);
      const text = await readInput(path, 'CRL');
      // Parsed here first so that a file that is no CRL is named in the error.
      parseCrlBlocks(text, `CRL ${path}`);
      crlPems.push(text);
    }
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
    const checked = chain[0] as CertificateFacts;
    const verifiedAs: VerifiedAs = result.trustAnchor
      ? 'trust anchor'
      : checked.isCa
        ? 'CA'
        : 'leaf';
    return {
      text: [
        `${certPath}: OK${VERIFIED_AS_TEXT[verifiedAs]}`,
        ...chain.map(
          (c, depth) =>
            `  ${depth} ${c.subject}${c.selfIssued ? ' (root)' : ` (issuer ${c.issuer})`}, until ${c.notAfter.toISOString()}`,
        ),
      ],
      json: {
        ok: true,
        cert: certPath,
        verifiedAs,
        verified: {
          subject: checked.subject,
          serial: checked.serialHex,
          fingerprintSha256: checked.fingerprintSha256,
        },
        chain: chain.map((c) => ({ subject: c.subject, issuer: c.issuer, serial: c.serialHex })),
      },
    };
  },
};
