import { type Static, Type } from '@sinclair/typebox';
import { LanguageTag } from '../../core/language.js';
import { DateTime, NAME_PATTERN, Name, Nullable, StringEnum, Uuid } from '../../core/schemas.js';
import {
  CERTIFICATE_PLACEHOLDERS,
  CERTIFICATE_WORDING_PATTERN,
  MAX_CERTIFICATE_TITLE,
  MAX_CERTIFICATE_WORDING,
} from '../definitions/definition-translations.js';

/** The placeholders a certificate's wording may hold, each replaced by the credential's value. */
export const PLACEHOLDERS = CERTIFICATE_PLACEHOLDERS;
export const BORDER_STYLES = ['classic', 'double', 'modern', 'none'] as const;
export const ORIENTATIONS = ['landscape', 'portrait'] as const;
/** `auto`: Letter where the issuer's country uses it, else A4. */
export const SIZES = ['auto', 'A4', 'Letter'] as const;
export const MAX_SIGNATORIES = 3;
export const MAX_TITLE = MAX_CERTIFICATE_TITLE;
export const MAX_WORDING = MAX_CERTIFICATE_WORDING;

export const HEX_COLOR_PATTERN = '^#[0-9a-fA-F]{6}$';

const WORDING_PATTERN = CERTIFICATE_WORDING_PATTERN;

const Signatory = Type.Object(
  {
    name: Name(120),
    role: Type.String({ maxLength: 120, pattern: NAME_PATTERN, default: '' }),
    signatureImageId: Type.Optional(
      Nullable({ ...Uuid, description: 'An uploaded PNG of the issuer (POST /api/v1/images), drawn above the name.' }),
    ),
  },
  { additionalProperties: false },
);

const designProperties = {
  enabled: Type.Boolean({ description: 'false: no certificate is made for these credentials (404).' }),
  title: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_TITLE, pattern: NAME_PATTERN })),
  wording: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: MAX_WORDING,
      pattern: WORDING_PATTERN,
      description: `Printed under the earner's name. Placeholders: ${PLACEHOLDERS.map((p) => `{${p}}`).join(', ')}.`,
    }),
  ),
  signatories: Type.Optional(Type.Array(Signatory, { maxItems: MAX_SIGNATORIES })),
  backgroundImageId: Type.Optional(
    Nullable({ ...Uuid, description: 'An uploaded PNG of the issuer, drawn over the whole page under the text.' }),
  ),
  borderStyle: Type.Optional(StringEnum(BORDER_STYLES, { description: 'The built-in border, in the issuer colour.' })),
  orientation: Type.Optional(StringEnum(ORIENTATIONS)),
  size: Type.Optional(StringEnum(SIZES, { description: 'auto: Letter for an issuer in a Letter country, else A4.' })),
  color: Type.Optional(
    Nullable(
      Type.String({
        pattern: HEX_COLOR_PATTERN,
        description: "The colour of the title, badge name and border (#rrggbb); null: the issuer's brand colour.",
      }),
    ),
  ),
  logoImageId: Type.Optional(
    Nullable({
      ...Uuid,
      description:
        "An uploaded PNG of the issuer drawn at the top; null: the issuer's brand logo when hosted here as a PNG.",
    }),
  ),
};

export const CertificateDesignBody = Type.Object(designProperties, { additionalProperties: false });
export type CertificateDesignInput = Static<typeof CertificateDesignBody>;

/** A design with every field given (the defaults filled in). */
export type CertificateDesign = Required<Omit<CertificateDesignInput, 'signatories'>> & {
  signatories: { name: string; role: string; signatureImageId: string | null }[];
  backgroundImageId: string | null;
  color: string | null;
  logoImageId: string | null;
};

const designResponse = {
  enabled: Type.Boolean(),
  title: Type.String(),
  wording: Type.String(),
  signatories: Type.Array(
    Type.Object({ name: Type.String(), role: Type.String(), signatureImageId: Nullable(Type.String()) }),
  ),
  backgroundImageId: Nullable(Type.String()),
  borderStyle: StringEnum(BORDER_STYLES),
  orientation: StringEnum(ORIENTATIONS),
  size: StringEnum(SIZES),
  color: Nullable(Type.String()),
  logoImageId: Nullable(Type.String()),
  version: Type.Integer({ description: 'How many times this design was saved (0: never).' }),
  updatedAt: Nullable(DateTime),
};

export const DefinitionCertificateSchema = Type.Object(
  {
    definitionId: Type.String(),
    source: StringEnum(['definition', 'issuer', 'default'] as const, {
      description:
        "Where the design comes from: the definition's own, the issuer's default (Settings), or the built-in default.",
    }),
    ...designResponse,
  },
  { $id: 'DefinitionCertificate' },
);

export const CertificateSettingsBody = Type.Object(
  {
    ...designProperties,
    country: Type.Optional(
      Nullable(
        Type.String({
          pattern: '^[A-Z]{2}$',
          description: "The issuer's country (ISO 3166-1 alpha-2): the paper size of `auto` and the date format.",
        }),
      ),
    ),
  },
  { additionalProperties: false },
);
export type CertificateSettingsInput = Static<typeof CertificateSettingsBody>;

export const CertificateSettingsSchema = Type.Object(
  { ...designResponse, country: Nullable(Type.String()) },
  { $id: 'CertificateSettings' },
);

export const CertificateLinkSchema = Type.Object(
  {
    url: Nullable(
      Type.String({
        description:
          "The earner's certificate link; null when certificates are off for the badge or no name is stored to print.",
      }),
    ),
  },
  { $id: 'CertificateLink' },
);

export const CertificatePreviewBody = Type.Object(
  {
    ...designProperties,
    definitionId: Type.Optional({
      ...Uuid,
      description: "A definition of the issuer: the preview prints its name (else a sample badge's).",
    }),
    language: Type.Optional(
      LanguageTag(
        "The language to preview in, as a credential issued in it would print (its fixed words and the definition's translation); else the issuer's.",
      ),
    ),
  },
  { additionalProperties: false },
);
export type CertificatePreviewInput = Static<typeof CertificatePreviewBody>;

export const certificateSchemas = [DefinitionCertificateSchema, CertificateSettingsSchema, CertificateLinkSchema];
