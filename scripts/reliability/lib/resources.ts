import type { FastifyInstance } from 'fastify';

/**
 * Real values a request can name, by the collection a path parameter or body field refers to:
 * `credentials`, `definitions`, `pathways`, `webhooks`, `deliveries`, `profiles`, `endorsements`,
 * `received` (endorsements other issuers gave; ids), `clr` (CLR 2.0 credentials; ids),
 * `issuers` and `badges` (issuer and definition slugs), `assertionUrls`, `urls` (receivers).
 */
export type ResourcePool = Map<string, string[]>;

function addToPool(pool: ResourcePool, collection: string, value: unknown): void {
  if (typeof value !== 'string' || value === '') return;
  const list = pool.get(collection) ?? [];
  if (!list.includes(value)) list.push(value);
  pool.set(collection, list);
}

/** Values known without creating anything: fixed vocabularies the design names. */
const VOCABULARIES: Record<string, string[]> = {
  connectors: ['generic', 'moodle', 'canvas'],
  // The wallet actions answer 404 unless a wallet-pass service is configured, which the harness does not do.
  share: ['linkedin', 'share_link'],
  // Status list 0 exists for every issuer; later lists only once positions reach them.
  status: ['0'],
  // A translation is named by its language tag, a word of BCP 47, not something a tenant owns.
  translations: ['fr'],
  // A BadgeClass edition: the seeded translation's language, and the seeded definition's versions
  // (its translation, made after issuance, cut version 2; version 1 has no French edition).
  in: ['fr'],
  versions: ['1', '2'],
};

/** Path segments that name another collection than their own word. */
const SEGMENT_COLLECTIONS: Record<string, string> = {
  assertions: 'credentials',
  verify: 'issuers',
  'verify/*': 'credentials',
};

/**
 * Which collection a path parameter draws from: the literal segment before it ("credentials" for
 * /api/v1/credentials/{id}); after another parameter, that segment plus "/*"
 * (/verify/{slug}/{id}: id is a credential).
 */
export function collectionOf(path: string, param: string): string {
  const segments = path.split('/').filter(Boolean);
  const at = segments.indexOf(`{${param}}`);
  let back = at - 1;
  let hops = 0;
  while (back >= 0 && segments[back]?.startsWith('{')) {
    back--;
    hops++;
  }
  const literal = segments[back] ?? '';
  const word = hops > 0 ? `${literal}/*` : literal;
  return SEGMENT_COLLECTIONS[word] ?? word;
}

/** The collection a body or query field holding an id refers to ("definitionId" -> definitions). */
export function collectionOfField(field: string): string | null {
  if (field === 'definitionRef') return 'badges';
  if (field.endsWith('ImageId')) return 'images';
  const match = /^([a-z]+)Id$/.exec(field);
  return match ? `${match[1]}s` : null;
}

/** Whether a collection is a fixed vocabulary (a provider name, a share action), not something a tenant owns. */
export function isVocabulary(collection: string): boolean {
  return collection in VOCABULARIES;
}

export function poolValues(pool: ResourcePool, collection: string): string[] {
  return pool.get(collection) ?? VOCABULARIES[collection] ?? [];
}

/** Learns the ids a successful answer reveals, so later requests can name them. */
export function learnFromResponse(pool: ResourcePool, method: string, path: string, status: number, body: unknown) {
  if (method !== 'POST' || status >= 300 || body === null || typeof body !== 'object') return;
  const record = body as Record<string, unknown>;
  const last = path.split('/').filter(Boolean).pop() ?? '';
  if (!last.startsWith('{') && typeof record.id === 'string') addToPool(pool, last, record.id);
  if (last === 'definitions') addToPool(pool, 'badges', record.slug);
  addToPool(pool, 'credentials', record.credentialId);
  addToPool(pool, 'assertionUrls', record.assertionUrl);
}

interface Call {
  method: 'GET' | 'POST' | 'PUT';
  url: string;
  payload?: unknown;
  /** Set for a body that is not JSON (an image upload). */
  contentType?: string;
}

/** Sends a setup request and insists it worked: a seed that fails would make every later check vacuous. */
async function setupCall(app: FastifyInstance, key: string, call: Call): Promise<Record<string, unknown>> {
  const res = await app.inject({
    method: call.method,
    url: call.url,
    headers: { authorization: `Bearer ${key}`, ...(call.contentType ? { 'content-type': call.contentType } : {}) },
    ...(call.payload === undefined ? {} : { payload: call.payload as object }),
  });
  if (res.statusCode >= 300)
    throw new Error(`setup ${call.method} ${call.url} answered ${res.statusCode}: ${res.body}`);
  return res.json() as Record<string, unknown>;
}

/** A valid 1×1 PNG. */
const SEED_PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

export interface SeedOptions {
  /** Distinguishes names and keys when several issuers are seeded in one database. */
  label: string;
  /** Recipient emails of the seeded credentials (one credential each). */
  recipients: string[];
  webhookUrl: string;
}

/**
 * One of everything an issuer can own, created through the API as a partner would: definitions,
 * credentials (valid, revoked, reissued), a pathway with a stage, endorsements, an alignment, a
 * webhook subscription and an earner profile.
 */
export async function seedIssuer(
  app: FastifyInstance,
  issuer: { key: string; slug: string },
  options: SeedOptions,
): Promise<ResourcePool> {
  const pool: ResourcePool = new Map();
  addToPool(pool, 'issuers', issuer.slug);
  addToPool(pool, 'urls', options.webhookUrl);
  const call = async (method: Call['method'], url: string, payload?: unknown, contentType?: string) => {
    const body = await setupCall(app, issuer.key, { method, url, payload, ...(contentType ? { contentType } : {}) });
    learnFromResponse(pool, method, url, 201, body);
    return body;
  };
  // A PNG badge image hosted here, so every seeded credential has a baked PNG too.
  const image = await call('POST', '/api/v1/images', Buffer.from(SEED_PNG_BASE64, 'base64'), 'image/png');
  const definition = await call('POST', '/api/v1/definitions', {
    name: `Seed ${options.label} course`,
    description: 'A course completed by seeded recipients.',
    tags: ['seed'],
    imageUrl: image.url,
  });
  const expiring = await call('POST', '/api/v1/definitions', {
    name: `Seed ${options.label} licence`,
    description: 'A licence that expires.',
    expiresAfterDays: 365,
    imageUrl: image.url,
  });
  // Translated before anything is issued, so its version 1 has a French edition too: every badge of
  // the pool names the `in` and `versions` values' editions (the tenant matrix's controls read them).
  await call('PUT', `/api/v1/definitions/${expiring.id}/translations/fr`, {
    name: `Licence ${options.label}`,
    description: 'Une licence qui expire.',
  });
  const credentialIds: string[] = [];
  for (const [i, email] of options.recipients.entries()) {
    const issued = await call('POST', '/api/v1/credentials', {
      definitionId: i % 2 === 0 ? definition.id : expiring.id,
      recipientEmail: email,
      recipientName: 'Seed Recipient',
      completionKey: `seed-${options.label}-${i}`,
    });
    credentialIds.push(String(issued.credentialId));
    // In the credentials' order: a call that must name a credential's own recipient takes it from here.
    addToPool(pool, 'recipients', email);
  }
  const [first, second, third] = credentialIds;
  if (second) await call('POST', `/api/v1/credentials/${second}/revoke`, { reason: 'seeded revocation' });
  if (third) await call('POST', `/api/v1/credentials/${third}/reissue`, {});
  const pathway = await call('POST', '/api/v1/pathways', { name: `Seed ${options.label} path`, description: 'Path' });
  await call('POST', `/api/v1/pathways/${pathway.id}/stages`, { definitionId: definition.id, stepOrder: 1 });
  // The first recipient holds the stage's credential: the pathway's CLR 2.0 (its id joins `clr`).
  if (options.recipients[0]) {
    await call('POST', `/api/v1/pathways/${pathway.id}/clr`, { recipientEmail: options.recipients[0] });
  }
  await call('POST', `/api/v1/definitions/${definition.id}/endorsements`, {
    endorserName: 'Seed Endorser',
    claim: 'Rigorous.',
    endorserUrl: 'https://endorser.example',
  });
  if (first) {
    await call('POST', `/api/v1/credentials/${first}/endorsements`, {
      endorserName: 'Seed Endorser',
      claim: 'Earned.',
    });
  }
  // An endorsement another issuer gives the seeded definition (issue 48 §4), for the endorsed
  // issuer's decisions (accept, reject, remove) to name: only the seeded issuer may decide it.
  const endorser = await app.services.issuers.createIssuer({
    name: `Seed ${options.label} endorser`,
    slug: `${issuer.slug}-endorser`,
    email: `contact@${issuer.slug}-endorser.example`,
    url: `https://${issuer.slug}-endorser.example`,
    plan: 'enterprise',
  });
  const received = await setupCall(app, endorser.key.key, {
    method: 'POST',
    url: '/api/v1/endorsements/given',
    payload: {
      badgeClass: `${app.core.config.publicBaseUrl}/v1/issuers/${issuer.slug}/badges/${definition.slug}`,
      claim: 'Seeded endorsement from another issuer.',
    },
  });
  addToPool(pool, 'received', received.id);
  await setupCall(app, issuer.key, {
    method: 'PUT',
    url: `/api/v1/definitions/${definition.id}/translations/fr`,
    payload: { name: `Cours ${options.label}`, description: 'Un cours suivi par les destinataires.' },
  });
  await call('POST', `/api/v1/definitions/${definition.id}/alignments`, {
    targetName: 'Seed framework item',
    targetUrl: 'https://framework.example/item',
  });
  const webhook = await call('POST', '/api/v1/webhooks', { url: options.webhookUrl, events: ['credential.issued'] });
  // A queued test delivery, for the delivery (resend) operations to name.
  addToPool(pool, 'deliveries', (await call('POST', `/api/v1/webhooks/${webhook.id}/test`)).deliveryId);
  if (options.recipients[0]) await call('POST', '/api/v1/profiles', { recipientEmail: options.recipients[0] });
  return pool;
}
