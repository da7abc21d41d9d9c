import { type Kysely, sql } from 'kysely';
import { containsEmail } from '../../core/personal-data.js';

/** Ids per UPDATE: far below either engine's bound-parameter limit. */
const CHUNK = 500;

/**
 * Forgets every stored recipient name that holds an email address (issue 22.2): such a name was
 * published as a whole on the verification page, in /api/v1/verify and in the page's meta tags.
 * The SQL filter only narrows the rows to those with an "@" in some form ("@", fullwidth "＠",
 * small "﹫", "%40"); `containsEmail` decides, exactly as issuance does from now on. The credentials
 * stay; the append-only audit log never held names and is not touched.
 */
export function namesWithoutEmailsMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      const { rows } = await sql<{ id: string; display_name: string }>`
        select id, display_name from credentials
        where display_name like '%@%' or display_name like '%\uff20%' or display_name like '%\ufe6b%'
          or display_name like '%40%'`.execute(db);
      const ids = rows.filter((row) => containsEmail(row.display_name)).map((row) => row.id);
      for (let start = 0; start < ids.length; start += CHUNK) {
        const chunk = ids.slice(start, start + CHUNK);
        await sql`update credentials set display_name = null where id in (${sql.join(chunk)})`.execute(db);
      }
    },
  };
}
