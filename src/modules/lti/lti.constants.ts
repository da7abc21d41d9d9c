/*
 * Names fixed by the 1EdTech specifications: claim URIs (LTI Core 1.3 §5.3 "Required message
 * claims", §5.4 "Optional message claims"), the Advantage service scopes and media types (AGS 2.0
 * §3.1 "Line item service" and §3.2 "Result service", NRPS 2.0 §2.2 "Membership container media
 * type"), and the Dynamic Registration configuration names (LTI-DR 1.0 §3.4 "Tool configuration").
 */
export const LTI = 'https://purl.imsglobal.org/spec/lti/claim/';
export const CLAIM = {
  messageType: `${LTI}message_type`,
  version: `${LTI}version`,
  deploymentId: `${LTI}deployment_id`,
  targetLinkUri: `${LTI}target_link_uri`,
  resourceLink: `${LTI}resource_link`,
  roles: `${LTI}roles`,
  context: `${LTI}context`,
  custom: `${LTI}custom`,
  launchPresentation: `${LTI}launch_presentation`,
  deepLinkingSettings: 'https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings',
  contentItems: 'https://purl.imsglobal.org/spec/lti-dl/claim/content_items',
  deepLinkingData: 'https://purl.imsglobal.org/spec/lti-dl/claim/data',
  agsEndpoint: 'https://purl.imsglobal.org/spec/lti-ags/claim/endpoint',
  nrps: 'https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice',
} as const;

export const MESSAGE = {
  resourceLink: 'LtiResourceLinkRequest',
  deepLinkingRequest: 'LtiDeepLinkingRequest',
  deepLinkingResponse: 'LtiDeepLinkingResponse',
} as const;

export const SCOPE = {
  lineItem: 'https://purl.imsglobal.org/spec/lti-ags/scope/lineitem',
  resultReadonly: 'https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly',
  memberships: 'https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly',
} as const;

export const MEDIA = {
  results: 'application/vnd.ims.lis.v2.resultcontainer+json',
  memberships: 'application/vnd.ims.lti-nrps.v2.membershipcontainer+json',
} as const;

export const TOOL_CONFIGURATION = 'https://purl.imsglobal.org/spec/lti-tool-configuration';
export const PLATFORM_CONFIGURATION = 'https://purl.imsglobal.org/spec/lti-platform-configuration';

/** LTI Core 1.3 Appendix A.2 "LIS vocabulary for context roles": the roles that teach a course. */
const TEACHING = ['Instructor', 'ContentDeveloper', 'Administrator', 'TeachingAssistant', 'Mentor'];
export function isTeachingRole(role: string): boolean {
  const name = role.replace(
    /^http:\/\/purl\.imsglobal\.org\/vocab\/lis\/v2\/(membership|institution\/person|system\/person)#/,
    '',
  );
  return TEACHING.includes(name) || /#(Instructor|Administrator|SysAdmin)$/.test(role);
}
export function isLearnerRole(role: string): boolean {
  return role === 'http://purl.imsglobal.org/vocab/lis/v2/membership#Learner' || role === 'Learner';
}

/** The custom parameter a placed link carries (set in the deep linking response, echoed by each launch). */
export const LINK_PARAMETER = 'accolade_link';

/** Paths of the tool (fixed: platforms store them at registration). */
export const PATHS = {
  jwks: '/lti/jwks',
  login: '/lti/login',
  launch: '/lti/launch',
  register: '/lti/register',
  deepLinks: '/lti/deep-links',
  awards: '/lti/awards',
  sync: '/lti/sync',
} as const;
