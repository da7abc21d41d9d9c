import { isoNow } from '../../core/clock.js';
import type { Core } from '../../core/context.js';
import { errors } from '../../core/errors.js';
import { publicUrls } from '../../core/urls.js';
import type { AuditService } from '../audit/audit.service.js';
import { partialName } from '../verification/partial-name.js';
import { badgeStatus } from './backpack.service.js';
import { withBackpack } from './backpack.tables.js';

/** Collections one account may have, and badges one collection may hold: a public page's work is bounded by them. */
export const MAX_COLLECTIONS = 20;
export const MAX_COLLECTION_BADGES = 100;
const PUBLIC_ID_LENGTH = 24;

export interface Collection {
  id: string;
  name: string;
  publicId: string | null;
  credentialIds: string[];
}

/** What a public collection page shows: the partial name and the badges, each with its verification page. */
export interface PublicCollection {
  name: string;
  earner: string | undefined;
  badges: { name: string; issuerName: string; issuedOn: string; imageUrl: string | null; verifyUrl: string }[];
}

/**
 * The earner's collections (issue 47 §1): named sets of their own badges, each private until made
 * public. A public collection is a page at a random address, with the partial name only (privacy
 * rule 2, as the issuers' earner profiles: `partialName`) and its badges' verification pages;
 * revoked badges are left out of it. Every change is audited in the earners' chain.
 */
export function createCollectionService(
  core: Pick<Core, 'db' | 'clock' | 'ids' | 'config'>,
  deps: { audit: Pick<AuditService, 'append'>; auditChain: string },
) {
  const db = withBackpack(core.db);
  const urls = publicUrls(core.config.publicBaseUrl);

  async function change(
    accountId: string,
    action: string,
    details: Record<string, unknown>,
    work: (trx: ReturnType<typeof withBackpack>) => Promise<void>,
  ) {
    await core.db.transaction().execute(async (trx) => {
      await work(withBackpack(trx));
      await deps.audit.append(trx, {
        issuerId: deps.auditChain,
        actor: `earner:${accountId}`,
        action,
        targetType: 'earner_account',
        targetId: accountId,
        details,
      });
    });
  }

  async function own(accountId: string, id: string) {
    const found = await db
      .selectFrom('earner_collections')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .executeTakeFirst();
    if (!found) throw errors.notFound('Collection');
    return found;
  }

  const cleanName = (name: string) => {
    const trimmed = name.trim();
    if (trimmed === '') {
      throw errors.validation('Give the collection a name.', [{ path: '/name', message: 'empty', code: 'minLength' }]);
    }
    return trimmed;
  };

  return {
    async list(accountId: string): Promise<Collection[]> {
      const rows = await db
        .selectFrom('earner_collections')
        .selectAll()
        .where('account_id', '=', accountId)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      const items =
        rows.length === 0
          ? []
          : await db
              .selectFrom('earner_collection_items')
              .select(['collection_id', 'credential_id'])
              .where(
                'collection_id',
                'in',
                rows.map((r) => r.id),
              )
              .orderBy('added_at')
              .execute();
      return rows.map((row) => ({
        id: row.id,
        name: row.name,
        publicId: row.public_id,
        credentialIds: items.filter((i) => i.collection_id === row.id).map((i) => i.credential_id),
      }));
    },

    async create(accountId: string, name: string): Promise<string> {
      const clean = cleanName(name);
      const count = await db
        .selectFrom('earner_collections')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('account_id', '=', accountId)
        .executeTakeFirstOrThrow();
      if (Number(count.n) >= MAX_COLLECTIONS) {
        throw errors.validation(`A backpack holds at most ${MAX_COLLECTIONS} collections.`);
      }
      const id = core.ids.uuid();
      const at = isoNow(core.clock);
      await change(accountId, 'earner.collection_created', { collectionId: id }, (trx) =>
        trx
          .insertInto('earner_collections')
          .values({ id, account_id: accountId, name: clean, public_id: null, created_at: at, updated_at: at })
          .execute()
          .then(() => undefined),
      );
      return id;
    },

    /** Adds one of the account's own badges (a credential linked to it); another's is not found. */
    async add(accountId: string, id: string, credentialId: string): Promise<void> {
      await own(accountId, id);
      const linked = await db
        .selectFrom('earner_credentials')
        .select('credential_id')
        .where('account_id', '=', accountId)
        .where('credential_id', '=', credentialId)
        .executeTakeFirst();
      if (!linked) throw errors.notFound('Badge');
      const count = await db
        .selectFrom('earner_collection_items')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('collection_id', '=', id)
        .executeTakeFirstOrThrow();
      if (Number(count.n) >= MAX_COLLECTION_BADGES) {
        throw errors.validation(`A collection holds at most ${MAX_COLLECTION_BADGES} badges.`);
      }
      const at = isoNow(core.clock);
      await change(accountId, 'earner.collection_changed', { collectionId: id, added: credentialId }, async (trx) => {
        await trx
          .insertInto('earner_collection_items')
          .values({ collection_id: id, credential_id: credentialId, added_at: at })
          .onConflict((oc) => oc.columns(['collection_id', 'credential_id']).doNothing())
          .execute();
      });
    },

    async remove(accountId: string, id: string, credentialId: string): Promise<void> {
      await own(accountId, id);
      await change(accountId, 'earner.collection_changed', { collectionId: id, removed: credentialId }, async (trx) => {
        await trx
          .deleteFrom('earner_collection_items')
          .where('collection_id', '=', id)
          .where('credential_id', '=', credentialId)
          .execute();
      });
    },

    /** Public: a new random address; private: the address is cleared and its page is 404 from then on. */
    async setPublic(accountId: string, id: string, shown: boolean): Promise<void> {
      const found = await own(accountId, id);
      if (shown === (found.public_id !== null)) return;
      const publicId = shown ? core.ids.token(PUBLIC_ID_LENGTH) : null;
      await change(
        accountId,
        shown ? 'earner.collection_published' : 'earner.collection_unpublished',
        { collectionId: id },
        async (trx) => {
          await trx
            .updateTable('earner_collections')
            .set({ public_id: publicId, updated_at: isoNow(core.clock) })
            .where('id', '=', id)
            .execute();
        },
      );
    },

    async delete(accountId: string, id: string): Promise<void> {
      await own(accountId, id);
      await change(accountId, 'earner.collection_deleted', { collectionId: id }, async (trx) => {
        await trx.deleteFrom('earner_collection_items').where('collection_id', '=', id).execute();
        await trx.deleteFrom('earner_collections').where('id', '=', id).execute();
      });
    },

    /** The public page's content, or null (no such address, or made private since). */
    async publicView(publicId: string): Promise<PublicCollection | null> {
      const found = await db
        .selectFrom('earner_collections')
        .select(['id', 'name', 'account_id'])
        .where('public_id', '=', publicId)
        .executeTakeFirst();
      if (!found) return null;
      const rows = await db
        .selectFrom('earner_collection_items as x')
        // Only badges still linked to the account: a link removed (account re-created) leaves the collection.
        .innerJoin('earner_credentials as e', (join) =>
          join.onRef('e.credential_id', '=', 'x.credential_id').on('e.account_id', '=', found.account_id),
        )
        .innerJoin('credentials as c', 'c.id', 'x.credential_id')
        .innerJoin('definitions as d', 'd.id', 'c.definition_id')
        .innerJoin('issuers as i', 'i.id', 'c.issuer_id')
        .select([
          'c.id',
          'c.display_name',
          'c.issued_on',
          'c.expires_on',
          'c.revoked_at',
          'i.slug',
          'i.name as issuer_name',
          'd.name',
          'd.image_url',
        ])
        .where('x.collection_id', '=', found.id)
        .orderBy('x.added_at')
        .limit(MAX_COLLECTION_BADGES)
        .execute();
      const now = isoNow(core.clock);
      const shown = rows.filter((row) => badgeStatus(row, now) !== 'revoked');
      return {
        name: found.name,
        earner: partialName(rows.find((row) => row.display_name !== null)?.display_name),
        badges: shown.map((row) => ({
          name: row.name,
          issuerName: row.issuer_name,
          issuedOn: row.issued_on,
          imageUrl: row.image_url,
          verifyUrl: urls.verifyPage(row.slug, row.id),
        })),
      };
    },

    /** Account deletion: every collection of the account goes with it. */
    async deleteAccount(executor: Parameters<typeof withBackpack>[0], accountId: string): Promise<void> {
      const trx = withBackpack(executor);
      await trx
        .deleteFrom('earner_collection_items')
        .where(
          'collection_id',
          'in',
          trx.selectFrom('earner_collections').select('id').where('account_id', '=', accountId),
        )
        .execute();
      await trx.deleteFrom('earner_collections').where('account_id', '=', accountId).execute();
    },
  };
}

export type CollectionService = ReturnType<typeof createCollectionService>;
