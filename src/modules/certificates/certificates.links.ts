import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { Config } from '../../config.js';
import { keyEncryptionKey } from '../../core/kek.js';
import type { Executor } from '../../db/types.js';

/**
 * The earner's capability link to their own certificate (issue 44, "Get it"): the certificate shows
 * the full stored name, so it is reached only through an unguessable link handed to the earner (the
 * award email, the wallet offer page), never through any public URL a verifier can find.
 *
 * The token is `issuer id ‖ credential id ‖ generation ‖ HMAC-SHA-256 of the three (first 24 bytes)`,
 * base64url: 60 bytes, 80 characters, 192 bits of MAC. It is derived, not stored, so the same link
 * can be given in the email today and on the wallet page next month, and a guessed or altered token
 * is refused by the MAC before the database is asked anything. Revoking a link raises the
 * credential's generation (a row of `certificate_links`, migration 0120); links of a lower generation
 * answer 410. The key is derived with HKDF from the service's SIGNING_KEY_SECRET (or the secret file
 * of an embedded database), under its own label, so replacing that secret replaces every link.
 */
const UUID_BYTES = 16;
const GENERATION_BYTES = 4;
const MAC_BYTES = 24;
const TOKEN_BYTES = 2 * UUID_BYTES + GENERATION_BYTES + MAC_BYTES;
/** The length of a token in base64url (no padding: 60 bytes is a multiple of three). */
export const TOKEN_LENGTH = (TOKEN_BYTES / 3) * 4;
export const TOKEN_PATTERN = `^[A-Za-z0-9_-]{${TOKEN_LENGTH}}$`;
const HKDF_INFO = 'accolade/certificate-earner-link/v1';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** The path of the public route; its next segment is redacted from the logs (src/core/log-redaction.ts). */
export const EARNER_LINK_PATH = '/certificate';

export interface LinkTarget {
  issuerId: string;
  credentialId: string;
  generation: number;
}

const uuidBytes = (id: string) => Buffer.from(id.replace(/-/g, ''), 'hex');
const uuidOf = (bytes: Buffer) => {
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
};

export function createLinkTokens(config: Pick<Config, 'database' | 'signingKeySecret' | 'publicBaseUrl'>) {
  let key: Buffer | undefined;
  const macKey = () => {
    key ??= Buffer.from(hkdfSync('sha256', keyEncryptionKey(config), Buffer.alloc(0), HKDF_INFO, 32));
    return key;
  };
  const mac = (body: Buffer) => createHmac('sha256', macKey()).update(body).digest().subarray(0, MAC_BYTES);

  return {
    /** The link of a credential's certificate at `generation`; null for ids that are not UUIDs. */
    url(target: LinkTarget): string | null {
      if (!UUID.test(target.issuerId) || !UUID.test(target.credentialId)) return null;
      const generation = Buffer.alloc(GENERATION_BYTES);
      generation.writeUInt32BE(target.generation);
      const body = Buffer.concat([uuidBytes(target.issuerId), uuidBytes(target.credentialId), generation]);
      const token = Buffer.concat([body, mac(body)]).toString('base64url');
      return `${config.publicBaseUrl}${EARNER_LINK_PATH}/${token}`;
    },

    /** What a token names, or null when it is malformed or its MAC is not ours (compared in constant time). */
    read(token: string): LinkTarget | null {
      if (token.length !== TOKEN_LENGTH) return null;
      const bytes = Buffer.from(token, 'base64url');
      if (bytes.length !== TOKEN_BYTES || bytes.toString('base64url') !== token) return null;
      const body = bytes.subarray(0, TOKEN_BYTES - MAC_BYTES);
      if (!timingSafeEqual(mac(body), bytes.subarray(TOKEN_BYTES - MAC_BYTES))) return null;
      return {
        issuerId: uuidOf(body.subarray(0, UUID_BYTES)),
        credentialId: uuidOf(body.subarray(UUID_BYTES, 2 * UUID_BYTES)),
        generation: body.readUInt32BE(2 * UUID_BYTES),
      };
    },
  };
}

export interface CertificateLinksTable {
  issuer_id: string;
  credential_id: string;
  /** The live generation: links of a lower one were revoked. */
  generation: number;
  revoked_at: string;
  revoked_by: string;
}

type LinksDb = Kysely<{ certificate_links: CertificateLinksTable }>;
const links = (db: Executor): LinksDb =>
  db.withTables<{ certificate_links: CertificateLinksTable }>() as unknown as LinksDb;

export function createLinkRepository(db: Executor) {
  return {
    /** The live generation of a credential's link (0 until one is revoked). */
    async generation(issuerId: string, credentialId: string): Promise<number> {
      const row = await links(db)
        .selectFrom('certificate_links')
        .select('generation')
        .where('issuer_id', '=', issuerId)
        .where('credential_id', '=', credentialId)
        .executeTakeFirst();
      return row?.generation ?? 0;
    },
    /** Revokes the live link in one statement: the next generation becomes the live one, and is returned. */
    async advance(issuerId: string, credentialId: string, at: string, by: string): Promise<number> {
      const row = await links(db)
        .insertInto('certificate_links')
        .values({ issuer_id: issuerId, credential_id: credentialId, generation: 1, revoked_at: at, revoked_by: by })
        .onConflict((oc) =>
          oc.columns(['issuer_id', 'credential_id']).doUpdateSet({
            generation: sql<number>`certificate_links.generation + 1`,
            revoked_at: at,
            revoked_by: by,
          }),
        )
        .returning('generation')
        .executeTakeFirstOrThrow();
      return Number(row.generation);
    },
  };
}
