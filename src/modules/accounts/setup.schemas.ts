import { Type } from '@sinclair/typebox';
import { Email, Name, Nullable, WebUrl } from '../../core/schemas.js';
import { SLUG_PATTERN } from '../../core/slug.js';
import { SessionUserSchema } from './accounts.schemas.js';

export const SetupParams = Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }) });

export const SetupInfo = Type.Object({
  publicBaseUrl: Type.String({ description: "The origin of every public URL: a slug's documents live under it." }),
});

export const CompleteSetupBody = Type.Object(
  {
    organisation: Type.Object(
      {
        name: Name(200),
        slug: Type.Optional(
          Type.String({
            pattern: SLUG_PATTERN,
            maxLength: 64,
            description: 'Lower-case kebab case; in every credential URL. Derived from the name when absent.',
          }),
        ),
        email: { ...Email, description: "The organisation's contact email, on its Open Badges issuer profile." },
        url: { ...WebUrl, description: "The organisation's website." },
        brandColor: Type.Optional(Nullable(Type.String({ pattern: '^#[0-9a-fA-F]{6}$' }))),
      },
      { additionalProperties: false },
    ),
    owner: Type.Object(
      {
        email: { ...Email, description: "The first owner's sign-in email (hashed, never shown publicly)." },
        password: Type.String({ minLength: 12, maxLength: 256 }),
      },
      { additionalProperties: false },
    ),
    sampleData: Type.Optional(
      Type.Boolean({ description: 'Also create the demo issuer (slug demo) with its own API key, to try the API on.' }),
    ),
  },
  { additionalProperties: false },
);

export const SetupResult = Type.Object({
  user: Type.Ref(SessionUserSchema),
  csrfToken: Type.String(),
  issuerSlug: Type.String(),
  sample: Nullable(
    Type.Object({
      slug: Type.String(),
      apiKey: Type.String({ description: "The demo issuer's API key, shown this once." }),
    }),
  ),
});
