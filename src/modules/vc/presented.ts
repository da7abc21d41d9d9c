import { from as multikeyFrom, toJwk } from '@digitalbazaar/ed25519-multikey';
import { compactVerify, decodeProtectedHeader, importJWK } from 'jose';
import type { Core } from '../../core/context.js';
import { publicUrls } from '../../core/urls.js';
import type { IssuerService } from '../issuers/issuers.service.js';
import { vcUrls } from './credential.builder.js';
import { issuerDid, verificationMethodId } from './did.js';
import type { SigningKeyService } from './signing-keys.service.js';

/** Three base64url segments: the shape of a compact JWS. */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const KID = /^(did:web:[^#]+)#key-([1-9][0-9]{0,8})$/;

export interface PresentedRef {
  issuerSlug: string;
  credentialId: string;
}

/**
 * Reads an Open Badges 3.0 VC-JWT given to verification. It answers for one only when its EdDSA
 * signature checks with a key of one of this service's issuers, resolved locally (never fetched),
 * and its `jti` is that issuer's credential URL. Status and validity then come from the
 * credential's record, which is what the status list and `validUntil` publish. Anything else
 * (not a JWT, another issuer's key, a changed byte) is null: the caller answers `unknown`.
 */
export function createPresentedCredentialReader(
  core: Pick<Core, 'config'>,
  deps: { issuers: Pick<IssuerService, 'findIssuerBySlug'>; signingKeys: Pick<SigningKeyService, 'publicKeys'> },
) {
  const prefix = issuerDid(core.config.publicBaseUrl, '');
  const vc = vcUrls(publicUrls(core.config.publicBaseUrl));

  async function keyFor(kid: string) {
    const match = KID.exec(kid);
    if (!match?.[1] || !match[2] || !match[1].startsWith(prefix)) return null;
    const slug = decodeURIComponent(match[1].slice(prefix.length));
    const issuer = await deps.issuers.findIssuerBySlug(slug);
    if (!issuer || issuerDid(core.config.publicBaseUrl, issuer.slug) !== match[1]) return null;
    const version = Number(match[2]);
    const key = (await deps.signingKeys.publicKeys(issuer.id)).find((k) => k.version === version);
    if (!key) return null;
    const multikey = await multikeyFrom({
      type: 'Multikey',
      id: verificationMethodId(match[1], version),
      controller: match[1],
      publicKeyMultibase: key.publicKeyMultibase,
    });
    return { slug: issuer.slug, key: await importJWK(await toJwk({ keyPair: multikey }), 'EdDSA') };
  }

  return async (input: string): Promise<PresentedRef | null> => {
    const jws = input.trim();
    if (!COMPACT_JWS.test(jws)) return null;
    try {
      const { kid, alg } = decodeProtectedHeader(jws);
      if (alg !== 'EdDSA' || typeof kid !== 'string') return null;
      const resolved = await keyFor(kid);
      if (!resolved) return null;
      const { payload } = await compactVerify(jws, resolved.key, { algorithms: ['EdDSA'] });
      const { jti } = JSON.parse(new TextDecoder().decode(payload)) as { jti?: unknown };
      const own = `${vc.credential(resolved.slug, '')}`;
      if (typeof jti !== 'string' || !jti.startsWith(own)) return null;
      const credentialId = decodeURIComponent(jti.slice(own.length));
      return credentialId === '' || credentialId.includes('/') ? null : { issuerSlug: resolved.slug, credentialId };
    } catch {
      return null;
    }
  };
}

export type PresentedCredentialReader = ReturnType<typeof createPresentedCredentialReader>;
