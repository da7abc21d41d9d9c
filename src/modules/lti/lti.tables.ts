/** The LTI module's tables (migrations 0080 and 0135), added to the database's types where the module queries them. */
export interface LtiToolKeysTable {
  kid: string;
  /** The issuer whose own key this is (migration 0135); null for the service's key. */
  issuer_id: string | null;
  public_jwk: string;
  private_key_sealed: string;
  created_at: string;
  retired_at: string | null;
}

export interface LtiRegistrationTokensTable {
  token_hash: string;
  issuer_id: string;
  created_by: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface LtiPlatformsTable {
  id: string;
  issuer_id: string;
  name: string;
  platform_issuer: string;
  client_id: string;
  auth_login_url: string;
  token_url: string;
  jwks_uri: string;
  /** The `aud` of client assertions when it is not the token URL (Brightspace; LTI-DR `authorization_server`). */
  token_audience: string | null;
  registered_by: string;
  created_at: string;
}

export interface LtiDeploymentsTable {
  platform_id: string;
  deployment_id: string;
  issuer_id: string;
  created_at: string;
}

export interface LtiNoncesTable {
  platform_id: string;
  nonce: string;
  expires_at: string;
}

export interface LtiLinksTable {
  id: string;
  issuer_id: string;
  platform_id: string;
  definition_id: string;
  /** `launch`: opening the link awards; `score`: a result at or above min_score (percent) awards. */
  rule: 'launch' | 'score';
  min_score: number | null;
  created_at: string;
}

export interface LtiLinkContextsTable {
  link_id: string;
  deployment_id: string;
  context_id: string;
  issuer_id: string;
  platform_id: string;
  lineitem_url: string | null;
  memberships_url: string | null;
  next_sync_at: string;
  last_synced_at: string | null;
}

export type LtiTables = {
  lti_tool_keys: LtiToolKeysTable;
  lti_registration_tokens: LtiRegistrationTokensTable;
  lti_platforms: LtiPlatformsTable;
  lti_deployments: LtiDeploymentsTable;
  lti_nonces: LtiNoncesTable;
  lti_links: LtiLinksTable;
  lti_link_contexts: LtiLinkContextsTable;
};
