import type { Selectable } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { ImagesTable } from '../../db/schema.js';

export type ImageRow = Selectable<ImagesTable>;

export function createImageRepository(db: Executor) {
  return {
    async insert(row: ImageRow): Promise<void> {
      await db.insertInto('images').values(row).execute();
    },
    /** The stored type of an image, without its bytes. */
    async contentType(id: string): Promise<string | undefined> {
      const row = await db.selectFrom('images').select('content_type').where('id', '=', id).executeTakeFirst();
      return row?.content_type;
    },
    /** An image of the issuer by id, with its bytes; another issuer's image is undefined. */
    async getOwned(issuerId: string, id: string): Promise<Pick<ImageRow, 'content_type' | 'bytes'> | undefined> {
      return db
        .selectFrom('images')
        .select(['content_type', 'bytes'])
        .where('issuer_id', '=', issuerId)
        .where('id', '=', id)
        .executeTakeFirst();
    },
    /** Public read by id: an image is served to anyone who has its URL (like a badge image). */
    async getPublic(id: string): Promise<Pick<ImageRow, 'content_type' | 'bytes'> | undefined> {
      return db.selectFrom('images').select(['content_type', 'bytes']).where('id', '=', id).executeTakeFirst();
    },
  };
}
