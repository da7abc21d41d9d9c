/**
 * The OpenAPI document's tags, each with what its operations are for (Spectral's
 * `operation-tag-defined` and `openapi-tags`: every tag an operation names is defined at the top
 * level). A route names one of these; test/openapi.test.ts refuses any other.
 */
export const OPERATION_TAGS = [
  { name: 'Issuer', description: 'The issuer the API key belongs to: its profile and its API keys.' },
  { name: 'Definitions', description: 'Credential definitions (Open Badges BadgeClasses) the issuer issues against.' },
  {
    name: 'Credentials',
    description: 'Issued credentials (Open Badges Assertions): issue, list, search, revoke and reissue.',
  },
  {
    name: 'Ingest',
    description: 'Completions and CSV rosters turned into idempotent issuance, with a per-row report.',
  },
  { name: 'Connectors', description: 'Receive endpoints for learning and student management systems.' },
  {
    name: 'Verification',
    description: 'Open verification by assertion id (single and bulk), the verification page and earner profiles.',
  },
  {
    name: 'Open Badges documents',
    description: 'The hosted Open Badges 2.0 JSON-LD documents and their images (open, no key).',
  },
  {
    name: 'Open Badges 3.0',
    description: 'Signed Open Badges 3.0 credentials, the issuer DID documents and the revocation status lists.',
  },
  {
    name: 'OpenID4VCI',
    description: 'OpenID for Verifiable Credential Issuance 1.0: metadata, offers, tokens, nonces.',
  },
  { name: 'Wallet offers', description: 'Credential offers for the earner’s wallet, made through the API.' },
  { name: 'Learner Credential Wallet', description: 'The Learner Credential Wallet’s VC-API exchange.' },
  {
    name: 'Certificates',
    description:
      'Designed PDF certificates of credentials (PDF/A-3, the signed credential embedded) and their designs.',
  },
  { name: 'Images', description: 'Badge images and logos uploaded by an issuer, served from this origin.' },
  { name: 'Endorsements', description: 'Endorsements of definitions and credentials, given and received.' },
  { name: 'Alignments', description: 'Framework alignments of a definition (BadgeClass `alignment`).' },
  { name: 'Pathways', description: 'Staged sets of definitions and an earner’s progress through them.' },
  { name: 'Webhooks', description: 'Signed outbound webhooks: subscriptions, deliveries and the open catalogue.' },
  { name: 'Notifications', description: 'Emails to earners: settings, previews, expiry reminders, unsubscribing.' },
  { name: 'Usage', description: 'The plan, the issuance quota of the month and metering.' },
  { name: 'GDPR', description: 'Export and erasure of one recipient’s data, found by the salted email hash.' },
  { name: 'Reports and analytics', description: 'Issuance reports and analytics, as JSON and CSV.' },
  { name: 'Audit', description: 'The append-only, hash-chained audit log of every state change.' },
  { name: 'Trust', description: 'Security controls, subprocessors and service objectives (open).' },
  {
    name: 'Backpack',
    description: 'The earner’s backpack: sign-in by emailed link, every badge from every issuer, wallet offers.',
  },
  {
    name: 'LTI',
    description: 'The LTI 1.3 tool: platform registrations, launches, deep linking and awards from an LMS.',
  },
  {
    name: 'Open Badges API',
    description: 'The 1EdTech Open Badges 3.0 API for an earner’s access token: discovery, credentials, profile.',
  },
  { name: 'Console', description: 'The web console’s sessions, staff users, invites and single sign-on.' },
  { name: 'Operations', description: 'Liveness, readiness, metrics and the landing page.' },
] as const;

/**
 * Descriptions of the operations whose route gives none of its own (a route's own description is
 * used when it has one). Each says what the summary does not: who may call it, what it answers in
 * the cases a client meets, and what it leaves alone.
 */
export const OPERATION_DESCRIPTIONS: Readonly<Record<string, string>> = {
  getLtiTool:
    'The domain, login, launch, deep linking and JWKS URLs, scopes and claims of this service’s LTI 1.3 tool, for an LMS registered by hand.',
  listLtiPlatforms:
    'Every LMS platform registered for this issuer, by Dynamic Registration or by hand, with its endpoints and deployment ids.',
  updateLtiPlatform:
    'Changes the name, or adds another deployment id of the same registration; at least one of the two. Another issuer’s platform answers 404. Owners only.',
  removeLtiPlatform:
    'Launches from the platform are refused from now on; credentials already issued through it stay as they are. Answers 204. Owners only.',
  getLtiJwks:
    'The public keys (JWK Set) the tool signs deep linking responses and service token requests with; platforms fetch it to check them. No key.',
  startLtiRegistration:
    'LTI Dynamic Registration: the LMS opens the one-time registration URL with its openid_configuration and registration_token; the page registers the tool with the platform. An unknown, used or expired URL answers 400.',
  ltiDeepLink:
    'Posted by the picker page inside the LMS with the launch’s token: without an award rule, answers the rule form; with one, the page that posts the signed deep linking response back to the LMS. An expired token answers 400.',
  ltiAwardSelected:
    'Posted by the instructor page with the launch’s token and the learners chosen: each is issued the badge, idempotently. An expired token or an unreadable roster answers 400.',
  ltiCheckScores:
    'Posted by the instructor page with the launch’s token: reads the course’s results now and issues the badge to every learner at or above the rule’s score, idempotently. An expired token answers 400.',
  getLandingPage:
    'An HTML page for a person who opens the service’s address: what it is and where the API reference, the OpenAPI document and the embed guide are. No key.',
  getHealth:
    'Answers 200 while the process runs, without touching the database: for a liveness probe. Not rate limited.',
  getReadiness:
    'Answers 200 when a query to the database succeeds and 503 when it does not: for a readiness probe. Not rate limited.',
  getMetrics:
    'Prometheus text exposition: issued and verified totals, HTTP requests and latency, process metrics. With METRICS_TOKEN set it needs `Authorization: Bearer <token>`. Not rate limited.',
  signIn:
    'Email and password of a console user. Sets the session cookie (HttpOnly, SameSite=Strict) and answers the CSRF token that every later change must send as X-CSRF-Token. A wrong password and an unknown address answer the same 401.',
  getSession:
    'The console user of the session cookie, their role and issuer, and the CSRF token of the session. 401 without a live session.',
  signOut: 'Ends the session of the cookie at once (its CSRF token must be sent as X-CSRF-Token). Answers 204.',
  getInvite:
    'What the console shows before an invited user sets a password: the issuer’s name, the role and the time the invite expires. An unknown, used or expired token answers 404 alike.',
  listUsers: 'Every console user of the issuer with role and status (invited or active). Owners only.',
  inviteUser:
    'Creates an invited user and returns the one-time invite link (72 hours), which is shown only in this answer. An address already on the issuer answers 409 email_taken. Owners only.',
  changeUserRole:
    'Sets owner, issuer or viewer. The user’s sessions end, so the new role applies at their next sign-in. Demoting the last owner answers 409. Owners only.',
  removeUser:
    'Deletes the user and ends their sessions; audit records keep naming the user id. Removing the last owner answers 409. Owners only.',
  getSsoSettings:
    'The OpenID Connect provider staff sign in with: issuer URL, client id, allowed domain and whether password sign-in is off. The client secret is never returned. 404 when none is set up. Owners only.',
  removeSsoSettings:
    'Deletes the provider and its sealed client secret; password sign-in is allowed again. 404 when none is set up. Owners only.',
  getIssuerMe:
    'The issuer resolved from the API key or console session, with its public profile fields and profileUrl (its Open Badges 2.0 Issuer Profile).',
  updateIssuerMe:
    'Changes the profile fields given (name, url, email, description, image, brand colour and logo); the slug is permanent. Hosted documents and verification pages show the change at once.',
  listApiKeys:
    'Each key’s display prefix, label, creation time, last use and stop time; never the key itself. Owners in a console session only.',
  createApiKey:
    'A new key for this issuer. The full key is in this answer only: it is stored as a SHA-256 hash and cannot be shown again. Owners in a console session only.',
  revokeApiKey: 'The key stops working at once; an unknown key answers 404. Owners in a console session only.',
  getUsage:
    'The plan, the issuance of the current calendar month (UTC) against its quota (null quota: unlimited), whether premium verification is included, and the metered counts.',
  createDefinition:
    'Creates a BadgeClass of this issuer. The slug is derived from the name when omitted; an explicit slug already taken by this issuer answers 409 slug_taken.',
  listDefinitions: 'Every definition of the issuer, active and archived.',
  getDefinition: 'One definition of this issuer; another issuer’s id answers 404, as an unknown one does.',
  updateDefinition:
    'Changes any optional field given, or the status (archived definitions issue nothing: 400 definition_archived). The slug is permanent.',
  listCredentials:
    'A page of the issuer’s credentials (limit 1–200, default 50; offset), optionally by status or definition, with the total matching.',
  searchCredentials:
    'All filters given must match. recipientEmail is hashed with the issuer’s salt for an exact lookup and never stored or logged; recipientName matches part of the stored name in any case. Answers a page like the list (limit and offset default to 50 and 0).',
  listExpiringCredentials:
    'Credentials that are neither revoked nor expired and whose expiresOn falls between now and withinDays days on, soonest first, as a page.',
  getCredential:
    'The credential with its effective status (revoked, else expired when expiresOn has passed, else valid), its revocation and its notification outcome.',
  revokeCredential:
    'Sets revokedAt now with the optional reason, which is published in the revoked assertion (410) and kept after a GDPR erasure: a reason holding an email address is refused (400). The body may be left out or null. A credential already revoked answers 200 with its original revocation and changes nothing.',
  reissueCredential:
    'A new credential with a fresh id, the same definition, recipient and name, issued now; the original is revoked with reason "reissued" (unless it already was). The body may be left out or null. A completionKey already used replays (200, created false); a new one counts against the quota (402).',
  getImport:
    'The counts of one import batch of this issuer and the rows that did not issue cleanly (skipped or error) with their messages; never an email.',
  createAlignment:
    'Adds a target (name, URL, optional framework, code and description) to the definition; its BadgeClass lists it in `alignment` at once.',
  listAlignments: 'The definition’s alignments, oldest first; an unknown or another issuer’s definition answers [].',
  giveEndorsement:
    'Signs an OB 3.0 EndorsementCredential with this issuer’s own did:web key for another issuer’s BadgeClass on this service. It is embedded in that issuer’s credentials only once that issuer accepts it. Endorsing one’s own definition is refused (400).',
  listGivenEndorsements: 'The endorsements this issuer signed, oldest first, with their status.',
  revokeGivenEndorsement:
    'Sets the endorsement’s status list bit: verifiers see it revoked, and credentials signed from now on no longer embed it. Repeating it changes nothing.',
  endorseDefinition:
    'Records an endorsement of one of this issuer’s definitions by a named endorser, hosted as an Open Badges 2.0 Endorsement document and listed in the BadgeClass.',
  listDefinitionEndorsements:
    'The definition’s endorsements, oldest first; an unknown or another issuer’s definition answers [].',
  endorseCredential:
    'Records an endorsement of one of this issuer’s credentials by a named endorser, hosted as an Open Badges 2.0 Endorsement document and listed in the assertion.',
  listCredentialEndorsements:
    'The credential’s endorsements, oldest first; an unknown or another issuer’s credential answers [].',
  getIssuerProfileDocument:
    'The hosted Issuer Profile, its id byte-identical to this URL. application/ld+json, or application/json when that is all the client accepts. Unknown slug: 404.',
  getBadgeClassDocument:
    'The hosted BadgeClass with its criteria, image, tags, alignments and endorsements; its id is this URL. Unknown issuer or definition slug: 404.',
  getBadgeClassImage:
    'The SVG generated for a definition without an image of its own, served with a policy that runs no script. Unknown slugs: 404.',
  getAssertionImage:
    'The badge SVG with the assertion baked in (Open Badges 2.0 baking): a revoked credential answers 410, an unknown one 404.',
  getEndorsementDocument:
    'The hosted Endorsement (claim, endorser, issuedOn); its id is this URL. An unknown endorsement answers 404.',
  getEndorserProfileDocument:
    'The Profile of the endorser named in an endorsement, as its `issuer` refers to it. An unknown endorsement answers 404.',
  uploadImage:
    'The raw image as the body: PNG (up to 2048 pixels a side) or SVG (sanitised: scripts, event handlers and external references removed), at most 256 KiB. Answers its id, URL (to use as a definition image or logo) and media type; other media types answer 415.',
  getImage:
    'An image uploaded by an issuer, with its stored media type, an immutable one-year cache and a content security policy that runs nothing. Unknown id: 404.',
  getWebhookCatalog:
    'The subscribable events with a sample payload each, the signature header and scheme, the delivery headers and the retry schedule. No key.',
  createWebhook:
    'Subscribes an https URL (private and loopback addresses are refused) to the events named. The signing secret is in this answer only.',
  listWebhooks: 'The issuer’s subscriptions with their URL, events and creation time; never the secret.',
  getWebhook: 'One subscription of this issuer; another issuer’s id answers 404, as an unknown one does.',
  updateWebhook:
    'Changes the URL or the events given, under the URL rules of a new subscription; the signing secret stays.',
  deleteWebhook: 'Removes the subscription; its deliveries not yet made are cancelled. Answers 204.',
  sendWebhookTest:
    'Queues one signed `webhook.test` delivery, sent as any other and listed in the subscription’s deliveries. Answers 202 once queued.',
  resendWebhookDelivery:
    'Queues a new attempt of a past delivery with the same event id and payload, so the receiver can deduplicate it. Answers 202 once queued.',
  listWebhookDeliveries:
    'A page of the subscription’s deliveries, latest first: event, status, attempts, the last response status or error, and the next attempt.',
  deleteEarnerProfile: 'Deletes the profile; its public link answers 404 from now on. Answers 204.',
  getEarnerProfile:
    'The recipient’s partial name (first name and last initial) and the assertion URLs of their non-revoked credentials at the issuer, newest first. Unknown id: 404.',
  createPathway:
    'A pathway of this issuer. The slug is derived from the name when omitted; an explicit slug already taken answers 409 slug_taken.',
  listPathways: 'Every pathway of the issuer, active and archived, oldest first.',
  getPathway: 'The pathway and its stages ordered by stepOrder; another issuer’s id answers 404.',
  updatePathway: 'Changes the name, description or status given; the slug is permanent.',
  addPathwayStage:
    'Adds one of this issuer’s definitions at a step; a definition already in the pathway answers 409 stage_exists, another issuer’s definition 404.',
  getTrustControls:
    'The security controls by category with their evidence, the subprocessors with the data they see, and the availability, recovery and residency objectives. No key.',
  getNotificationSettings:
    'Sender name, reply-to, language, whether issuance emails the earner by default, and the expiry reminder settings.',
  updateNotificationSettings:
    'Changes the fields given; the next notification uses them. The reply-to address is the issuer’s contact address, stored as given.',
  previewNotification:
    'The message an earner would get for a sample credential of this issuer (`kind=reminder` for the expiry reminder). Sends nothing.',
  getRemindersDue:
    'The number of live credentials of this issuer that expire within the reminder lead time and were never reminded.',
  getUnsubscribePage:
    'An HTML page asking the earner to confirm; opening it changes nothing, so a mail scanner following the link does not unsubscribe anyone. Unknown token: 404.',
  unsubscribe:
    'Adds the earner’s salted hash to the issuer’s suppression list (RFC 8058 one-click; the body is not read). Repeating it changes nothing. Unknown token: 404.',
  getIssuerDidDocument:
    'The did:web document of the issuer: every signing key as a Multikey and as a JsonWebKey. Unknown slug: 404.',
  getStatusListCredential:
    'The signed BitstringStatusListCredential whose bits say which credentials are revoked (131,072 entries). Unknown issuer or list: 404.',
  getCredentialIssuerMetadata:
    'The issuer’s OpenID4VCI metadata at the well-known path OpenID4VCI 1.0 defines (inserted before the issuer’s path): credential endpoint, nonce endpoint, display and the credential configurations offered. Unknown slug: 404.',
  getCredentialIssuerMetadataAppended:
    'The same metadata as the well-known path, for wallets that append `/.well-known/openid-credential-issuer` to the credential issuer identifier. Unknown slug: 404.',
  getAuthorizationServerMetadata:
    'RFC 8414 metadata of the issuer’s authorization server at the inserted well-known path: token endpoint and the pre-authorized code grant. Unknown slug: 404.',
  getAuthorizationServerMetadataAppended:
    'The same RFC 8414 metadata, at the path earlier drafts append to the identifier. Unknown slug: 404.',
  getCredentialOffer:
    'The credential offer JSON a wallet fetches from credential_offer_uri. An offer that is redeemed, expired or unknown answers 404.',
  redeemPreAuthorizedCode:
    'OpenID4VCI 1.0 §6: form-encoded grant_type, pre-authorized_code and, when the offer has one, tx_code. Answers an access token once per offer; errors are the OAuth error body (invalid_grant, invalid_request), and an offer’s transaction code takes a bounded number of wrong guesses.',
  getCredentialNonce:
    'OpenID4VCI 1.0 §7: a fresh c_nonce, used once, for the proof of possession of the next credential request.',
};
