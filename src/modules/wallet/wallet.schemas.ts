import { Type } from '@sinclair/typebox';

export const CreateWalletOfferBody = Type.Object(
  {
    txCode: Type.Optional(
      Type.Boolean({
        description:
          'Ask for a transaction code: the answer gives it as `txCode`, for the LMS to show its signed-in learner apart from the offer.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const WalletOfferSchema = Type.Object(
  {
    offer: Type.String({ description: '`openid-credential-offer://?credential_offer_uri=…` (OpenID4VCI 1.0)' }),
    credentialOfferUri: Type.String({ format: 'uri', description: 'Where the wallet fetches the credential offer' }),
    qr: Type.String({ description: 'The offer as a QR code: a PNG data URL' }),
    txCode: Type.Optional(Type.String({ description: 'The transaction code the wallet asks the learner for' })),
    expiresAt: Type.String({ format: 'date-time' }),
    learnerCredentialWallet: Type.Object(
      {
        url: Type.String({
          description: 'https://lcw.app/request.html?issuer=…&auth_type=bearer&challenge=…&vc_request_url=…',
        }),
        deepLink: Type.String({ description: 'The same request as dccrequest://request?…' }),
      },
      { additionalProperties: false, description: 'The same offer for the Learner Credential Wallet (DCC)' },
    ),
    pageUrl: Type.String({
      format: 'uri',
      description:
        'The earner’s page for this offer (what a wallet is, which ones work, the QR code and both links), in their language: a secret like the offer',
    }),
  },
  { $id: 'WalletOffer', additionalProperties: false },
);

export const walletSchemas = [WalletOfferSchema];

/** An OAuth 2.0 / OpenID4VCI error answer (RFC 6749 §5.2, OpenID4VCI 1.0 §8.3.1). */
export const ProtocolErrorBody = Type.Object(
  {
    error: Type.String(),
    error_description: Type.String(),
  },
  { additionalProperties: false },
);

export const ExchangeParams = Type.Object({
  slug: Type.String({ maxLength: 100 }),
  challenge: Type.String({ minLength: 1, maxLength: 100 }),
});

/** A DIDAuthentication presentation (VC Data Model 1.1), as LCW sends it. */
export const DidAuthBody = Type.Object(
  {
    '@context': Type.Unknown(),
    type: Type.Unknown(),
    holder: Type.String({ maxLength: 200 }),
    proof: Type.Unknown(),
    id: Type.Optional(Type.String({ maxLength: 300 })),
  },
  { additionalProperties: false },
);

export const ProtocolParams = Type.Object({ slug: Type.String({ maxLength: 100 }) });
/** Any segment is taken (a URL is at most 8 KiB): one that names no offer answers the 404 page. */
const PageSegment = (description: string) => Type.String({ maxLength: 8192, description });
export const OfferPageParams = Type.Object({
  slug: PageSegment('The issuer slug'),
  code: PageSegment('The offer’s pre-authorized code'),
  challenge: PageSegment('The offer’s Learner Credential Wallet challenge'),
});

export const OfferParams = Type.Object({
  slug: Type.String({ maxLength: 100 }),
  code: Type.String({ minLength: 1, maxLength: 100 }),
});

/** The token request's form fields; the library checks them and answers the spec's errors. */
export const TokenBody = Type.Object(
  {
    grant_type: Type.Optional(Type.String({ maxLength: 200 })),
    'pre-authorized_code': Type.Optional(Type.String({ maxLength: 200 })),
    tx_code: Type.Optional(Type.String({ maxLength: 100 })),
  },
  { additionalProperties: Type.String({ maxLength: 2000 }) },
);

export const TokenResponse = Type.Object(
  {
    access_token: Type.String(),
    token_type: Type.Literal('Bearer'),
    expires_in: Type.Integer(),
  },
  { additionalProperties: false },
);

export const NonceResponse = Type.Object({ c_nonce: Type.String(), c_nonce_expires_in: Type.Optional(Type.Integer()) });

const Member = Type.Unknown();

/**
 * The credential request (OpenID4VCI 1.0 §8.2) and the members earlier drafts' wallets still send
 * (`format`, `credential_definition`, `proof`): the library checks their content and answers the
 * spec's errors.
 */
export const CredentialRequestBody = Type.Object(
  {
    credential_configuration_id: Type.Optional(Type.String({ maxLength: 200 })),
    credential_identifier: Type.Optional(Type.String({ maxLength: 200 })),
    proofs: Type.Optional(Member),
    proof: Type.Optional(Member),
    credential_response_encryption: Type.Optional(Member),
    format: Type.Optional(Type.String({ maxLength: 100 })),
    credential_definition: Type.Optional(Member),
  },
  { additionalProperties: false },
);

export const CredentialResponse = Type.Object(
  {
    credentials: Type.Array(
      Type.Object({
        credential: Type.Union([Type.String(), Type.Object({}, { additionalProperties: true })]),
      }),
    ),
  },
  { additionalProperties: true },
);

export const MetadataDocument = Type.Object({}, { additionalProperties: true });
