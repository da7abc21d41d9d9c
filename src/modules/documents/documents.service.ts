import type { Core } from '../../core/context.js';
import { errors } from '../../core/errors.js';
import { publicUrls } from '../../core/urls.js';
import type { ReadCaches } from '../../db/read-cache.js';
import type { DefinitionService } from '../definitions/definitions.service.js';
import type { EndorsementService } from '../endorsements/endorsements.service.js';
import type { IssuerRow } from '../issuers/issuers.repository.js';
import type { IssuerService } from '../issuers/issuers.service.js';
import { renderBadgeSvg } from './badge-image.js';
import {
  assertionDocument,
  badgeClassDocument,
  endorsementDocument,
  endorserProfileDocument,
  issuerDocument,
  revokedAssertionDocument,
} from './documents.builders.js';
import {
  type AlignmentFields,
  type AssertionRow,
  type BadgeClassRow,
  createDocumentRepository,
} from './documents.repository.js';
import type { ObAssertion, ObRevokedAssertion } from './documents.schemas.js';

export type AssertionOutcome =
  | { revoked: false; document: ObAssertion; verifyPageUrl: string }
  | { revoked: true; document: ObRevokedAssertion; verifyPageUrl: string };

export type AssertionImageOutcome = { revoked: false; svg: string } | { revoked: true; document: ObRevokedAssertion };

/**
 * The public Open Badges 2.0 documents and images. Everything is looked up by the issuer slug of the
 * URL first, so a resource of another issuer under this slug is simply not found.
 */
export function createDocumentService(
  core: Pick<Core, 'config' | 'db' | 'dialect'>,
  deps: {
    issuers: Pick<IssuerService, 'findIssuerBySlug'>;
    definitions: Pick<DefinitionService, 'findRow'>;
    endorsements: Pick<EndorsementService, 'findRow'>;
    readCaches: ReadCaches;
  },
) {
  const urls = publicUrls(core.config.publicBaseUrl);
  const repo = createDocumentRepository(core.db, core.dialect, deps.readCaches);

  async function requireIssuer(slug: string, what: string): Promise<IssuerRow> {
    const issuer = await deps.issuers.findIssuerBySlug(slug);
    if (!issuer) throw errors.notFound(what);
    return issuer;
  }

  /** The issuer's definition with its alignments and endorsement ids; 404 BadgeClass when there is none. */
  async function requireBadgeClass(slug: string, defSlug: string): Promise<BadgeClassRow> {
    const row = await repo.findBadgeClass(slug, defSlug);
    if (!row) throw errors.notFound('BadgeClass');
    return row;
  }

  /** The credential of the issuer at `slug` with everything its assertion shows; 404 when there is none. */
  async function requireAssertion(slug: string, id: string): Promise<AssertionRow> {
    const row = await repo.findAssertion(id);
    if (row?.issuer_slug !== slug) throw errors.notFound('Assertion');
    return row;
  }

  const liveAssertion = (row: AssertionRow) =>
    assertionDocument(urls, row, JSON.parse(row.endorsement_ids) as string[]);

  return {
    async issuerProfile(slug: string) {
      return issuerDocument(urls, await requireIssuer(slug, 'Issuer'));
    },

    async badgeClass(slug: string, defSlug: string) {
      const row = await requireBadgeClass(slug, defSlug);
      const alignments = JSON.parse(row.alignments) as AlignmentFields[];
      return badgeClassDocument(urls, slug, row, alignments, JSON.parse(row.endorsement_ids) as string[]);
    },

    async badgeImage(slug: string, defSlug: string): Promise<string> {
      const row = await requireBadgeClass(slug, defSlug);
      return renderBadgeSvg({ name: row.name, issuerName: row.issuer_name, brandColor: row.brand_primary_color });
    },

    /** Revoked assertions answer the OB 2.0 revocation stub; expired ones are served whole (validators judge expiry). */
    async assertion(slug: string, id: string): Promise<AssertionOutcome> {
      const row = await requireAssertion(slug, id);
      const verifyPageUrl = urls.verifyPage(row.issuer_slug, row.id);
      if (row.revoked_at !== null) {
        return { revoked: true, document: revokedAssertionDocument(urls, row), verifyPageUrl };
      }
      return { revoked: false, document: liveAssertion(row), verifyPageUrl };
    },

    /** The generated badge baked with the assertion (OB 2.0 SVG baking). */
    async assertionImage(slug: string, id: string): Promise<AssertionImageOutcome> {
      const row = await requireAssertion(slug, id);
      if (row.revoked_at !== null) {
        return { revoked: true, document: revokedAssertionDocument(urls, row) };
      }
      const document = liveAssertion(row);
      const svg = renderBadgeSvg(
        { name: row.definition_name, issuerName: row.issuer_name, brandColor: row.brand_primary_color },
        { verifyUrl: document.id, assertionJson: JSON.stringify(document) },
      );
      return { revoked: false, svg };
    },

    async endorsement(slug: string, id: string) {
      const issuer = await requireIssuer(slug, 'Endorsement');
      const endorsement = await deps.endorsements.findRow(issuer.id, id);
      if (!endorsement) throw errors.notFound('Endorsement');
      let endorsedUrl: string;
      if (endorsement.target_type === 'definition') {
        const definition = await deps.definitions.findRow(issuer.id, endorsement.target_id);
        if (!definition) throw errors.notFound('Endorsement');
        endorsedUrl = urls.badgeClass(issuer.slug, definition.slug);
      } else {
        endorsedUrl = urls.assertion(issuer.slug, endorsement.target_id);
      }
      return endorsementDocument(urls, issuer.slug, endorsement, endorsedUrl);
    },

    async endorserProfile(slug: string, id: string) {
      const issuer = await requireIssuer(slug, 'Profile');
      const endorsement = await deps.endorsements.findRow(issuer.id, id);
      if (!endorsement) throw errors.notFound('Profile');
      return endorserProfileDocument(urls, issuer, endorsement);
    },
  };
}

export type DocumentService = ReturnType<typeof createDocumentService>;
