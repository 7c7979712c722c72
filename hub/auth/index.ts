/** hub/auth: who is calling (bearer JWT or open dev mode) and what they may do. */
export { AuthConfigError, permissionDenied, unauthenticated } from "./errors.ts";
export type { AuthConfigErrorCode, AuthFailure } from "./errors.ts";
export { DEFAULT_JWKS_CACHE_MS, JWKS_ALGORITHMS, MIN_SECRET_BYTES, createAuthenticator, mintToken, tokenExpiry } from "./jwt.ts";
export type { AuthResult, Authenticator, AuthenticatorOptions, JwksOptions, MintClaims } from "./jwt.ts";
export { checkOrigin, originPolicy, type OriginPolicy } from "./origin.ts";
export {
  ADMIN_ROLE,
  DEV_PRINCIPAL,
  THREAD_ACTIONS,
  THREAD_ROLES,
  canPerform,
  checkPermission,
  hasRole,
} from "./principal.ts";
export type { ActionSource, Principal, Role, ThreadAction, ThreadRole } from "./principal.ts";
export { USER_AGENT_MAX, withRequestSource } from "./principal.ts";
export { ACCESS_TOKEN_PARAM, API_KEY_HEADER, SUBPROTOCOL_PREFIX, headerValue, tokenFromRequest } from "./token-source.ts";
export type { HeaderBag, TokenFound, TokenSourceKind } from "./token-source.ts";
