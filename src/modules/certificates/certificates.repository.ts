import type { Selectable } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { CertificateDesignsTable } from '../../db/schema.js';

export type CertificateDesignRow = Selectable<CertificateDesignsTable>;
/** The row of the issuer's default design. */
export const ISSUER_TARGET = 'issuer';

export function createCertificateRepository(db: Executor) {
  return {
    /** The issuer's designs for `targets` (definition ids and/or ISSUER_TARGET). */
    async find(issuerId: string, targets: string[]): Promise<CertificateDesignRow[]> {
      return db
        .selectFrom('certificate_designs')
        .selectAll()
        .where('issuer_id', '=', issuerId)
        .where('target', 'in', targets)
        .execute();
    },
    /** Saves a design, one version after the stored one; returns the new version. */
    async save(
      issuerId: string,
      target: string,
      design: string,
      at: string,
      by: string,
    ): Promise<CertificateDesignRow> {
      const current = await db
        .selectFrom('certificate_designs')
        .select('version')
        .where('issuer_id', '=', issuerId)
        .where('target', '=', target)
        .executeTakeFirst();
      const row = {
        issuer_id: issuerId,
        target,
        design,
        version: (current?.version ?? 0) + 1,
        updated_at: at,
        updated_by: by,
      };
      await db
        .insertInto('certificate_designs')
        .values(row)
        .onConflict((oc) =>
          oc.columns(['issuer_id', 'target']).doUpdateSet({
            design: row.design,
            version: row.version,
            updated_at: row.updated_at,
            updated_by: row.updated_by,
          }),
        )
        .execute();
      return row;
    },
    async remove(issuerId: string, target: string): Promise<boolean> {
      const result = await db
        .deleteFrom('certificate_designs')
        .where('issuer_id', '=', issuerId)
        .where('target', '=', target)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}
