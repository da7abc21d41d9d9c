import { type Static, Type } from '@sinclair/typebox';
import type { ValidationIssue } from '../../core/errors.js';
import { JSONLD_BUDGET, measureJsonLd } from '../../core/jsonld-budget.js';
import { DateTime, Email, Nullable, StringEnum } from '../../core/schemas.js';

const Uri = Type.String({ format: 'uri' });

/** The most ids one bulk verification takes (design.md §4 size limits). */
export const MAX_BULK_IDS = 1000;

export const VerificationStatus = StringEnum(['valid', 'expired', 'revoked', 'unknown']);

export const VerificationResultSchema = Type.Object(
  {
    id: Type.String({ description: 'The id as it was given: an assertion URL or a bare credential id.' }),
    authentic: Type.Boolean({ description: 'true when the id resolves to an assertion this service hosts' }),
    status: VerificationStatus,
    valid: Type.Boolean(),
    issuer: Type.Optional(
      Type.Object({
        name: Type.String(),
        slug: Type.String(),
        profileUrl: Uri,
        brandPrimaryColor: Nullable(Type.String()),
        brandLogoUrl: Nullable(Type.String()),
      }),
    ),
    credential: Type.Optional(
      Type.Object({
        name: Type.String(),
        badgeClassUrl: Uri,
        imageUrl: Type.Optional(Uri),
        localized: Type.Optional(
          Type.Object(
            {
              language: Type.String({ description: 'The language of `name` (BCP 47)' }),
              name: Type.String(),
            },
            {
              description:
                "Present when the request gave `lang`: the badge's name in that language, its translation's (BCP 47 lookup: fr-CA, then fr), else the definition's own. `name` stays the definition's own.",
            },
          ),
        ),
      }),
    ),
    recipientName: Type.Optional(
      Type.String({ description: 'Partial only: first name plus last initial ("Grace H.").' }),
    ),
    issuedOn: Type.Optional(DateTime),
    expiresOn: Type.Optional(Nullable(DateTime)),
    revokedReason: Type.Optional(Nullable(Type.String())),
    verifyPageUrl: Type.Optional(Uri),
  },
  { $id: 'VerificationResult' },
);
export type VerificationResult = Static<typeof VerificationResultSchema>;

export const BulkVerifyResultSchema = Type.Object(
  {
    count: Type.Integer(),
    results: Type.Array(Type.Ref(VerificationResultSchema), { description: 'In the order of the request ids.' }),
  },
  { $id: 'BulkVerifyResult' },
);

/** An Open Badges 3.0 VC-JWT of this service is about 3.3 KB; a URL stays far below this. */
const AssertionId = Type.String({
  minLength: 1,
  maxLength: 8192,
  description:
    'The assertion id: its resolvable URL, or the bare credential id; also an Open Badges 3.0 credential URL of this service or its VC-JWT.',
});

/**
 * The body under `Content-Type: application/vc` (VC Data Model 2.0's media type for a credential
 * secured by an embedded proof): the credential itself.
 */
export const PresentedCredential = Type.Object(
  {},
  {
    additionalProperties: true,
    maxProperties: 64,
    description: `An Open Badges 3.0 credential of this service as JSON, with its one Data Integrity proof. Bounded before any JSON-LD step, as every document given to this service is: at most ${JSONLD_BUDGET.objects} objects and arrays, ${JSONLD_BUDGET.arrayElements} array elements, ${JSONLD_BUDGET.scalars} strings, numbers, booleans and nulls, ${JSONLD_BUDGET.stringBytes} bytes of strings and keys, ${JSONLD_BUDGET.depth} levels deep; past any of them, or with more than one proof, 400.`,
  },
);

/**
 * The language to name the badge in (the embed sends its card's): any BCP 47 tag; one that is not
 * well-formed, or that no translation answers, gives the definition's own name.
 */
const Lang = Type.String({
  maxLength: 35,
  description:
    "A BCP 47 tag: the result's `credential.localized` names the badge in it (its translation, else the definition's own name).",
});

/** The interface's body, exactly as written: `id` required; `lang` added (issue 45 §2, the embed). */
export const VerifyBody = Type.Object({ id: AssertionId, lang: Type.Optional(Lang) });

/** What the verify service is asked: an id (application/json) or a credential (application/vc). */
export type VerifyRequest = ({ id: string } | { credential: Record<string, unknown> }) & { lang?: string };

/**
 * Why a credential given as JSON is refused before its proof is checked (each proof is checked in
 * full, and JSON-LD work grows with the values the document holds: core/jsonld-budget.ts), or null
 * when it carries one proof and is within JSONLD_BUDGET.
 */
export function presentedCredentialIssue(credential: object): ValidationIssue | null {
  const proof = (credential as { proof?: unknown }).proof;
  if (Array.isArray(proof) && proof.length > 1) {
    return {
      path: '/proof',
      message: `must be one proof, by the credential's issuer (each proof is checked in full); ${proof.length} were given`,
      code: 'maxItems',
    };
  }
  const measured = measureJsonLd(credential);
  return 'issue' in measured ? measured.issue : null;
}

/** A bulk id that is a URL or a bare id, not a VC-JWT: short, so MAX_BULK_IDS of them fit the body limit. */
const SHORT_ID_MAX_LENGTH = 1000;
/** The most ids a bulk call takes when one of them is longer (a VC-JWT), so the body still fits. */
export const MAX_BULK_LONG_IDS = 120;

/**
 * Either form, written compactly in ASCII (as every id this service makes is), fits the 1 MiB body
 * limit (app.ts): 1,000 ids of up to 1,000 characters, or 120 of up to 8,192 (a call carrying
 * VC-JWTs). `maxLength` counts characters and the body limit bytes, so ids of other characters can
 * pass the schema and still make the body too large: the schema says so in bytes.
 */
export const BulkVerifyBody = Type.Object(
  {
    ids: Type.Union([
      Type.Array(Type.String({ ...AssertionId, maxLength: SHORT_ID_MAX_LENGTH }), { maxItems: MAX_BULK_IDS }),
      Type.Array(AssertionId, { maxItems: MAX_BULK_LONG_IDS }),
    ]),
    lang: Type.Optional(Lang),
  },
  {
    description:
      'The body is at most 1 MiB (1,048,576 bytes) of UTF-8 JSON; a larger one answers 413 payload_too_large. Ids in ASCII, as every id of this service is, always fit; a character outside ASCII takes 2 to 4 bytes (6 as a \\u escape), so 1,000 long ids of such characters may not.',
  },
);

export const EarnerProfileSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.Optional(Type.String({ description: 'Partial only: first name plus last initial.' })),
    credentials: Type.Array(Uri, {
      description: "Assertion URLs of the recipient's non-revoked credentials at the issuer, newest first.",
    }),
  },
  { $id: 'EarnerProfile' },
);

export const ProfileCreatedSchema = Type.Object({ id: Type.String(), profileUrl: Uri }, { $id: 'ProfileCreated' });

export const CreateProfileBody = Type.Object({ recipientEmail: Email });

export const verificationSchemas = [
  VerificationResultSchema,
  BulkVerifyResultSchema,
  EarnerProfileSchema,
  ProfileCreatedSchema,
];
