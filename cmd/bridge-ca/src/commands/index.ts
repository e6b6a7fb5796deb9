import type { Command } from '@agent-bridge/cli';
import { bundleCommand } from './bundle.js';
import { crlCommand } from './crl.js';
import { crossSignCommand } from './cross-sign.js';
import { initCommand } from './init.js';
import { inspectCommand } from './inspect.js';
import { issueCommand } from './issue.js';
import { jwtKeygenCommand } from './jwt-keygen.js';
import { jwtMintCommand } from './jwt-mint.js';
import { renewCommand } from './renew.js';
import { revokeCommand } from './revoke.js';
import { verifyCommand } from './verify.js';

/**
 * In the order `bridge-ca --help` lists them: the order of the walkthrough in
 * docs/pki.md (build the PKI, then maintain it, then mint tokens and inspect).
 */
export const COMMANDS: readonly Command[] = [
  initCommand,
  issueCommand,
  crossSignCommand,
  bundleCommand,
  jwtKeygenCommand,
  renewCommand,
  verifyCommand,
  revokeCommand,
  crlCommand,
  jwtMintCommand,
  inspectCommand,
];
