export { type IssuerKey, type IssuerKeys, loadIssuerKeys } from './issuer-keys.js';
export {
  AuthError,
  type AuthReason,
  bearerToken,
  JwtVerifier,
  type JwtVerifierOptions,
  type PresentedCertificate,
  type VerifiedCaller,
} from './jwt-verifier.js';
