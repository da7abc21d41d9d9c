import { createHash, randomBytes } from 'node:crypto';
import {
  type AuthorizationServerMetadata,
  clientAuthenticationNone,
  HashAlgorithm,
  type Jwk,
  type JwtSigner,
  Oauth2AuthorizationServer,
  Oauth2ServerErrorResponseError,
} from '@openid4vc/oauth2';
import {
  type CredentialIssuerMetadata,
  type IssuerMetadataResult,
  Openid4vciIssuer,
  Openid4vciVersion,
  setGlobalConfig,
} from '@openid4vc/openid4vci';
import { compactVerify, importJWK } from 'jose';
import { VC_V2_CONTEXT } from '../vc/contexts.js';
import { holderJwk } from './wallet.holder.js';
import { JWT_VC_JSON, LDP_VC, PRE_AUTHORIZED_CODE_GRANT, ProtocolError } from './wallet.terms.js';

/**
 * The library refuses every `http:` URL in its documents. A service whose PUBLIC_BASE_URL is plain
 * HTTP (`npm start` on a laptop, a wallet test on loopback) would then fail to make any offer; its
 * operator chose that base, so its URLs are allowed, and each wallet applies its own rule to them.
 * The setting is the library's, for the whole process, which serves one base URL.
 */
export function allowPlainHttp(): void {
  setGlobalConfig({ allowInsecureUrls: true });
}

/** The proof signatures a holder key may make. */
const PROOF_ALGORITHMS = ['EdDSA', 'ES256'];

/** The library's refusal as the spec's error; its description is the library's, never a key or a name. */
export function protocolErrorOf(error: unknown): ProtocolError | null {
  if (error instanceof Oauth2ServerErrorResponseError) {
    const description = error.errorResponse.error_description ?? 'The request was refused.';
    return new ProtocolError(error.status, error.errorResponse.error, String(description).split('\n')[0] ?? '');
  }
  return null;
}

/**
 * The holder's proof JWT is checked with jose against the key its header names (a did:key, a
 * did:jwk or an embedded jwk): the library decides which key and checks the claims, this checks the
 * signature.
 */
async function verifyJwt(signer: JwtSigner, jwt: { compact: string }) {
  const signerJwk = await holderJwk(signer);
  if (!signerJwk) return { verified: false as const };
  try {
    await compactVerify(jwt.compact, await importJWK(signerJwk, signer.alg), { algorithms: PROOF_ALGORITHMS });
    return { verified: true as const, signerJwk: signerJwk as Jwk };
  } catch {
    return { verified: false as const, signerJwk: signerJwk as Jwk };
  }
}

const callbacks = {
  hash: (data: Uint8Array, alg: HashAlgorithm) => {
    if (alg !== HashAlgorithm.Sha256) throw new Error(`hash ${alg} is not supported`);
    return createHash('sha256').update(data).digest();
  },
  generateRandom: (bytes: number) => randomBytes(bytes),
  verifyJwt,
  signJwt: () => {
    throw new Error('this issuer signs credentials, not protocol JWTs');
  },
  clientAuthentication: clientAuthenticationNone({ clientId: 'wallet' }),
};

/** Animo's OpenID4VCI issuer and OAuth 2.0 authorization server (docs/decisions.md, "Wallet offers"). */
export const vciIssuer = new Openid4vciIssuer({ callbacks });
export const authorizationServer = new Oauth2AuthorizationServer({ callbacks });

export interface IssuerEndpoints {
  /** The Credential Issuer Identifier: the issuer's /v1/issuers/{slug} URL. */
  identifier: string;
  token: string;
  nonce: string;
  credential: string;
}

export function endpointsOf(issuerUrl: string): IssuerEndpoints {
  return {
    identifier: issuerUrl,
    token: `${issuerUrl}/oid4vci/token`,
    nonce: `${issuerUrl}/oid4vci/nonce`,
    credential: `${issuerUrl}/oid4vci/credential`,
  };
}

const bindingMethods = ['did:key', 'did:jwk', 'jwk'];
const proofTypes = { jwt: { proof_signing_alg_values_supported: PROOF_ALGORITHMS } };
/**
 * The ldp_vc configuration's jwt proof algorithms, in the form Credo (0.6) reads as well: it takes
 * this list of an ldp_vc configuration as Linked Data signature suite names and keeps a holder key
 * only when its suite (Ed25519Signature2018/2020 for Ed25519) is named. OpenID4VCI 1.0 Appendix
 * F.1 says the values SHOULD be JOSE algorithm names and that the proof's `alg` MUST match one of
 * them: the JOSE names stay, so every other wallet reads the list as before.
 */
const ldpProofTypes = {
  jwt: { proof_signing_alg_values_supported: [...PROOF_ALGORITHMS, 'Ed25519Signature2018', 'Ed25519Signature2020'] },
};
const credentialTypes = ['VerifiableCredential', 'OpenBadgeCredential'];

/** The Credential Issuer Metadata (OpenID4VCI 1.0 §12.2), checked by the library. */
export function credentialIssuerMetadata(
  endpoints: IssuerEndpoints,
  display: { name: string; logo: string | null },
  contexts: string[],
): CredentialIssuerMetadata {
  const badge = [{ name: 'Open Badge', locale: 'en' }];
  return vciIssuer.createCredentialIssuerMetadata({
    credential_issuer: endpoints.identifier,
    credential_endpoint: endpoints.credential,
    nonce_endpoint: endpoints.nonce,
    display: [{ name: display.name, ...(display.logo ? { logo: { uri: display.logo } } : {}) }],
    credential_configurations_supported: {
      [LDP_VC]: {
        format: 'ldp_vc',
        cryptographic_binding_methods_supported: bindingMethods,
        credential_signing_alg_values_supported: ['eddsa-rdfc-2022'],
        proof_types_supported: ldpProofTypes,
        credential_definition: { '@context': contexts.length > 0 ? contexts : [VC_V2_CONTEXT], type: credentialTypes },
        credential_metadata: { display: badge },
      },
      [JWT_VC_JSON]: {
        format: 'jwt_vc_json',
        cryptographic_binding_methods_supported: bindingMethods,
        credential_signing_alg_values_supported: ['EdDSA'],
        proof_types_supported: proofTypes,
        credential_definition: { type: credentialTypes },
        credential_metadata: { display: badge },
      },
    },
  });
}

/** The Authorization Server metadata (RFC 8414): the issuer is its own, for the pre-authorized code only. */
export function authorizationServerMetadata(endpoints: IssuerEndpoints): AuthorizationServerMetadata {
  return authorizationServer.createAuthorizationServerMetadata({
    issuer: endpoints.identifier,
    token_endpoint: endpoints.token,
    'pre-authorized_grant_anonymous_access_supported': true,
    grant_types_supported: [PRE_AUTHORIZED_CODE_GRANT],
    response_types_supported: [],
  } as AuthorizationServerMetadata);
}

export function issuerMetadataResult(
  credentialIssuer: CredentialIssuerMetadata,
  authorization: AuthorizationServerMetadata,
): IssuerMetadataResult {
  return {
    originalDraftVersion: Openid4vciVersion.V1,
    credentialIssuer,
    authorizationServers: [authorization],
    knownCredentialConfigurations: vciIssuer.getKnownCredentialConfigurationsSupported(credentialIssuer),
  };
}
