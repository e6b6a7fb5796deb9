export { type IssuerKey, type IssuerKeys, loadIssuerKeys } from './issuer-keys.js';
export {
  AuthError,
  bearerToken,
  JwtVerifier,
  type JwtVerifierOptions,
  type VerifiedCaller,
} from './jwt-verifier.js';
