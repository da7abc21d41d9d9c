import type { Config } from '../../config.js';
import type { Role } from '../../core/context.js';
import type { IssuerService } from './issuers.service.js';

/** The demo issuer's first console owner, invited on first start. */
export const DEMO_OWNER_EMAIL = 'owner@demo.example';

/** What the bootstrap needs of the account service (reached structurally: accounts depends on issuers). */
interface OwnerInvites {
  invite(
    issuerId: string,
    email: string,
    role: Role,
    actor: string,
  ): Promise<{ inviteUrl: string; inviteExpiresAt: string }>;
}

export function curlExample(baseUrl: string, key: string): string {
  return `curl -H "Authorization: Bearer ${key}" ${baseUrl}/api/v1/issuer/me`;
}

/**
 * With BOOTSTRAP_ISSUER=true (scripts), on a first start against an empty embedded database, creates a demo issuer so a newcomer can call
 * the API at once, and invites its first console owner (the one-time link signs them in). Called once the server listens (`listeningAt` is the address it listens on), so
 * a start that fails earlier (a port in use) creates nothing and the next start still shows a key.
 * Returns the text to show the operator (the key is shown this once), or null.
 */
export async function bootstrapDemoIssuer(
  config: Pick<Config, 'bootstrapIssuer' | 'database' | 'publicBaseUrl'>,
  issuers: Pick<IssuerService, 'countIssuers' | 'createIssuer'>,
  accounts: OwnerInvites,
  listeningAt: string,
): Promise<string | null> {
  if (config.bootstrapIssuer !== 'demo' || config.database.dialect !== 'sqlite') return null;
  if ((await issuers.countIssuers()) > 0) return null;
  const { issuer, key } = await issuers.createIssuer({
    name: 'Demo Academy',
    slug: 'demo',
    email: 'badges@demo.example',
    url: config.publicBaseUrl,
    plan: 'growth',
    description: 'A demo issuer created on first start. Create your own with `npm run cli -- issuers create`.',
    brandPrimaryColor: '#1f5fbf',
  });
  const owner = await accounts.invite(issuer.id, DEMO_OWNER_EMAIL, 'owner', 'system');
  return [
    '',
    `  Created the demo issuer "${issuer.name}" (slug ${issuer.slug}, plan growth).`,
    `  Its API key, shown only this once:`,
    '',
    `    ${key.key}`,
    '',
    `  Try it:  ${curlExample(listeningAt, key.key)}`,
    `  API docs: ${config.publicBaseUrl}/docs   OpenAPI: ${config.publicBaseUrl}/openapi.json`,
    `  Lost the key? npm run cli -- keys create --issuer ${issuer.slug}`,
    '',
    `  Web console: set the password of its owner ${DEMO_OWNER_EMAIL} with this link (once, until ${owner.inviteExpiresAt}):`,
    '',
    `    ${owner.inviteUrl}`,
    '',
    `  Then sign in at ${config.publicBaseUrl}/console. Link expired? npm run cli -- users invite --issuer ${issuer.slug} --email <yours> --role owner`,
    '',
  ].join('\n');
}
