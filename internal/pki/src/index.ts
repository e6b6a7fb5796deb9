// The public face of @agent-bridge/pki: keys (node:crypto), certificates and
// CRLs (@peculiar/x509), path validation (pkijs), encrypted CA keys and the
// CA database. Everything is a function of its inputs; nothing is global.
export {
  type CaDatabase,
  type CaDatabaseEntry,
  caDatabasePath,
  emptyCaDatabase,
  findEntry,
  normalizeSerial,
  readCaDatabase,
  recordIssued,
  revokedEntries,
  writeCaDatabase,
} from './ca-database.js';
export type { CertAndKey } from './cert-and-key.js';
export {
  type CertificateFacts,
  type CertificateKind,
  certificateFacts,
  EKU,
  isIssuedBy,
} from './certificate-facts.js';
export {
  CLIENT_IDENTITY_PREFIX,
  clientIdentityUri,
  clientNameFromUri,
  isValidClientName,
} from './client-identity.js';
export {
  CA_KEY_USAGE,
  checkSubjectName,
  createCA,
  DEFAULT_CA_DAYS,
  ROOT_PATH_LENGTH,
} from './create-ca.js';
export {
  createCrl,
  DEFAULT_CRL_DAYS,
  REVOCATION_REASONS,
  type RevocationReason,
  type RevokedEntry,
  revocationReason,
} from './create-crl.js';
export { crossSign } from './cross-sign.js';
export { type InspectedItem, type InspectValue, inspectText } from './inspect.js';
export {
  DEFAULT_LEAF_DAYS,
  type IssueCertOptions,
  issueCert,
  type LeafType,
  leafSans,
} from './issue-cert.js';
export {
  certificateThumbprint,
  ed25519PublicParts,
  generateJwtKeyPair,
  type JwtKeyPair,
  jwkThumbprint,
} from './jwt-keys.js';
export {
  decryptPrivateKey,
  describeKeyEncryption,
  encryptPrivateKey,
  isEncryptedPrivateKey,
  KEY_ENCRYPTION,
} from './key-encryption.js';
export { DEFAULT_KEY_TYPE, isKeyType, KEY_TYPES, type KeyType } from './key-type.js';
export { certificatePems, type PemBlock, singleCertificatePem, splitPem, toPem } from './pem.js';
export { PkiError, type PkiErrorCode } from './pki-error.js';
export { type RenewCertOptions, renewCert } from './renew-cert.js';
export {
  parseCrlBlocks,
  type ReadRevocationListsOptions,
  type RevocationList,
  readRevocationLists,
  revokedInChain,
} from './revocation-list.js';
export { isDnsName, parseSans, type SubjectAltNames } from './subject-alt-names.js';
export { isSelfSigned, leadsToBundle } from './trust-path.js';
export {
  type Purpose,
  type VerifyChainOptions,
  type VerifyChainResult,
  verifyChain,
} from './verify-chain.js';
