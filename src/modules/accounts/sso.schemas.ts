import { Type } from '@sinclair/typebox';
import { DateTime, HTTPS_URL_PATTERN, Name, Nullable, WEB_URL_PATTERN } from '../../core/schemas.js';
import { SLUG_PATTERN } from '../../core/slug.js';

export const PROVIDER_NAME_MAX = 60;

/** A domain name, lower or upper case, without the `@`: `example.edu`. */
export const DOMAIN_PATTERN = '^([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.)+[A-Za-z]{2,63}$';

export const SsoSettingsSchema = Type.Object(
  {
    providerName: Type.String({ description: 'Shown on the login page: "Sign in with <providerName>".' }),
    issuerUrl: Type.String({ description: "The provider's OpenID Connect issuer identifier." }),
    clientId: Type.String(),
    allowedDomain: Nullable(
      Type.String({ description: 'Verified addresses of this domain get in as viewers; null: invited users only.' }),
    ),
    passwordSignIn: Type.Boolean({ description: "false: the issuer's users can only sign in through the provider." }),
    redirectUri: Type.String({ description: 'The redirect URI to register at the provider.' }),
    signInUrl: Type.String({ description: 'The login page that shows the provider (share it with staff).' }),
    updatedAt: DateTime,
  },
  { $id: 'SsoSettings', description: 'The client secret is never returned.' },
);

export const SsoLinksSchema = Type.Object(
  {
    redirectUri: Type.String({ description: 'The redirect URI to register at the provider (before or after set-up).' }),
    signInUrl: Type.String({ description: 'The login page that shows the provider once it is set up.' }),
  },
  { $id: 'SsoLinks' },
);

/** PUT body; `allowHttp` (WEBHOOK_ALLOW_PRIVATE, development and tests) takes an http issuer too. */
export function ssoSettingsBody(allowHttp: boolean) {
  return Type.Object(
    {
      providerName: Name(PROVIDER_NAME_MAX),
      issuerUrl: Type.String({
        format: 'uri',
        pattern: allowHttp ? WEB_URL_PATTERN : HTTPS_URL_PATTERN,
        maxLength: 2048,
        description: allowHttp
          ? "The provider's issuer URL: https, or http on this development deployment (WEBHOOK_ALLOW_PRIVATE)."
          : "The provider's issuer URL (https); its /.well-known/openid-configuration is read at once.",
      }),
      clientId: Type.String({ minLength: 1, maxLength: 500 }),
      clientSecret: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: 2000,
          description: 'Required the first time; left out, the stored secret is kept. Stored sealed, never returned.',
        }),
      ),
      allowedDomain: Nullable(Type.String({ pattern: DOMAIN_PATTERN, maxLength: 253 })),
      passwordSignIn: Type.Boolean(),
    },
    { additionalProperties: false },
  );
}

export const SsoSlugParams = Type.Object({ slug: Type.String({ pattern: SLUG_PATTERN, maxLength: 64 }) });

export const SsoLoginOptions = Type.Object({
  providerName: Type.String(),
  passwordSignIn: Type.Boolean(),
  startUrl: Type.String({ description: 'Open it in the browser (a navigation, not a fetch) to sign in.' }),
});

/** A callback parameter: a provider (or someone) repeating it gets a refused sign-in, not a 400 page. */
const CallbackParam = Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())]));

/**
 * What a provider sends back; providers add parameters of their own, which are ignored. Only
 * documentation: the callback reads the raw query string, and openid-client refuses a repeated
 * parameter (the browser is sent to the login page with sso=failed).
 */
export const SsoCallbackQuery = Type.Object(
  {
    code: CallbackParam,
    state: CallbackParam,
    iss: CallbackParam,
    error: CallbackParam,
    error_description: CallbackParam,
  },
  { additionalProperties: true },
);
