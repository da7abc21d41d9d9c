import { type Static, Type } from '@sinclair/typebox';
import { DateTime, HTTPS_URL_PATTERN, Name, Nullable, StringEnum, WEB_URL_PATTERN } from '../../core/schemas.js';

const Id = (description: string, maxLength = 255) => Type.String({ minLength: 1, maxLength, description });

const toolUrlFields = {
  domain: Type.String({ description: 'The tool domain an LMS asks for' }),
  loginUrl: Type.String({ description: 'OpenID Connect initiation (login) URL' }),
  launchUrl: Type.String({ description: 'Target link URI and redirect URI of every launch' }),
  deepLinkingUrl: Type.String({ description: 'Deep linking request URL (the same launch URL)' }),
  jwksUrl: Type.String({ description: "The tool's public keys (JWKS): stable across key rotations" }),
  scopes: Type.Array(Type.String(), { description: 'The LTI Advantage scopes the tool uses (AGS, NRPS)' }),
  claims: Type.Array(Type.String(), { description: 'The id_token claims the tool needs' }),
};

export const LtiToolSchema = Type.Object(toolUrlFields, {
  $id: 'LtiTool',
  description: "The tool's values to paste into an LMS without Dynamic Registration",
});

export const LtiRegistrationSchema = Type.Object(
  {
    registrationUrl: Type.String({
      description: 'The Dynamic Registration URL to paste into the LMS: works once, for this issuer, until expiresAt',
    }),
    expiresAt: DateTime,
    ...toolUrlFields,
  },
  { $id: 'LtiRegistration' },
);

export const LtiPlatformSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    platformIssuer: Type.String({ description: "The platform's issuer (iss of its id_tokens)" }),
    clientId: Type.String({ description: 'The client id the platform gave the tool' }),
    deploymentIds: Type.Array(Type.String()),
    authLoginUrl: Type.String({ description: "The platform's OIDC authorization endpoint" }),
    tokenUrl: Type.String({ description: "The platform's OAuth 2.0 token endpoint" }),
    jwksUri: Type.String({ description: "The platform's public keys" }),
    tokenAudience: Nullable(
      Type.String({
        description:
          'The audience of client assertions when it is not the token URL (Brightspace: its OAuth2 audience)',
      }),
    ),
    createdAt: DateTime,
  },
  { $id: 'LtiPlatform' },
);

export const LtiPlatformList = Type.Object({ items: Type.Array(Type.Ref(LtiPlatformSchema)) });

const PlatformUrl = (description: string, allowHttp: boolean) =>
  Type.String({
    format: 'uri',
    pattern: allowHttp ? WEB_URL_PATTERN : HTTPS_URL_PATTERN,
    maxLength: 2048,
    description,
  });

export const createPlatformBody = (allowHttp: boolean) =>
  Type.Object(
    {
      name: Name(100),
      platformIssuer: Id("The platform's issuer identifier (Canvas: https://canvas.instructure.com)", 2048),
      clientId: Id('The client id the LMS shows for the tool'),
      deploymentId: Id('The deployment id the LMS shows for the tool'),
      authLoginUrl: PlatformUrl("The platform's OIDC authorization endpoint", allowHttp),
      tokenUrl: PlatformUrl("The platform's OAuth 2.0 token endpoint", allowHttp),
      jwksUri: PlatformUrl("The platform's public keyset URL", allowHttp),
      tokenAudience: Type.Optional(
        Id('The OAuth2 audience the LMS names for client assertions (Brightspace), when it is not the token URL', 2048),
      ),
    },
    { additionalProperties: false },
  );
export type CreatePlatformInput = Static<ReturnType<typeof createPlatformBody>>;

export const UpdatePlatformBody = Type.Object(
  {
    name: Type.Optional(Name(100)),
    deploymentId: Type.Optional(Id('Another deployment id of the same registration')),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const PlatformParams = Type.Object({ id: Type.String({ maxLength: 200 }) });

/** Platforms add parameters of their own (Canvas: lti_storage_target, canvas_region): they are kept out of nothing. */
export const LoginParams = Type.Object({
  iss: Id('The platform issuer', 2048),
  login_hint: Id('Opaque to the tool; returned to the platform', 4096),
  target_link_uri: Id('The launch URL the platform will post to', 2048),
  lti_message_hint: Type.Optional(Id('Opaque to the tool; returned to the platform', 4096)),
  lti_deployment_id: Type.Optional(Id('The deployment')),
  client_id: Type.Optional(Id('The client id, when the platform has several')),
});

export const LaunchBody = Type.Object({
  id_token: Type.Optional(Type.String({ maxLength: 60_000 })),
  state: Type.Optional(Type.String({ maxLength: 200 })),
});

export const RegisterParams = Type.Object({ token: Type.String({ minLength: 1, maxLength: 100 }) });
export const RegisterQuery = Type.Object({
  openid_configuration: Type.String({
    minLength: 1,
    maxLength: 2048,
    description: "The platform's openid configuration URL",
  }),
  registration_token: Type.Optional(Type.String({ maxLength: 8192 })),
});

export const DeepLinkBody = Type.Object({
  token: Type.String({ minLength: 1, maxLength: 8192 }),
  definitionId: Type.String({ minLength: 1, maxLength: 200 }),
  rule: Type.Optional(StringEnum(['launch', 'score'] as const, { description: 'When the badge is awarded' })),
  minScore: Type.Optional(
    Type.String({
      pattern: '^(100(\\.0+)?|\\d{1,2}(\\.\\d+)?)?$',
      maxLength: 20,
      description: 'Percent, 0 to 100 (a form field)',
    }),
  ),
});

export const InstructorBody = Type.Object({
  token: Type.String({ minLength: 1, maxLength: 8192 }),
  userId: Type.Optional(
    Type.Union([Type.String({ maxLength: 255 }), Type.Array(Type.String({ maxLength: 255 }), { maxItems: 2000 })]),
  ),
});

export const JwksSchema = Type.Object(
  { keys: Type.Array(Type.Object({}, { additionalProperties: true })) },
  { description: 'JSON Web Key Set (RFC 7517 §5)' },
);

export const LtiToolKeySchema = Type.Object(
  {
    kid: Type.String({ description: 'The key id (its RFC 7638 thumbprint), as in the JWKS' }),
    holder: StringEnum(['issuer', 'service'] as const, {
      description:
        "`issuer`: this issuer's own key; `service`: the key the service signs with for issuers that never rotated",
    }),
    signs: Type.Boolean({
      description: "Whether this key signs this issuer's deep linking responses and service token requests now",
    }),
    createdAt: DateTime,
    retiredAt: Nullable(DateTime),
    publishedUntil: Nullable(
      Type.String({ format: 'date-time', description: 'When a retired key leaves the JWKS, at the latest' }),
    ),
  },
  { $id: 'LtiToolKey' },
);

export const LtiToolKeyList = Type.Object({ items: Type.Array(Type.Ref(LtiToolKeySchema)) });

export const LtiToolKeyRotationSchema = Type.Object(
  {
    kid: Type.String({ description: 'The new key, which signs from now on' }),
    createdAt: DateTime,
    retiredKid: Nullable(
      Type.String({
        description: "This issuer's previous own key (null on the first rotation: the service key stays)",
      }),
    ),
    retiredPublishedUntil: Nullable(
      Type.String({ format: 'date-time', description: 'The previous key stays in the JWKS until then, at the latest' }),
    ),
  },
  { $id: 'LtiToolKeyRotation' },
);

export const ltiSchemas = [
  LtiToolSchema,
  LtiRegistrationSchema,
  LtiPlatformSchema,
  LtiToolKeySchema,
  LtiToolKeyRotationSchema,
];
