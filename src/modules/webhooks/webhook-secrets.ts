import type { Config } from '../../config.js';
import { keyEncryptionKey, open, seal } from '../../core/kek.js';
import type { Executor } from '../../db/database.js';
import { SECRET_PREFIX } from './webhooks.constants.js';

/**
 * Webhook signing secrets at rest (issue 48 §7): sealed with the key-encryption key that seals the
 * issuers' signing keys and the SSO client secrets (AES-256-GCM, src/core/kek.ts), bound to their
 * subscription by the associated data, so a sealed secret copied to another row does not open.
 * A receiver's signatures stay the same: the HMAC key is the secret as it was handed out.
 */
const context = (subscriptionId: string) => `webhook_secret:${subscriptionId}`;

export function createWebhookSecrets(config: Pick<Config, 'database' | 'signingKeySecret'>) {
  let kek: Buffer | undefined;
  const kekOnce = () => {
    kek ??= keyEncryptionKey(config);
    return kek;
  };
  return {
    seal: (subscriptionId: string, secret: string) => seal(kekOnce(), secret, context(subscriptionId)),
    /**
     * The secret to sign with. A stored value still in the clear (`whsec_...`) is one written before
     * sealing existed and not yet sealed at start-up (`sealStoredSecrets`), e.g. by an older replica
     * during a rolling upgrade: it is used as it is.
     */
    open: (subscriptionId: string, stored: string) =>
      stored.startsWith(SECRET_PREFIX) ? stored : open(kekOnce(), stored, context(subscriptionId)),
  };
}

export type WebhookSecrets = ReturnType<typeof createWebhookSecrets>;

/** Seals every stored secret still in the clear; run at start-up after the migrations. How many it sealed. */
export async function sealStoredSecrets(db: Executor, secrets: WebhookSecrets): Promise<number> {
  const clear = await db
    .selectFrom('webhook_subscriptions')
    .select(['id', 'secret'])
    .where('secret', 'like', `${SECRET_PREFIX}%`)
    .execute();
  for (const row of clear) {
    await db
      .updateTable('webhook_subscriptions')
      .set({ secret: secrets.seal(row.id, row.secret) })
      .where('id', '=', row.id)
      .where('secret', '=', row.secret)
      .execute();
  }
  return clear.length;
}
