export { AuthError, type AuthReason } from './auth-error.js';
export { bearerToken } from './bearer-token.js';
export { type IssuerKey, type IssuerKeys, loadIssuerKeys } from './issuer-keys.js';
export {
  JwtVerifier,
  type JwtVerifierOptions,
  type PresentedCertificate,
  type VerifiedCaller,
} from './jwt-verifier.js';
