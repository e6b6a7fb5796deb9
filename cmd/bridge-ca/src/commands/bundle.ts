import type { Command } from '@agent-bridge/cli';
import { CliError } from '@agent-bridge/cli';
import { type CertificateFacts, certificateFacts, certificatePems } from '@agent-bridge/pki';
import { EXIT } from '../exit-codes.js';
import { claimOutput } from '../private/claimed-output.js';
import { readInput } from '../private/files.js';
import { stringList } from '../private/option-values.js';
import { FORCE_OPTION } from '../private/shared-options.js';

export const bundleCommand: Command = {
  name: 'bundle',
  summary: 'build a trust bundle: our CA(s) plus cross-signed CA certificates',
  usage: 'bridge-ca bundle --ca FILE [--cross-signed FILE ...] --out FILE',
  options: {
    ca: {
      type: 'string',
      multiple: true,
      value: 'FILE',
      description: 'a root CA certificate (repeatable)',
      required: true,
    },
    'cross-signed': {
      type: 'string',
      multiple: true,
      value: 'FILE',
      description: 'a cross-signed CA certificate (repeatable)',
    },
    out: { type: 'string', value: 'FILE', description: 'the bundle (PEM)', required: true },
    ...FORCE_OPTION,
  },
  notes: [
    'Every cross-signed certificate must be issued by one of the --ca roots, or nothing could',
    'chain through it. Duplicates are dropped.',
  ],
  async run(ctx) {
    const { values } = ctx;
    const roots = await readCas(ctx.path, stringList(values, 'ca'), 'CA certificate');
    if (roots.length === 0) throw new CliError(EXIT.usage, '--ca is required');
    const out = await claimOutput(ctx);
    const crosses = await readCas(
      ctx.path,
      stringList(values, 'cross-signed'),
      'cross-signed certificate',
    );
    for (const cross of crosses) {
      if (!roots.some((root) => root.facts.subject === cross.facts.issuer)) {
        throw new CliError(
          EXIT.badInput,
          `${cross.file}: its issuer ${cross.facts.issuer} is not among the --ca certificates`,
        );
      }
    }
    const seen = new Set<string>();
    const members = [...roots, ...crosses].filter((m) => {
      if (seen.has(m.facts.fingerprintSha256)) return false;
      seen.add(m.facts.fingerprintSha256);
      return true;
    });
    await out.write(members.map((m) => m.pem).join(''));
    return {
      text: [
        `wrote ${out.path} with ${members.length} certificate(s):`,
        ...members.map((m) => `  ${m.facts.subject} (issuer ${m.facts.issuer})`),
      ],
      json: {
        bundle: out.path,
        certificates: members.map((m) => ({
          subject: m.facts.subject,
          issuer: m.facts.issuer,
          fingerprintSha256: m.facts.fingerprintSha256,
        })),
      },
    };
  },
};

async function readCas(
  resolve: (p: string) => string,
  files: string[],
  what: string,
): Promise<{ file: string; pem: string; facts: CertificateFacts }[]> {
  const result = [];
  for (const file of files) {
    const path = resolve(file);
    for (const pem of certificatePems(await readInput(path, what), `${what} ${path}`)) {
      const facts = certificateFacts(pem, `${what} ${path}`);
      if (!facts.isCa)
        throw new CliError(EXIT.caRefused, `${path}: ${facts.subject} is not a CA certificate`);
      result.push({ file: path, pem, facts });
    }
  }
  return result;
}
