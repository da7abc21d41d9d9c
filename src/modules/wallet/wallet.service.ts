import { timingSafeEqual } from 'node:crypto';
import { decodeJwt } from 'jose';
import { isoNow } from '../../core/clock.js';
import type { Core } from '../../core/context.js';
import { errors } from '../../core/errors.js';
import { sha256Hex } from '../../core/hashing.js';
import { requireJsonLdBudget } from '../../core/jsonld-budget.js';
import { loadedOnce } from '../../core/loaded-once.js';
import { type LanguageSources, negotiateLanguage, textLanguages } from '../../core/locale.js';
import { qrcode } from '../../core/qrcode.js';
import { publicUrls } from '../../core/urls.js';
import type { AuditService } from '../audit/audit.service.js';
import type { CredentialService } from '../credentials/credentials.service.js';
import { definitionText } from '../definitions/definition-translations.js';
import type { DefinitionService } from '../definitions/definitions.service.js';
import type { IssuerRow } from '../issuers/issuers.repository.js';
import type { IssuerService } from '../issuers/issuers.service.js';
import { OB_V3_CONTEXT, OB_V3_EXTENSIONS_CONTEXT, VC_V2_CONTEXT } from '../vc/contexts.js';
import type { VcService } from '../vc/vc.service.js';
import { holderDid, holderJwk } from './wallet.holder.js';
import { type DidAuthPresentation, didAuthHolder, type LcwLinks, lcwLinks } from './wallet.lcw.js';
import type { OfferPage } from './wallet.page.js';
import { createWalletRepository, type WalletOfferRow } from './wallet.repository.js';
import {
  CONFIGURATIONS,
  JWT_VC_JSON,
  LCW_ATTEMPTS,
  LDP_VC,
  PRE_AUTHORIZED_CODE_GRANT,
  ProtocolError,
  TX_CODE_ATTEMPTS,
} from './wallet.terms.js';

/** Length of every secret handed out (pre-authorized code, LCW challenge, access token, nonce). */
const SECRET_LENGTH = 43;
const TX_CODE_LENGTH = 6;
const ACCESS_TOKEN_TTL_S = 600;
const NONCE_TTL_S = 300;
/** How far ahead of this server's clock a proof's `iat` may be (the wallet's clock runs fast). */
const PROOF_CLOCK_SKEW_S = 60;
const DAY_MS = 86_400_000;

/** The OpenID4VCI library, loaded at the first wallet request rather than at the server's start. */
const library = loadedOnce(() => import('./wallet.protocol.js'));

export interface WalletOffer {
  /** `openid-credential-offer://?credential_offer_uri=…` */
  offer: string;
  credentialOfferUri: string;
  /** The offer as a QR code, a PNG data URL. */
  qr: string;
  /** Present when asked for: the code the learner types into the wallet, shown apart from the offer. */
  txCode?: string;
  expiresAt: string;
  /** The same offer for the Learner Credential Wallet, which reads its own request link. */
  learnerCredentialWallet: LcwLinks;
  /** The earner's page for this offer: what a wallet is, which ones work, the QR code and both links. */
  pageUrl: string;
}

export type WalletChannel = 'api' | 'email' | 'backpack';

const hash = (secret: string) => sha256Hex(secret);

/** The earner's offer page: both secrets of the offer in its path (a logged URL has them redacted). */
export function offerPageUrl(publicBaseUrl: string, slug: string, code: string, challenge: string): string {
  return `${publicBaseUrl}/wallet/${encodeURIComponent(slug)}/${code}/${challenge}`;
}

/**
 * A proof JWT's `iat`, which OpenID4VCI 1.0 Appendix F.1 requires: the time the proof was made,
 * checked against an acceptable window (Appendix F.4, §13.2). A proof older than a nonce lives, or
 * from further ahead than PROOF_CLOCK_SKEW_S, is refused.
 */
function issuedInWindow(iat: unknown, now: Date): boolean {
  if (typeof iat !== 'number' || !Number.isFinite(iat)) return false;
  const seconds = now.getTime() / 1000;
  return iat >= seconds - NONCE_TTL_S - PROOF_CLOCK_SKEW_S && iat <= seconds + PROOF_CLOCK_SKEW_S;
}

function sameSecret(presented: string, expectedHash: string): boolean {
  const a = Buffer.from(hash(presented), 'hex');
  const b = Buffer.from(expectedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * OpenID4VCI 1.0 (pre-authorized code) and the Learner Credential Wallet's exchange for the
 * earner's credential: offers made for the earner only, each redeemable once before it expires,
 * answered with a copy bound to the holder's DID and signed with the issuer's key.
 */
export function createWalletService(
  core: Pick<Core, 'config' | 'db' | 'clock' | 'ids'>,
  deps: {
    issuers: Pick<IssuerService, 'findIssuerBySlug'>;
    credentials: Pick<CredentialService, 'findRow'>;
    definitions: Pick<DefinitionService, 'findRow'>;
    vc: Pick<VcService, 'unsignedCredential' | 'signGiven'>;
    audit: Pick<AuditService, 'append'>;
    /** The earner's own certificate link (modules/certificates), shown on the offer page. */
    certificateLink?: (issuerId: string, credentialId: string) => Promise<string | null>;
  },
) {
  const urls = publicUrls(core.config.publicBaseUrl);
  const repo = createWalletRepository(core.db);
  const plainHttp = core.config.publicBaseUrl.startsWith('http:');
  async function protocol() {
    const loaded = await library();
    if (plainHttp) loaded.allowPlainHttp();
    return loaded;
  }
  const contexts = [VC_V2_CONTEXT, OB_V3_CONTEXT, OB_V3_EXTENSIONS_CONTEXT];

  /** The audit record of a wallet's step on an offer: actor `wallet`, target the credential. */
  function recordWalletStep(
    trx: Parameters<AuditService['append']>[0],
    issuerId: string,
    offer: Pick<WalletOfferRow, 'id' | 'credential_id'>,
    action: 'wallet_offer.redeemed' | 'wallet_credential.issued',
    details: Record<string, string>,
  ) {
    return deps.audit.append(trx, {
      issuerId,
      actor: 'wallet',
      action,
      targetType: 'credential',
      targetId: offer.credential_id,
      details: { offerId: offer.id, ...details },
    });
  }

  /**
   * A random secret with upper case, lower case and digits, so the log redaction always recognises
   * it in a URL (core/log-redaction.ts) and no offer or exchange URL is ever logged.
   */
  function secret(): string {
    for (;;) {
      const token = core.ids.token(SECRET_LENGTH);
      if (/[A-Z]/.test(token) && /[a-z]/.test(token) && /[0-9]/.test(token)) return token;
    }
  }

  function txCode(): string {
    const digits = core.ids.hex(8);
    return String(Number.parseInt(digits, 16) % 10 ** TX_CODE_LENGTH).padStart(TX_CODE_LENGTH, '0');
  }

  /** The issuer of a slug; `missing` names what an unknown slug answers (the thing asked for, not the issuer). */
  async function issuerOf(slug: string, missing = 'Issuer'): Promise<IssuerRow> {
    const issuer = await deps.issuers.findIssuerBySlug(slug);
    if (!issuer) throw errors.notFound(missing);
    return issuer;
  }

  async function metadataOf(issuer: IssuerRow) {
    const { authorizationServerMetadata, credentialIssuerMetadata, endpointsOf, issuerMetadataResult } =
      await protocol();
    const endpoints = endpointsOf(urls.issuerProfile(issuer.slug));
    const credentialIssuer = credentialIssuerMetadata(
      endpoints,
      { name: issuer.name, logo: issuer.image_url ?? issuer.brand_logo_url },
      contexts,
    );
    const authorization = authorizationServerMetadata(endpoints);
    return {
      endpoints,
      credentialIssuer,
      authorization,
      result: issuerMetadataResult(credentialIssuer, authorization),
    };
  }

  const usable = (offer: WalletOfferRow | undefined, now: string): offer is WalletOfferRow =>
    offer !== undefined &&
    offer.redeemed_at === null &&
    offer.expires_at > now &&
    offer.tx_code_failures < TX_CODE_ATTEMPTS;

  async function offerObject(issuer: IssuerRow, code: string, withTxCode: boolean, uri?: string) {
    const { vciIssuer } = await protocol();
    return vciIssuer.createCredentialOffer({
      issuerMetadata: (await metadataOf(issuer)).result,
      credentialConfigurationIds: [...CONFIGURATIONS],
      grants: {
        [PRE_AUTHORIZED_CODE_GRANT]: {
          'pre-authorized_code': code,
          ...(withTxCode
            ? {
                tx_code: {
                  input_mode: 'numeric',
                  length: TX_CODE_LENGTH,
                  description: 'The code your course platform shows beside this offer',
                },
              }
            : {}),
        },
      },
      ...(uri ? { credentialOfferUri: uri } : {}),
    });
  }

  return {
    /**
     * A new offer of the credential for its earner (through the API, or in the notification email),
     * with the Learner Credential Wallet's link beside it. Audited with its actor.
     */
    async createOffer(
      issuerId: string,
      actor: string,
      credentialId: string,
      options: { txCode: boolean; channel: WalletChannel },
    ): Promise<WalletOffer> {
      const credential = await deps.credentials.findRow(issuerId, credentialId);
      if (!credential) throw errors.notFound('Credential');
      if (credential.revoked_at !== null) {
        throw errors.validation('The credential is revoked: a wallet offer is only made for a valid credential.');
      }
      const issuer = await issuerOf(credential.issuer_slug);
      const code = secret();
      const challenge = secret();
      const tx = options.txCode ? txCode() : null;
      const now = core.clock.now();
      const expiresAt = new Date(now.getTime() + core.config.walletOfferTtlDays * DAY_MS).toISOString();
      const id = core.ids.uuid();
      const issuerUrl = urls.issuerProfile(issuer.slug);
      const credentialOfferUri = `${issuerUrl}/oid4vci/offers/${code}`;
      const { credentialOffer } = await offerObject(issuer, code, tx !== null, credentialOfferUri);
      await core.db.transaction().execute(async (trx) => {
        await createWalletRepository(trx).insertOffer({
          id,
          issuer_id: issuerId,
          credential_id: credential.id,
          channel: options.channel,
          code_hash: hash(code),
          tx_code_hash: tx === null ? null : hash(tx),
          challenge_hash: hash(challenge),
          created_at: now.toISOString(),
          expires_at: expiresAt,
          redeemed_at: null,
          access_token_hash: null,
          access_token_expires_at: null,
        });
        await deps.audit.append(trx, {
          issuerId,
          actor,
          action: 'wallet_offer.created',
          targetType: 'credential',
          targetId: credential.id,
          details: { offerId: id, channel: options.channel, txCode: tx !== null, expiresAt },
        });
      });
      return {
        offer: credentialOffer,
        credentialOfferUri,
        qr: await (await qrcode()).toDataURL(credentialOffer, { margin: 1, errorCorrectionLevel: 'M' }),
        ...(tx === null ? {} : { txCode: tx }),
        expiresAt,
        learnerCredentialWallet: lcwLinks(issuerUrl, challenge),
        pageUrl: offerPageUrl(core.config.publicBaseUrl, issuer.slug, code, challenge),
      };
    },

    /**
     * The offer the notification email carries, made by the system for the earner it is sent to:
     * no transaction code (the mailbox is the channel); none for a credential revoked meanwhile.
     */
    async emailOffer(
      issuerId: string,
      credentialId: string,
    ): Promise<{ offer: string; qr: string; lcw: string; page: string } | null> {
      const credential = await deps.credentials.findRow(issuerId, credentialId);
      if (!credential || credential.revoked_at !== null) return null;
      const made = await this.createOffer(issuerId, 'system', credentialId, { txCode: false, channel: 'email' });
      return { offer: made.offer, qr: made.qr, lcw: made.learnerCredentialWallet.url, page: made.pageUrl };
    },

    /**
     * What the earner's offer page (`/wallet/{slug}/{code}/{challenge}`) shows: null unless the
     * pre-authorized code and the LCW challenge are both this issuer's same offer. The links are
     * given only while the offer can be redeemed; otherwise the page says what became of it.
     */
    async offerPage(
      slug: string,
      code: string,
      challenge: string,
      languages: Pick<LanguageSources, 'query' | 'acceptLanguage'>,
    ): Promise<OfferPage | null> {
      const issuer = await deps.issuers.findIssuerBySlug(slug);
      if (!issuer) return null;
      const offer = await repo.findByCode(issuer.id, hash(code));
      // An offer made before LCW links existed has no challenge, so no page.
      if (!offer?.challenge_hash || !sameSecret(challenge, offer.challenge_hash)) return null;
      const credential = await deps.credentials.findRow(issuer.id, offer.credential_id);
      const definition = credential && (await deps.definitions.findRow(issuer.id, credential.definition_id));
      if (!credential || !definition) return null;
      const state =
        credential.revoked_at !== null
          ? 'revoked'
          : offer.redeemed_at !== null
            ? 'used'
            : usable(offer, isoNow(core.clock))
              ? 'open'
              : 'expired';
      // The page's order (issue 45 §2): ?lang=, Accept-Language, the credential's, the issuer's; the
      // badge's text in that language, as of the version the credential was issued under.
      const sources = { ...languages, credential: credential.language, issuer: issuer.language };
      const language = negotiateLanguage(sources);
      const text = await definitionText(core.db, definition, textLanguages(sources, language), {
        asOf: credential.created_at,
      });
      const issuerUrl = urls.issuerProfile(issuer.slug);
      const links =
        state === 'open'
          ? {
              offer: (
                await offerObject(issuer, code, offer.tx_code_hash !== null, `${issuerUrl}/oid4vci/offers/${code}`)
              ).credentialOffer,
              lcw: lcwLinks(issuerUrl, challenge).url,
            }
          : null;
      return {
        state,
        language,
        issuer: {
          name: issuer.name,
          brandColor: issuer.brand_primary_color,
          logoUrl: issuer.brand_logo_url ?? issuer.image_url,
        },
        badgeName: text.name,
        expiresAt: offer.expires_at,
        txCode: offer.tx_code_hash !== null,
        verifyPageUrl: urls.verifyPage(issuer.slug, credential.id),
        downloadUrl: `${urls.openBadgeCredential(issuer.slug, credential.id)}?download`,
        certificateUrl: state === 'revoked' ? null : ((await deps.certificateLink?.(issuer.id, credential.id)) ?? null),
        links,
      };
    },

    /**
     * The Learner Credential Wallet's exchange: a DIDAuthentication presentation over this offer's
     * challenge, signed by its own holder's did:key, for the holder-bound Data Integrity credential.
     * The challenge is spent with the offer (once, before it expires), and dies after LCW_ATTEMPTS
     * presentations were checked against it.
     */
    async lcwExchange(slug: string, challenge: string, presentation: DidAuthPresentation) {
      // Bounded before anything is looked up or expanded (core/jsonld-budget.ts).
      requireJsonLdBudget(presentation);
      // An unknown issuer answers as an unknown exchange: the same 404 whatever the slug.
      const issuer = await issuerOf(slug, 'Exchange');
      const offer = await repo.findByChallenge(issuer.id, hash(challenge));
      const gone = () => errors.notFound('Exchange');
      if (!usable(offer, isoNow(core.clock)) || offer.lcw_attempts >= LCW_ATTEMPTS) throw gone();
      // Counted before the proof is checked: a challenge checks at most LCW_ATTEMPTS presentations.
      if (!(await repo.takeAttempt(issuer.id, offer.id, 'lcw_attempts', LCW_ATTEMPTS))) throw gone();
      const holder = await didAuthHolder(presentation, challenge);
      if (!holder) {
        throw errors.validation(
          'The presentation must be a DIDAuthentication by its holder’s did:key: an Ed25519Signature2020 proof for authentication over this exchange’s challenge.',
        );
      }
      const credential = await deps.credentials.findRow(issuer.id, offer.credential_id);
      if (!credential || credential.revoked_at !== null) throw gone();
      const hosted = await deps.vc.unsignedCredential(issuer.slug, offer.credential_id);
      const bound = { ...hosted, credentialSubject: { ...hosted.credentialSubject, id: holder } };
      const signed = await deps.vc.signGiven(issuer.slug, bound);
      const now = isoNow(core.clock);
      const redeemed = await core.db.transaction().execute(async (trx) => {
        const spent = await createWalletRepository(trx).redeem(issuer.id, offer.id, now, null);
        if (spent) {
          await recordWalletStep(trx, issuer.id, offer, 'wallet_offer.redeemed', { protocol: 'lcw' });
          await recordWalletStep(trx, issuer.id, offer, 'wallet_credential.issued', { format: 'ldp_vc' });
        }
        return spent;
      });
      if (!redeemed) throw gone();
      return signed.dataIntegrity;
    },

    async credentialIssuerMetadata(slug: string) {
      return (await metadataOf(await issuerOf(slug))).credentialIssuer;
    },

    async authorizationServerMetadata(slug: string) {
      return (await metadataOf(await issuerOf(slug))).authorization;
    },

    /** The offer behind a credential_offer_uri, while it can still be redeemed. */
    async offer(slug: string, code: string) {
      const issuer = await issuerOf(slug, 'Credential offer');
      const offer = await repo.findByCode(issuer.id, hash(code));
      if (!usable(offer, isoNow(core.clock))) throw errors.notFound('Credential offer');
      return (await offerObject(issuer, code, offer.tx_code_hash !== null)).credentialOfferObject;
    },

    /** The token endpoint: a pre-authorized code (and its tx_code) for an access token, once. */
    async token(slug: string, request: { url: string; headers: Headers }, body: Record<string, unknown>) {
      const issuer = await issuerOf(slug);
      const { authorization } = await metadataOf(issuer);
      const { authorizationServer, protocolErrorOf } = await protocol();
      const requestLike = { url: request.url, method: 'POST' as const, headers: request.headers };
      let parsed: ReturnType<typeof authorizationServer.parseAccessTokenRequest>;
      try {
        parsed = authorizationServer.parseAccessTokenRequest({ request: requestLike, accessTokenRequest: body });
      } catch (error) {
        throw protocolErrorOf(error) ?? new ProtocolError(400, 'invalid_request', 'The token request is malformed.');
      }
      if (parsed.grant.grantType !== PRE_AUTHORIZED_CODE_GRANT) {
        throw new ProtocolError(400, 'unsupported_grant_type', 'Only the pre-authorized code grant is supported.');
      }
      const code = parsed.grant.preAuthorizedCode;
      const now = core.clock.now();
      const offer = await repo.findByCode(issuer.id, hash(code));
      const invalidGrant = () =>
        new ProtocolError(400, 'invalid_grant', 'The pre-authorized code is unknown, expired or already used.');
      if (!usable(offer, now.toISOString())) throw invalidGrant();
      const presentedTx = parsed.grant.txCode;
      if (offer.tx_code_hash !== null) {
        // OpenID4VCI 1.0 §6.3: a missing tx_code is invalid_request, a wrong one invalid_grant.
        if (presentedTx === undefined) {
          throw new ProtocolError(400, 'invalid_request', 'This offer needs its transaction code (tx_code).');
        }
        // Counted before it is compared, in one conditional increment: parallel guesses through
        // any number of replicas compare at most TX_CODE_ATTEMPTS codes between them.
        if (!(await repo.takeAttempt(issuer.id, offer.id, 'tx_code_failures', TX_CODE_ATTEMPTS))) throw invalidGrant();
        if (!sameSecret(presentedTx, offer.tx_code_hash)) {
          throw new ProtocolError(400, 'invalid_grant', 'The transaction code (tx_code) is wrong.');
        }
        // The right code is given back, so `tx_code_failures` counts what its name says.
        await repo.giveBackAttempt(issuer.id, offer.id, 'tx_code_failures');
      }
      try {
        await authorizationServer.verifyPreAuthorizedCodeAccessTokenRequest({
          authorizationServerMetadata: authorization,
          grant: parsed.grant,
          accessTokenRequest: parsed.accessTokenRequest,
          request: requestLike,
          expectedPreAuthorizedCode: code,
          ...(presentedTx !== undefined && offer.tx_code_hash !== null ? { expectedTxCode: presentedTx } : {}),
          preAuthorizedCodeExpiresAt: new Date(offer.expires_at),
          now,
        });
      } catch (error) {
        throw protocolErrorOf(error) ?? invalidGrant();
      }
      const credential = await deps.credentials.findRow(issuer.id, offer.credential_id);
      if (!credential || credential.revoked_at !== null) throw invalidGrant();
      const accessToken = secret();
      const expiresAt = new Date(now.getTime() + ACCESS_TOKEN_TTL_S * 1000).toISOString();
      const redeemed = await core.db.transaction().execute(async (trx) => {
        const spent = await createWalletRepository(trx).redeem(issuer.id, offer.id, now.toISOString(), {
          hash: hash(accessToken),
          expiresAt,
        });
        if (spent) {
          await recordWalletStep(trx, issuer.id, offer, 'wallet_offer.redeemed', { protocol: 'openid4vci' });
        }
        return spent;
      });
      if (!redeemed) throw invalidGrant();
      return { access_token: accessToken, token_type: 'Bearer', expires_in: ACCESS_TOKEN_TTL_S };
    },

    /** The nonce endpoint: a fresh c_nonce, good for one proof within NONCE_TTL_S. */
    async nonce(slug: string) {
      await issuerOf(slug);
      const nonce = secret();
      const now = core.clock.now();
      const expiresAt = new Date(now.getTime() + NONCE_TTL_S * 1000).toISOString();
      await repo.insertNonce(hash(nonce), expiresAt, now.toISOString());
      const { vciIssuer } = await protocol();
      return vciIssuer.createNonceResponse({ cNonce: nonce, cNonceExpiresIn: NONCE_TTL_S });
    },

    /**
     * The credential endpoint: the access token, one `jwt` proof over a live nonce from the
     * holder's key, and the configuration asked for; each configuration once per access token.
     */
    async credential(slug: string, accessToken: string | null, body: Record<string, unknown>) {
      const issuer = await issuerOf(slug);
      const now = core.clock.now();
      const invalidToken = () =>
        new ProtocolError(401, 'invalid_token', 'The access token is missing, unknown or expired.', {
          'www-authenticate': 'Bearer error="invalid_token"',
        });
      if (accessToken === null) throw invalidToken();
      const offer = await repo.findByAccessToken(issuer.id, hash(accessToken));
      if (!offer?.access_token_expires_at || offer.access_token_expires_at <= now.toISOString()) throw invalidToken();
      const { result } = await metadataOf(issuer);
      const { vciIssuer, protocolErrorOf } = await protocol();
      let request: ReturnType<typeof vciIssuer.parseCredentialRequest>;
      try {
        request = vciIssuer.parseCredentialRequest({ issuerMetadata: result, credentialRequest: body });
      } catch (error) {
        throw protocolErrorOf(error) ?? new ProtocolError(400, 'invalid_credential_request', 'Invalid request.');
      }
      const configuration = request.credentialConfigurationId;
      if (configuration !== LDP_VC && configuration !== JWT_VC_JSON) {
        throw new ProtocolError(
          400,
          'unknown_credential_configuration',
          `credential_configuration_id must be ${LDP_VC} or ${JWT_VC_JSON}.`,
        );
      }
      const issued = offer.issued_formats === '' ? [] : offer.issued_formats.split(',');
      if (issued.includes(configuration)) {
        throw new ProtocolError(
          400,
          'invalid_credential_request',
          'This access token already received that credential.',
        );
      }
      const jwts = request.proofs?.jwt ?? [];
      if (jwts.length !== 1 || request.proofs?.attestation !== undefined) {
        throw new ProtocolError(400, 'invalid_proof', 'Exactly one proof of type jwt is required.');
      }
      const proof = jwts[0] as string;
      let claims: ReturnType<typeof decodeJwt>;
      try {
        claims = decodeJwt(proof);
      } catch {
        throw new ProtocolError(400, 'invalid_proof', 'The proof is not a JWT.');
      }
      if (!issuedInWindow(claims.iat, now)) {
        throw new ProtocolError(
          400,
          'invalid_proof',
          `The proof's iat is required and must be when it was made: within the ${NONCE_TTL_S} s a nonce lives, give or take ${PROOF_CLOCK_SKEW_S} s of clock skew.`,
        );
      }
      const nonce = claims.nonce;
      if (typeof nonce !== 'string' || !(await repo.takeNonce(hash(nonce), now.toISOString()))) {
        throw new ProtocolError(
          400,
          'invalid_nonce',
          'The proof’s nonce is unknown, used or expired: ask the nonce endpoint for a fresh one.',
        );
      }
      let verified: Awaited<ReturnType<typeof vciIssuer.verifyCredentialRequestJwtProof>>;
      try {
        verified = await vciIssuer.verifyCredentialRequestJwtProof({
          issuerMetadata: result,
          jwt: proof,
          expectedNonce: nonce,
          now,
        });
      } catch (error) {
        throw protocolErrorOf(error) ?? new ProtocolError(400, 'invalid_proof', 'The proof does not verify.');
      }
      const jwk = await holderJwk(verified.signer);
      if (!jwk) throw new ProtocolError(400, 'invalid_proof', 'The proof’s key is not a did:key, did:jwk or jwk.');
      const holder = holderDid(verified.signer, jwk);
      // The hosted credential bound to the holder: the same id, issuer, achievement, identifier and
      // status entry (revoking the credential revokes every copy), its subject the holder's DID.
      const hosted = await deps.vc.unsignedCredential(issuer.slug, offer.credential_id);
      const bound = { ...hosted, credentialSubject: { ...hosted.credentialSubject, id: holder } };
      const signed = await deps.vc.signGiven(issuer.slug, bound);
      const credential = configuration === LDP_VC ? signed.dataIntegrity : signed.jwt;
      const recorded = await core.db.transaction().execute(async (trx) => {
        const marked = await createWalletRepository(trx).markIssued(
          issuer.id,
          offer.id,
          offer.issued_formats,
          configuration,
        );
        if (marked) {
          await recordWalletStep(trx, issuer.id, offer, 'wallet_credential.issued', { format: configuration });
        }
        return marked;
      });
      if (!recorded) {
        throw new ProtocolError(
          400,
          'invalid_credential_request',
          'This access token already received that credential.',
        );
      }
      return vciIssuer.createCredentialResponse({ credentialRequest: request, credentials: [{ credential }] });
    },
  };
}

export type WalletService = ReturnType<typeof createWalletService>;
