/**
 * The protocol's names and its error answer, apart from wallet.protocol.ts: the routes and the
 * service use them without loading the OpenID4VCI library, which the service loads at the first
 * wallet request (a third of a second of the server's start otherwise).
 */

/** The credential configurations every issuer offers: one OpenBadgeCredential, in two formats. */
export const LDP_VC = 'OpenBadgeCredential_ldp_vc';
export const JWT_VC_JSON = 'OpenBadgeCredential_jwt_vc_json';
export const CONFIGURATIONS = [LDP_VC, JWT_VC_JSON] as const;
/** The pre-authorized code grant's type (OpenID4VCI 1.0 §4.1.1). */
export const PRE_AUTHORIZED_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';

/**
 * Transaction codes an offer has checked before it is spent for good: 5 guesses in a million. Each
 * is counted before it is compared (issue 48.3), as sign-in counts a password before hashing it.
 */
export const TX_CODE_ATTEMPTS = 5;
/**
 * Presentations an LCW challenge has checked before it is dead (issue 48.2): the challenge is in
 * the award email for 30 days, and each check is a JSON-LD canonicalisation and a signature. A
 * wallet's own presentation passes first time; a few spare attempts cover a retried request.
 */
export const LCW_ATTEMPTS = 5;

/** An OAuth 2.0 / OpenID4VCI error answer: the status, the spec's error code and its description. */
export class ProtocolError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    description: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
    this.name = 'ProtocolError';
  }
}
