import { Type } from '@sinclair/typebox';
import { DateTime, Email, Nullable, StringEnum } from '../../core/schemas.js';
import { ROLES } from './accounts.service.js';
import { PASSWORD_MAX, PASSWORD_MIN } from './passwords.js';
import { SsoLinksSchema, SsoSettingsSchema } from './sso.schemas.js';

export const Role = StringEnum(ROLES, {
  description: 'owner: everything; issuer: definitions, issuing, imports, revocation, pathways; viewer: read only',
});

export const SessionUserSchema = Type.Object(
  {
    id: Type.String(),
    email: Type.String(),
    role: Role,
    issuer: Type.Object({ id: Type.String(), slug: Type.String(), name: Type.String() }),
  },
  { $id: 'SessionUser' },
);

export const SessionSchema = Type.Object(
  {
    user: Type.Ref(SessionUserSchema),
    csrfToken: Type.String({ description: 'Send it as X-CSRF-Token on every change made with this session.' }),
  },
  { $id: 'Session' },
);

export const TeamMemberSchema = Type.Object(
  {
    id: Type.String(),
    email: Type.String(),
    role: Role,
    status: StringEnum(['invited', 'active'] as const),
    createdAt: DateTime,
    lastSignInAt: Nullable(DateTime),
  },
  { $id: 'TeamMember' },
);

export const SignInBody = Type.Object(
  {
    email: Type.String({ minLength: 1, maxLength: 254 }),
    password: Type.String({ minLength: 1, maxLength: PASSWORD_MAX }),
  },
  { additionalProperties: false },
);

export const Password = Type.String({
  minLength: PASSWORD_MIN,
  maxLength: PASSWORD_MAX,
  description: `${PASSWORD_MIN} to ${PASSWORD_MAX} characters; no other rules.`,
});

export const AcceptInviteBody = Type.Object({ password: Password }, { additionalProperties: false });

export const InviteParams = Type.Object({ token: Type.String({ maxLength: 200 }) });

export const InviteInfo = Type.Object({
  email: Type.String(),
  role: Role,
  issuerName: Type.String(),
  expiresAt: DateTime,
});

export const InviteUserBody = Type.Object({ email: Email, role: Role }, { additionalProperties: false });

export const InvitedUser = Type.Object({
  user: Type.Ref(TeamMemberSchema),
  inviteUrl: Type.String({ format: 'uri', description: 'The one-time invite link (shown once).' }),
  inviteExpiresAt: DateTime,
  emailed: Type.Boolean({
    description:
      'Whether the link was also emailed to the address (only when this service sends email, SMTP_URL); either way hand the link on yourself when it was not.',
  }),
});

export const ChangeRoleBody = Type.Object({ role: Role }, { additionalProperties: false });

export const accountSchemas = [SessionUserSchema, SessionSchema, TeamMemberSchema, SsoSettingsSchema, SsoLinksSchema];
