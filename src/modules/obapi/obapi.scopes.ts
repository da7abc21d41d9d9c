/** The Open Badges API's paths (OB 3.0 §6; the service model's base path /ims/ob/v3p0). */
export const OB_API = '/ims/ob/v3p0';
/** The authorization server's endpoints live beside the API they protect. */
export const OAUTH = `${OB_API}/oauth`;

const SCOPE_BASE = 'https://purl.imsglobal.org/spec/ob/v3p0/scope';

/** OB 3.0 §6.1 "Scopes": each operation's scope, described as the specification describes it. */
export const SCOPES = {
  credentialRead: `${SCOPE_BASE}/credential.readonly`,
  credentialUpsert: `${SCOPE_BASE}/credential.upsert`,
  profileRead: `${SCOPE_BASE}/profile.readonly`,
  profileUpdate: `${SCOPE_BASE}/profile.update`,
} as const;

export const SCOPE_DESCRIPTIONS: Record<string, string> = {
  [SCOPES.credentialRead]: 'Permission to read AchievementCredentials for the authenticated entity.',
  [SCOPES.credentialUpsert]: 'Permission to create or update AchievementCredentials for the authenticated entity.',
  [SCOPES.profileRead]: 'Permission to read the profile for the authenticated entity.',
  [SCOPES.profileUpdate]: 'Permission to update the profile for the authenticated entity.',
};

export const ALL_SCOPES = Object.values(SCOPES);
