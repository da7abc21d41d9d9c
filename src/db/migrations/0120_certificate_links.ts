import type { Kysely } from 'kysely';

/**
 * The earner's certificate links (issue 44): a link is derived from the credential and a generation
 * (src/modules/certificates/certificates.links.ts), so nothing secret is stored. A row exists once a
 * link was revoked: `generation` is the live one, and links of lower generations answer 410.
 */
export function certificateLinksMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('certificate_links')
        .addColumn('issuer_id', 'text', (c) => c.notNull())
        .addColumn('credential_id', 'text', (c) => c.notNull())
        .addColumn('generation', 'integer', (c) => c.notNull())
        .addColumn('revoked_at', 'text', (c) => c.notNull())
        .addColumn('revoked_by', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('certificate_links_pk', ['issuer_id', 'credential_id'])
        .execute();
    },
  };
}
