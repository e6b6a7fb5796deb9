import type { Command } from '@agent-bridge/cli';
import { type InspectValue, inspectText } from '@agent-bridge/pki';
import { readInput } from '../private/files.js';

export const inspectCommand: Command = {
  name: 'inspect',
  summary: 'describe the certificates, keys, CRLs or JWK in a file',
  usage: 'bridge-ca inspect FILE',
  options: {},
  positionals: { min: 1, max: 1 },
  notes: [
    'Certificates: subject, issuer, CA or leaf, SANs, key type, validity, fingerprint.',
    'Keys: type, and for encrypted keys the KDF, iterations and cipher. CRLs: dates and entries.',
  ],
  async run(ctx) {
    const file = ctx.path(ctx.positionals[0] ?? '');
    const items = inspectText(await readInput(file, 'file'));
    const text: string[] = [];
    items.forEach((item, i) => {
      text.push(`${items.length > 1 ? `[${i}] ` : ''}${item.type}`);
      for (const [key, value] of Object.entries(item.fields)) text.push(...formatField(key, value));
    });
    return { text, json: { file, items } };
  },
};

function formatField(key: string, value: InspectValue): string[] {
  if (!Array.isArray(value)) return [`  ${key}: ${value}`];
  if (value.length === 0) return [`  ${key}: (none)`];
  return [`  ${key}:`, ...value.map((v) => `    ${v}`)];
}
