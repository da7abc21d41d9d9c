import type { Kysely } from 'kysely';

/**
 * Open Badges 3.0 (src/modules/vc):
 * - `signing_keys`: each issuer's Ed25519 keys by version. The public key is published in the
 *   issuer's DID document; the private key is stored sealed (AES-256-GCM under the key-encryption
 *   key, src/modules/vc/kek.ts). Rotation adds a version; none is ever deleted, so every credential
 *   signed earlier still verifies.
 * - `vc_credentials`: a credential's place in its issuer's status list (`status_position`, list =
 *   position / 131072) and, once first fetched, its signed forms, stored so they are signed once.
 * - `vc_status_lists`: the last signed BitstringStatusListCredential per list with the digest of the
 *   revoked positions it encodes, so replicas share a signed list until a bit changes.
 * Keys are created lazily on first need, so issuers that exist before this migration get theirs the
 * first time a credential, list or DID document of theirs is served.
 */
export function signingKeysMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('signing_keys')
        .addColumn('issuer_id', 'text', (c) => c.notNull().references('issuers.id'))
        .addColumn('version', 'integer', (c) => c.notNull())
        .addColumn('public_key_multibase', 'text', (c) => c.notNull())
        .addColumn('private_key_sealed', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('signing_keys_pk', ['issuer_id', 'version'])
        .execute();
      await db.schema
        .createTable('vc_credentials')
        .addColumn('credential_id', 'text', (c) => c.primaryKey().references('credentials.id'))
        .addColumn('issuer_id', 'text', (c) => c.notNull())
        .addColumn('status_position', 'integer', (c) => c.notNull())
        .addColumn('key_version', 'integer')
        .addColumn('data_integrity', 'text')
        .addColumn('jwt', 'text')
        .addColumn('signed_at', 'text')
        .addUniqueConstraint('vc_credentials_position', ['issuer_id', 'status_position'])
        .execute();
      await db.schema
        .createTable('vc_status_lists')
        .addColumn('issuer_id', 'text', (c) => c.notNull())
        .addColumn('list', 'integer', (c) => c.notNull())
        .addColumn('revoked_digest', 'text', (c) => c.notNull())
        .addColumn('credential', 'text', (c) => c.notNull())
        .addColumn('signed_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('vc_status_lists_pk', ['issuer_id', 'list'])
        .execute();
    },
  };
}
