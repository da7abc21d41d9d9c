import type { Static } from '@sinclair/typebox';
import type { Core } from '../../core/context.js';
import { errors } from '../../core/errors.js';
import { sha256Hex } from '../../core/hashing.js';
import { slugify } from '../../core/slug.js';
import type { IssuerService } from '../issuers/issuers.service.js';
import type { SignedIn } from './session.types.js';
import type { CompleteSetupBody } from './setup.schemas.js';

/** Random characters of the one-time set-up link. */
const TOKEN_LENGTH = 43;

/** What set-up needs of the account service: invite the first owner and accept at once. */
interface FirstOwner {
  invite(
    issuerId: string,
    email: string,
    role: 'owner',
    actor: string,
  ): Promise<{ inviteUrl: string; inviteExpiresAt: string }>;
  acceptInvite(token: string, password: string): Promise<SignedIn>;
}

export interface SetupOutcome {
  signedIn: SignedIn;
  issuerSlug: string;
  sample: { slug: string; apiKey: string } | null;
}

/**
 * The first start of an embedded database (design.md "Added 2026-12-01"): the operator's own
 * organisation is set up in the browser through a one-time link, instead of leaving them on the
 * demo issuer. The link's token lives in this process only: set-up exists only on the embedded
 * (single-process) database, and a restart before it is done prints a new link. It is good until
 * the first issuer exists, whoever made it (the CLI's `issuers create` too).
 */
export function createSetupService(
  core: Pick<Core, 'config' | 'ids'>,
  deps: { issuers: Pick<IssuerService, 'countIssuers' | 'createIssuer'>; accounts: FirstOwner },
) {
  let tokenHash: string | null = null;

  /** The open token's hash matches, and no issuer exists yet. */
  async function requireOpen(token: string): Promise<void> {
    if (tokenHash === null || sha256Hex(token) !== tokenHash) throw errors.notFound('Set-up link');
    if ((await deps.issuers.countIssuers()) > 0) {
      tokenHash = null;
      throw errors.notFound('Set-up link');
    }
  }

  return {
    /**
     * On a first start in set-up mode (BOOTSTRAP_ISSUER unset) against an empty embedded
     * database, opens set-up and returns the text to show the operator (the link), else null.
     */
    async open(): Promise<string | null> {
      const { config } = core;
      if (config.bootstrapIssuer !== 'setup' || config.database.dialect !== 'sqlite') return null;
      if ((await deps.issuers.countIssuers()) > 0) return null;
      const token = core.ids.token(TOKEN_LENGTH);
      tokenHash = sha256Hex(token);
      const link = `${config.publicBaseUrl}/console/setup/${token}`;
      return [
        '',
        '  This service has no organisation yet. Set up yours (name, web address, logo, first owner) here:',
        '',
        `    ${link}`,
        '',
        '  The link works once, until the organisation exists; restarting prints a new one.',
        '  Scripts: BOOTSTRAP_ISSUER=true creates the demo issuer instead; npm run cli -- issuers create --help',
        '',
      ].join('\n');
    },

    async check(token: string): Promise<{ publicBaseUrl: string }> {
      await requireOpen(token);
      return { publicBaseUrl: core.config.publicBaseUrl };
    },

    /**
     * Creates the organisation (enterprise plan: the operator's own installation has no quota),
     * its first owner signed in, and on request the demo issuer beside it. The link is spent at
     * once, so two submissions cannot make two organisations; a refused organisation reopens it.
     */
    async complete(token: string, body: Static<typeof CompleteSetupBody>): Promise<SetupOutcome> {
      // Spent before the first await, so two submissions racing cannot both pass the check.
      if (tokenHash === null || sha256Hex(token) !== tokenHash) throw errors.notFound('Set-up link');
      const spent = tokenHash;
      tokenHash = null;
      if ((await deps.issuers.countIssuers()) > 0) throw errors.notFound('Set-up link');
      const { organisation, owner } = body;
      const slug = organisation.slug ?? slugify(organisation.name);
      let created: Awaited<ReturnType<typeof deps.issuers.createIssuer>>;
      try {
        created = await deps.issuers.createIssuer(
          {
            name: organisation.name.trim(),
            slug,
            email: organisation.email,
            url: organisation.url,
            plan: 'enterprise',
            brandPrimaryColor: organisation.brandColor ?? null,
          },
          'setup',
        );
      } catch (err) {
        tokenHash = spent;
        throw err;
      }
      const invited = await deps.accounts.invite(created.issuer.id, owner.email, 'owner', 'setup');
      const signedIn = await deps.accounts.acceptInvite(
        invited.inviteUrl.slice(invited.inviteUrl.lastIndexOf('/') + 1),
        owner.password,
      );
      let sample: SetupOutcome['sample'] = null;
      if (body.sampleData === true) {
        const demo = await deps.issuers.createIssuer(
          {
            name: 'Demo Academy',
            slug: slug === 'demo' ? 'demo-academy' : 'demo',
            email: 'badges@demo.example',
            url: core.config.publicBaseUrl,
            plan: 'growth',
            description: 'Sample data to try the API on; your own organisation is separate.',
            brandPrimaryColor: '#1f5fbf',
          },
          'setup',
        );
        sample = { slug: demo.issuer.slug, apiKey: demo.key.key };
      }
      return { signedIn, issuerSlug: created.issuer.slug, sample };
    },
  };
}

export type SetupService = ReturnType<typeof createSetupService>;
