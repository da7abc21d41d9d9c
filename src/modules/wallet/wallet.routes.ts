import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { jsonLdCost, measureJsonLd } from '../../core/jsonld-budget.js';
import { negotiateLanguage, requestLanguageSources } from '../../core/locale.js';
import { errorResponses, IdParams, keyedErrors, openErrors, ValidationErrorBody } from '../../core/schemas.js';
import { optionalBody } from '../../core/validation.js';
import { languageHeaders, PageQuery, pageCsp } from '../verification/page.document.js';
import { renderOfferNotFound, renderOfferPage } from './wallet.page.js';
import {
  CreateWalletOfferBody,
  CredentialRequestBody,
  CredentialResponse,
  DidAuthBody,
  ExchangeParams,
  MetadataDocument,
  NonceResponse,
  OfferPageParams,
  OfferParams,
  ProtocolErrorBody,
  ProtocolParams,
  TokenBody,
  TokenResponse,
  WalletOfferSchema,
} from './wallet.schemas.js';
import { LCW_ATTEMPTS, ProtocolError } from './wallet.terms.js';

/**
 * A credential request is a signature check and one or two signings (Data Integrity canonicalises
 * the credential): a few milliseconds of CPU, so it costs as many requests of the open limit as a
 * presented credential's verification does.
 */
const SIGNING_COST = 10;
/**
 * The LCW exchange's body: a DIDAuthentication presentation (one did:key holder, one
 * Ed25519Signature2020 proof) is under 2 KB as LCW sends it, so 16 KiB leaves room for any wallet
 * and keeps the service's 1 MiB limit off a route an award email carries for 30 days (issue 48.2).
 */
export const LCW_BODY_LIMIT = 16 * 1024;

/** The exchange costs what a signing costs, and more as the presentation holds more values (core/jsonld-budget.ts). */
function exchangeCost(request: FastifyRequest): number {
  const measured = measureJsonLd(request.body);
  return 'work' in measured ? jsonLdCost(measured.work, SIGNING_COST) : SIGNING_COST;
}
const FORM = 'application/x-www-form-urlencoded';
const HTML = 'text/html; charset=utf-8';
const CSP_NONCE_LENGTH = 24;
const htmlOnly = (description: string) => ({ description, content: { 'text/html': { schema: Type.String() } } });

/**
 * The spec's error bodies; a body that fails its schema (400) keeps the service's validation body,
 * whose `issues` say which member.
 */
const protocolErrors = (...statuses: number[]) =>
  Object.fromEntries(
    statuses.map((s) => [
      s,
      s === 400
        ? Type.Union([ProtocolErrorBody, Type.Ref(ValidationErrorBody)], {
            description: 'OAuth 2.0 / OpenID4VCI error, or the request body fails its schema',
          })
        : { ...ProtocolErrorBody, description: 'OAuth 2.0 / OpenID4VCI error' },
    ]),
  );

/** Headers of the protocol's answers: never cached (RFC 6749 §5.1, OpenID4VCI 1.0 §7.2). */
function noStore(reply: FastifyReply) {
  return reply.header('cache-control', 'no-store');
}

function bearer(request: FastifyRequest): string | null {
  const match = /^Bearer\s+(\S{1,200})\s*$/i.exec(request.headers.authorization ?? '');
  return match?.[1] ?? null;
}

/** Request headers as the library reads them. */
function headersOf(request: FastifyRequest): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (typeof value === 'string') headers.set(name, value);
  }
  return headers;
}

/**
 * Wallet offers: the keyed route that makes one for the earner, and the OpenID4VCI 1.0 issuer of
 * each issuer (metadata at the well-known paths derived from its /v1/issuers/{slug} identifier,
 * the offer, token, nonce and credential endpoints). The protocol's routes answer the spec's
 * error bodies; every other error keeps the Error body.
 */
export const walletRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { wallet } = app.services;
  const tags = ['Wallet offers'];
  const protocolTags = ['OpenID4VCI'];

  app.addContentTypeParser(FORM, { parseAs: 'string', bodyLimit: 4096 }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(String(body))));
  });

  app.setErrorHandler((error: FastifyError, _request, reply) => {
    if (error instanceof ProtocolError) {
      return noStore(reply)
        .status(error.status)
        .headers(error.headers)
        .send({ error: error.code, error_description: error.message });
    }
    throw error;
  });

  app.post(
    '/api/v1/credentials/:id/offers',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'createWalletOffer',
        tags,
        summary: 'Offer the credential to its earner’s wallet (OpenID4VCI pre-authorized code)',
        description:
          'For an LMS to show its signed-in learner: the `openid-credential-offer://` offer, its `credential_offer_uri` and a QR code. Redeemable once, until `expiresAt`. With `{"txCode": true}` the answer also gives the transaction code the wallet asks for; show it apart from the offer. The body may be left out or null. A revoked credential answers 400 validation_failed (an offer is only made for a credential that is not revoked).',
        params: IdParams,
        body: optionalBody(CreateWalletOfferBody),
        response: {
          201: { ...Type.Ref(WalletOfferSchema), description: 'The offer' },
          ...errorResponses(400, 404, ...keyedErrors),
        },
      },
    },
    async (request, reply) => {
      const offer = await wallet.createOffer(request.issuerId(), request.actor(), request.params.id, {
        txCode: request.body?.txCode === true,
        channel: 'api',
      });
      return reply.status(201).header('cache-control', 'no-store').send(offer);
    },
  );

  app.get(
    '/wallet/:slug/:code/:challenge',
    {
      schema: {
        operationId: 'getWalletOfferPage',
        tags,
        summary: 'The earner’s wallet offer page (HTML): what a wallet is, which work, the QR code and both links',
        description:
          'The page the award email links to (an offer’s `pageUrl`): the offer’s pre-authorized code and its Learner Credential Wallet challenge, both of the same offer, else the 404 page. While the offer can be redeemed it shows its QR code, the `openid-credential-offer://` link and the LCW link; once used, expired or revoked, it says so. It links the verification page, the Open Badges 3.0 file and, when the issuer has certificates, the earner’s certificate. In the language of `?lang=`, else Accept-Language, else the credential’s, else the issuer’s, with the badge’s translated name. Never cached (the address is a secret).',
        params: OfferPageParams,
        querystring: PageQuery,
        response: {
          200: htmlOnly('The offer page'),
          404: htmlOnly('No such offer at this issuer'),
          ...errorResponses(...openErrors),
        },
      },
    },
    async (request, reply) => {
      const { slug, code, challenge } = request.params;
      const nonce = app.core.ids.token(CSP_NONCE_LENGTH);
      reply
        .header('content-type', HTML)
        .header('content-security-policy', pageCsp(nonce))
        .header('cache-control', 'no-store');
      const page = await wallet.offerPage(slug, code, challenge, requestLanguageSources(request));
      if (!page) {
        const language = negotiateLanguage(requestLanguageSources(request));
        return languageHeaders(reply, language).status(404).send(renderOfferNotFound(language, nonce));
      }
      const path = request.url.split('?')[0] ?? '';
      return languageHeaders(reply, page.language).send(await renderOfferPage(page, path, nonce));
    },
  );

  app.post(
    '/v1/issuers/:slug/lcw/exchanges/:challenge',
    {
      bodyLimit: LCW_BODY_LIMIT,
      config: { rateLimitCost: exchangeCost },
      schema: {
        operationId: 'exchangeLearnerCredentialWallet',
        tags: ['Learner Credential Wallet'],
        summary:
          'The Learner Credential Wallet exchange: a DIDAuthentication presentation for the holder-bound credential',
        description:
          'The `vc_request_url` of the offer’s Learner Credential Wallet link. The body is the wallet’s DIDAuthentication presentation (holder a did:key, proof Ed25519Signature2020 for authentication over the challenge, signed by the holder); the answer is the credential bound to that DID (Data Integrity). Once per offer. ' +
          `A body over ${LCW_BODY_LIMIT} bytes answers 413, a presentation past the JSON-LD limits (or with a context given inline) 400, before its proof is checked. ` +
          `A challenge checks at most ${LCW_ATTEMPTS} presentations: each is counted before its proof is checked, and after that many the exchange answers 404. ` +
          `Costs ${SIGNING_COST} requests of the open rate limit, and more as the presentation holds more values.`,
        params: ExchangeParams,
        body: DidAuthBody,
        response: {
          200: { ...MetadataDocument, description: 'The holder-bound OpenBadgeCredential' },
          ...errorResponses(400, 404, 413, ...openErrors),
        },
      },
    },
    async (request, reply) =>
      noStore(reply).send(await wallet.lcwExchange(request.params.slug, request.params.challenge, request.body)),
  );

  /*
   * OpenID4VCI 1.0 and RFC 8414 put the well-known segment between the host and the identifier's
   * path. Drafts up to 15, and the wallets built on them (Sphereon's among others), append it to the
   * identifier instead; both places answer the same document, so either kind of wallet finds it.
   */
  const metadataRoutes = [
    {
      paths: [
        '/.well-known/openid-credential-issuer/v1/issuers/:slug',
        '/v1/issuers/:slug/.well-known/openid-credential-issuer',
      ],
      operationIds: ['getCredentialIssuerMetadata', 'getCredentialIssuerMetadataAppended'],
      summary: 'OpenID4VCI Credential Issuer Metadata of the issuer /v1/issuers/{slug}',
      document: (slug: string) => wallet.credentialIssuerMetadata(slug),
    },
    {
      paths: [
        '/.well-known/oauth-authorization-server/v1/issuers/:slug',
        '/v1/issuers/:slug/.well-known/oauth-authorization-server',
      ],
      operationIds: ['getAuthorizationServerMetadata', 'getAuthorizationServerMetadataAppended'],
      summary: 'OAuth 2.0 Authorization Server Metadata (RFC 8414) of the issuer /v1/issuers/{slug}',
      document: (slug: string) => wallet.authorizationServerMetadata(slug),
    },
  ];
  for (const { paths, operationIds, summary, document } of metadataRoutes) {
    paths.forEach((path, index) => {
      app.get(
        path,
        {
          schema: {
            operationId: operationIds[index],
            tags: protocolTags,
            summary: index === 0 ? summary : `${summary}, at the path earlier drafts append to the identifier`,
            params: ProtocolParams,
            response: { 200: MetadataDocument, ...errorResponses(404, ...openErrors) },
          },
        },
        async (request, reply) =>
          reply.header('cache-control', 'public, max-age=300').send(await document(request.params.slug)),
      );
    });
  }

  app.get(
    '/v1/issuers/:slug/oid4vci/offers/:code',
    {
      schema: {
        operationId: 'getCredentialOffer',
        tags: protocolTags,
        summary: 'The credential offer behind a credential_offer_uri, while it can be redeemed',
        params: OfferParams,
        response: { 200: MetadataDocument, ...errorResponses(404, ...openErrors) },
      },
    },
    async (request, reply) => noStore(reply).send(await wallet.offer(request.params.slug, request.params.code)),
  );

  app.post(
    '/v1/issuers/:slug/oid4vci/token',
    {
      schema: {
        operationId: 'redeemPreAuthorizedCode',
        tags: protocolTags,
        summary: 'Token endpoint: the pre-authorized code (and tx_code) for an access token, once',
        params: ProtocolParams,
        body: { content: { [FORM]: { schema: TokenBody } } },
        response: { 200: TokenResponse, ...protocolErrors(400), ...errorResponses(404, 415, ...openErrors) },
      },
    },
    async (request, reply) => {
      const url = `${app.core.config.publicBaseUrl}${request.url}`;
      const body = (request.body ?? {}) as Record<string, unknown>;
      const token = await wallet.token(request.params.slug, { url, headers: headersOf(request) }, body);
      return noStore(reply).send(token);
    },
  );

  app.post(
    '/v1/issuers/:slug/oid4vci/nonce',
    {
      schema: {
        operationId: 'getCredentialNonce',
        tags: protocolTags,
        summary: 'Nonce endpoint: a fresh c_nonce for one proof of possession',
        params: ProtocolParams,
        response: { 200: NonceResponse, ...errorResponses(404, ...openErrors) },
      },
    },
    async (request, reply) => noStore(reply).send(await wallet.nonce(request.params.slug)),
  );

  app.post(
    '/v1/issuers/:slug/oid4vci/credential',
    {
      config: { rateLimitCost: () => SIGNING_COST },
      schema: {
        operationId: 'requestCredential',
        tags: protocolTags,
        summary: 'Credential endpoint: the holder-bound credential (ldp_vc or jwt_vc_json) for a jwt proof',
        description:
          '`Authorization: Bearer <access token>`. The credential is the hosted OpenBadgeCredential with `credentialSubject.id` the holder’s DID, signed by the issuer; it shares the hosted credential’s id and status entry.',
        params: ProtocolParams,
        body: CredentialRequestBody,
        response: { 200: CredentialResponse, ...protocolErrors(400, 401), ...errorResponses(404, ...openErrors) },
      },
    },
    async (request, reply) => {
      const body = request.body as Record<string, unknown>;
      return noStore(reply).send(await wallet.credential(request.params.slug, bearer(request), body));
    },
  );
};
