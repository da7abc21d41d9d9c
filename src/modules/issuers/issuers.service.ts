import { isoNow } from '../../core/clock.js';
import { safeHexColor } from '../../core/colors.js';
import type { AuthContext, Core } from '../../core/context.js';
import { AppError, errors } from '../../core/errors.js';
import { sha256Hex } from '../../core/hashing.js';
import { requireLanguage } from '../../core/language.js';
import { NAME_PATTERN, WEB_URL_PATTERN } from '../../core/schemas.js';
import { SLUG_PATTERN } from '../../core/slug.js';
import type { Executor } from '../../db/database.js';
import type { ReadCaches } from '../../db/read-cache.js';
import type { AuditService } from '../audit/audit.service.js';
import { createIssuerRepository, type IssuerRow, type PlanRow } from './issuers.repository.js';

export const API_KEY_PREFIX = 'acc_';
const KEY_BODY_LENGTH = 40;
/** The issuer's website, logo and image: http(s) URLs with a host, without spaces. */
const WEB_URL = new RegExp(`${WEB_URL_PATTERN}[^\\s]*$`);
const NAME = new RegExp(NAME_PATTERN, 'u');

export interface NewIssuer {
  name: string;
  slug: string;
  email: string;
  url: string;
  plan?: string;
  description?: string | null;
  imageUrl?: string | null;
  brandPrimaryColor?: string | null;
  brandLogoUrl?: string | null;
}

export interface CreatedKey {
  id: string;
  key: string;
  prefix: string;
  createdAt: string;
}

/** The issuer's own profile fields (PATCH /api/v1/issuer/me); null clears an optional one. */
export interface ProfileChanges {
  name?: string;
  url?: string;
  email?: string;
  description?: string | null;
  imageUrl?: string | null;
  brandColor?: string | null;
  /** The default language of its definitions and pages (BCP 47; stored canonical). */
  language?: string;
  /** Its LinkedIn organization id (digits), for the add-to-profile link. */
  linkedinOrganizationId?: string | null;
  /** Only while the issuer has no credential: every credential URL and did:web carries it. */
  slug?: string;
}

/** A key that worked until a rotation and when it stops (now, or at the end of its grace period). */
export interface EndingKey {
  id: string;
  prefix: string;
  stopsAt: string;
}

export interface PlanChanges {
  issuanceQuota?: number | null;
  premiumVerification?: boolean;
  requestsPerMinute?: number;
}

/**
 * Who made a change, for its audit record: an API key id, `cli` for the operator console, or
 * `system` for the service itself (the demo issuer at first start, harnesses and tests).
 */
export type Actor = string;
const SYSTEM: Actor = 'system';

/** The parts of an issuer that never change after creation, cached per process. */
export interface IssuerIdentity {
  id: string;
  slug: string;
  salt: string;
}

export function hashApiKey(key: string): string {
  return sha256Hex(key);
}

/** Issuers, their API keys and their plans: the tenancy root. */
export function createIssuerService(
  core: Pick<Core, 'db' | 'clock' | 'ids' | 'config'>,
  deps: { audit: Pick<AuditService, 'append' | 'appendMany'>; readCaches: Pick<ReadCaches, 'keys' | 'localWrite'> },
) {
  const repo = createIssuerRepository(core.db);
  // Every request with a key asks this. Kept exact by the change feed: a key revoked here is refused
  // here at once (keyChange), on other replicas once the database's notification arrives.
  const findKey = deps.readCaches.keys(repo.findByKeyHash);
  const identities = new Map<string, IssuerIdentity>();

  /**
   * A change of keys or plans, in one transaction: from its start until its notification is known
   * heard, this replica's key cache is out of use, so a key revoked here is refused here at once.
   */
  async function keyChange<T>(work: (trx: Executor) => Promise<T>): Promise<T> {
    const end = deps.readCaches.localWrite('keys');
    try {
      return await core.db.transaction().execute(work);
    } finally {
      end();
    }
  }

  function profileUrl(slug: string): string {
    return `${core.config.publicBaseUrl}/v1/issuers/${slug}`;
  }

  /** Inserts a key and its `api_key.created` record inside the caller's transaction. */
  async function newKey(
    trx: Executor,
    issuerId: string,
    label: string | null,
    actor: Actor,
    details: Record<string, unknown> = {},
    rotatedFrom: string | null = null,
  ): Promise<CreatedKey> {
    const key = API_KEY_PREFIX + core.ids.token(KEY_BODY_LENGTH);
    const id = core.ids.uuid();
    const prefix = key.slice(0, 8);
    const createdAt = isoNow(core.clock);
    await createIssuerRepository(trx).insertKey({
      id,
      issuer_id: issuerId,
      key_hash: hashApiKey(key),
      prefix,
      label,
      created_at: createdAt,
      revoked_at: null,
      rotated_from: rotatedFrom,
    });
    await deps.audit.append(trx, {
      issuerId,
      actor,
      action: 'api_key.created',
      targetType: 'api_key',
      targetId: id,
      details: { label, ...details },
    });
    return { id, key, prefix, createdAt };
  }

  function limitsOf(plan: PlanRow) {
    return {
      issuanceQuota: plan.issuance_quota,
      premiumVerification: Boolean(plan.premium_verification),
      requestsPerMinute: plan.requests_per_minute,
    };
  }

  async function requireIssuerBySlug(slug: string): Promise<IssuerRow> {
    const issuer = await repo.getBySlug(slug);
    if (!issuer) throw errors.notFound(`Issuer "${slug}"`);
    return issuer;
  }

  /** The checks every issuer profile field gets, at creation and on change. */
  function checkProfile(input: {
    name?: string;
    url?: string;
    email?: string;
    imageUrl?: string | null;
    brandLogoUrl?: string | null;
    brandPrimaryColor?: string | null;
  }): void {
    if (input.name !== undefined && (!NAME.test(input.name) || input.name.includes('\u0000'))) {
      throw errors.validation('The issuer name may not contain control characters (such as a line break).', [
        { path: '/name', message: 'must not contain control characters', code: 'pattern' },
      ]);
    }
    if (input.url !== undefined && !WEB_URL.test(input.url)) {
      throw errors.validation('The issuer url must be an http(s) URL.');
    }
    if (input.email !== undefined && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(input.email)) {
      throw errors.validation('The issuer email is invalid.');
    }
    for (const [name, value] of [
      ['logo url', input.brandLogoUrl],
      ['image url', input.imageUrl],
    ] as const) {
      if (value != null && !WEB_URL.test(value)) throw errors.validation(`The issuer ${name} must be an http(s) URL.`);
    }
    if (input.brandPrimaryColor != null && !safeHexColor(input.brandPrimaryColor)) {
      throw errors.validation('The issuer brand colour must be a hex colour such as #1f5fbf.');
    }
  }

  /**
   * A slug change (issue 46 §1): allowed while no credential of the issuer exists, since every
   * credential's URL, its signed documents and the issuer's did:web carry the slug and links
   * already shared would break; afterwards 409 slug_locked. The same once the issuer has given an
   * endorsement (review of 2026-12-01): its hosted URL and signature carry the slug too. A taken
   * slug is 409 slug_taken.
   */
  async function changeSlug(txRepo: ReturnType<typeof createIssuerRepository>, issuerId: string, slug: string) {
    const current = await txRepo.getById(issuerId);
    if (!current) throw errors.notFound('Issuer');
    if (current.slug === slug) return;
    const lock = await txRepo.slugLock(issuerId);
    if (lock) throw errors.slugLocked(lock);
    const holder = await txRepo.getBySlug(slug);
    if (holder) throw errors.slugTaken(slug);
    await txRepo.setSlug(issuerId, slug);
    identities.delete(issuerId);
  }

  async function requirePlan(code: string): Promise<PlanRow> {
    const plan = await repo.getPlan(code);
    if (!plan) throw errors.validation(`Unknown plan "${code}".`);
    return plan;
  }

  return {
    profileUrl,

    /** Resolves a presented key to its issuer; revoked, unknown or malformed keys resolve to null. */
    async authenticate(presented: string): Promise<AuthContext | null> {
      if (!presented.startsWith(API_KEY_PREFIX) || presented.length > 200) return null;
      const found = await findKey(hashApiKey(presented));
      if (!found) return null;
      if (found.revokedAt !== null && found.revokedAt <= isoNow(core.clock)) return null;
      return {
        issuerId: found.issuerId,
        issuerSlug: found.issuerSlug,
        apiKeyId: found.keyId,
        session: null,
        planCode: found.planCode,
        requestsPerMinute: found.requestsPerMinute,
      };
    },

    /** Slug and recipient salt: immutable, so cached after the first read. */
    async identity(issuerId: string): Promise<IssuerIdentity> {
      const cached = identities.get(issuerId);
      if (cached) return cached;
      const issuer = await repo.getById(issuerId);
      if (!issuer) throw errors.notFound('Issuer');
      const identity = { id: issuer.id, slug: issuer.slug, salt: issuer.recipient_salt };
      identities.set(issuerId, identity);
      return identity;
    },

    /** The issuer's plan, read fresh (the console can change it at any time). */
    async planOf(issuerId: string): Promise<PlanRow> {
      const plan = await repo.planOfIssuer(issuerId);
      if (!plan) throw errors.notFound('Issuer');
      return plan;
    },

    async getIssuer(issuerId: string): Promise<IssuerRow> {
      const issuer = await repo.getById(issuerId);
      if (!issuer) throw errors.notFound('Issuer');
      return issuer;
    },

    getIssuerBySlug: requireIssuerBySlug,

    async findIssuerBySlug(slug: string): Promise<IssuerRow | undefined> {
      return repo.getBySlug(slug);
    },

    async getPlan(code: string): Promise<PlanRow> {
      return requirePlan(code);
    },

    async listIssuers(): Promise<IssuerRow[]> {
      return repo.list();
    },

    async countIssuers(): Promise<number> {
      return repo.count();
    },

    /** Creates an issuer with a fresh recipient salt and its first API key (shown once). */
    async createIssuer(input: NewIssuer, actor: Actor = SYSTEM): Promise<{ issuer: IssuerRow; key: CreatedKey }> {
      if (!new RegExp(SLUG_PATTERN).test(input.slug) || input.slug.length > 64) {
        throw errors.validation(`Slug "${input.slug}" must be lower-case kebab case (a-z, 0-9, single dashes).`);
      }
      checkProfile(input);
      const plan = await requirePlan(input.plan ?? 'free');
      if (await repo.getBySlug(input.slug)) throw errors.slugTaken(input.slug);
      const now = isoNow(core.clock);
      const issuer: IssuerRow = {
        id: core.ids.uuid(),
        slug: input.slug,
        name: input.name,
        url: input.url,
        email: input.email,
        description: input.description ?? null,
        image_url: input.imageUrl ?? null,
        brand_primary_color: input.brandPrimaryColor ?? null,
        brand_logo_url: input.brandLogoUrl ?? null,
        plan_code: input.plan ?? 'free',
        recipient_salt: core.ids.hex(16),
        created_at: now,
        updated_at: now,
        language: 'en',
        linkedin_organization_id: null,
      };
      const key = await core.db.transaction().execute(async (trx) => {
        await createIssuerRepository(trx).insert(issuer);
        await deps.audit.append(trx, {
          issuerId: issuer.id,
          actor,
          action: 'issuer.created',
          targetType: 'issuer',
          targetId: issuer.id,
          details: { slug: issuer.slug, plan: issuer.plan_code, limits: limitsOf(plan) },
        });
        return newKey(trx, issuer.id, 'initial', actor);
      });
      return { issuer, key };
    },

    /**
     * Changes the issuer's profile (name, url, contact email, description, image, brand colour):
     * the Open Badges issuer documents and the verification page read them from here.
     */
    async updateProfile(issuerId: string, changes: ProfileChanges, actor: Actor = SYSTEM): Promise<IssuerRow> {
      checkProfile({ ...changes, brandPrimaryColor: changes.brandColor });
      const language = changes.language !== undefined ? requireLanguage(changes.language, '/language') : undefined;
      const fields = Object.keys(changes).filter((k) => changes[k as keyof ProfileChanges] !== undefined);
      const now = isoNow(core.clock);
      await core.db.transaction().execute(async (trx) => {
        const txRepo = createIssuerRepository(trx);
        if (changes.slug !== undefined) await changeSlug(txRepo, issuerId, changes.slug);
        const updated = await txRepo.updateProfile(issuerId, {
          ...(changes.name !== undefined ? { name: changes.name } : {}),
          ...(changes.url !== undefined ? { url: changes.url } : {}),
          ...(changes.email !== undefined ? { email: changes.email } : {}),
          ...(changes.description !== undefined ? { description: changes.description } : {}),
          ...(changes.imageUrl !== undefined ? { image_url: changes.imageUrl } : {}),
          ...(changes.brandColor !== undefined ? { brand_primary_color: changes.brandColor } : {}),
          ...(language !== undefined ? { language } : {}),
          ...(changes.linkedinOrganizationId !== undefined
            ? { linkedin_organization_id: changes.linkedinOrganizationId }
            : {}),
          updated_at: now,
        });
        if (updated === 0) throw errors.notFound('Issuer');
        await deps.audit.append(trx, {
          issuerId,
          actor,
          action: 'issuer.updated',
          targetType: 'issuer',
          targetId: issuerId,
          details: { fields },
        });
      });
      const issuer = await repo.getById(issuerId);
      if (!issuer) throw errors.notFound('Issuer');
      return issuer;
    },

    async createKey(slug: string, label: string | null = null, actor: Actor = SYSTEM): Promise<CreatedKey> {
      const issuer = await requireIssuerBySlug(slug);
      return core.db.transaction().execute((trx) => newKey(trx, issuer.id, label, actor));
    },

    /** Every key with its stop time: null while it has none, in the future during a grace period. */
    async listKeys(slug: string) {
      const issuer = await requireIssuerBySlug(slug);
      const now = isoNow(core.clock);
      return (await repo.listKeys(issuer.id)).map((k) => ({
        id: k.id,
        prefix: k.prefix,
        label: k.label,
        createdAt: k.created_at,
        revokedAt: k.revoked_at,
        rotatedFrom: k.rotated_from,
        active: k.revoked_at === null || k.revoked_at > now,
      }));
    },

    async revokeKey(slug: string, keyIdOrPrefix: string, actor: Actor = SYSTEM): Promise<void> {
      const issuer = await requireIssuerBySlug(slug);
      const at = isoNow(core.clock);
      await keyChange(async (trx) => {
        const revoked = await createIssuerRepository(trx).revokeKey(issuer.id, keyIdOrPrefix, at);
        if (revoked.length === 0) throw errors.notFound(`Active key "${keyIdOrPrefix}"`);
        await deps.audit.appendMany(
          trx,
          issuer.id,
          revoked.map((id) => ({
            issuerId: issuer.id,
            actor,
            action: 'api_key.revoked',
            targetType: 'api_key',
            targetId: id,
            details: { revokedAt: at },
          })),
        );
      });
    },

    /**
     * Rotates one key (design.md §4, Added 2026-11-27): a new key now, with the old key's label and
     * marked as its replacement; the old key stops at the end of the grace period (or keeps a sooner
     * stop it already had). No other key changes. 404 when the key is unknown or no longer works.
     */
    async rotateKey(
      slug: string,
      keyIdOrPrefix: string,
      graceSeconds: number,
      actor: Actor = SYSTEM,
    ): Promise<{ key: CreatedKey; label: string | null; previous: EndingKey }> {
      const issuer = await requireIssuerBySlug(slug);
      const now = isoNow(core.clock);
      const until = new Date(core.clock.now().getTime() + graceSeconds * 1000).toISOString();
      return keyChange(async (trx) => {
        const keys = createIssuerRepository(trx);
        const old = (await keys.listKeys(issuer.id)).find(
          (k) =>
            (k.id === keyIdOrPrefix || k.prefix === keyIdOrPrefix) && (k.revoked_at === null || k.revoked_at > now),
        );
        if (!old) throw errors.notFound(`Active key "${keyIdOrPrefix}"`);
        const stopsAt = old.revoked_at !== null && old.revoked_at < until ? old.revoked_at : until;
        if (stopsAt !== old.revoked_at) await keys.endKeyBy(issuer.id, old.id, stopsAt);
        const key = await newKey(trx, issuer.id, old.label, actor, { graceSeconds, rotatedFrom: old.id }, old.id);
        await deps.audit.append(trx, {
          issuerId: issuer.id,
          actor,
          action: 'api_key.rotated',
          targetType: 'api_key',
          targetId: old.id,
          details: { label: old.label, stopsAt, replacedBy: key.id },
        });
        return { key, label: old.label, previous: { id: old.id, prefix: old.prefix, stopsAt } };
      });
    },

    /**
     * Rotates every key at once (the CLI's explicit `--all`): a new key now; every older key stops
     * at the end of the grace period, or sooner when an earlier rotation already set it a sooner
     * stop. Returns the new key and every older key that still worked, with the time it stops.
     */
    async rotateKeys(
      slug: string,
      graceSeconds: number,
      actor: Actor = SYSTEM,
    ): Promise<{ key: CreatedKey; previous: EndingKey[] }> {
      const issuer = await requireIssuerBySlug(slug);
      const now = isoNow(core.clock);
      const until = new Date(core.clock.now().getTime() + graceSeconds * 1000).toISOString();
      return keyChange(async (trx) => {
        const keys = createIssuerRepository(trx);
        const moved = await keys.endKeysBy(issuer.id, until);
        const key = await newKey(trx, issuer.id, 'rotated', actor, { graceSeconds });
        await deps.audit.appendMany(
          trx,
          issuer.id,
          moved.map((k) => ({
            issuerId: issuer.id,
            actor,
            action: 'api_key.rotated',
            targetType: 'api_key',
            targetId: k.id,
            details: { stopsAt: k.revoked_at, replacedBy: key.id },
          })),
        );
        const previous = (await keys.listKeys(issuer.id))
          .filter((k) => k.id !== key.id && k.revoked_at !== null && k.revoked_at >= now)
          .map((k) => ({ id: k.id, prefix: k.prefix, stopsAt: k.revoked_at ?? until }));
        return { key, previous };
      });
    },

    async listPlans(): Promise<PlanRow[]> {
      return repo.listPlans();
    },

    /** Moves an issuer to another plan; the audit record states the limits it now has. */
    async setIssuerPlan(slug: string, planCode: string, actor: Actor = SYSTEM): Promise<void> {
      const issuer = await requireIssuerBySlug(slug);
      const plan = await requirePlan(planCode);
      if (issuer.plan_code === planCode) return;
      await keyChange(async (trx) => {
        await createIssuerRepository(trx).setPlan(issuer.id, planCode, isoNow(core.clock));
        await deps.audit.append(trx, {
          issuerId: issuer.id,
          actor,
          action: 'issuer.plan_changed',
          targetType: 'issuer',
          targetId: issuer.id,
          details: { from: issuer.plan_code, to: planCode, limits: limitsOf(plan) },
        });
      });
    },

    /**
     * Changes a plan's limits. Plans are shared, so the record goes into the log of every issuer on
     * the plan (the change alters its limits), in the same transaction as the change.
     */
    async updatePlan(code: string, changes: PlanChanges, actor: Actor = SYSTEM): Promise<void> {
      const plan = await requirePlan(code);
      if (changes.requestsPerMinute !== undefined && !(changes.requestsPerMinute > 0)) {
        throw new AppError('validation_failed', 'requestsPerMinute must be a positive integer.');
      }
      const before = limitsOf(plan);
      const after = {
        issuanceQuota: changes.issuanceQuota === undefined ? before.issuanceQuota : changes.issuanceQuota,
        premiumVerification: changes.premiumVerification ?? before.premiumVerification,
        requestsPerMinute: changes.requestsPerMinute ?? before.requestsPerMinute,
      };
      await keyChange(async (trx) => {
        const plans = createIssuerRepository(trx);
        await plans.updatePlan(code, {
          ...(changes.issuanceQuota !== undefined ? { issuance_quota: changes.issuanceQuota } : {}),
          ...(changes.premiumVerification !== undefined
            ? { premium_verification: changes.premiumVerification ? 1 : 0 }
            : {}),
          ...(changes.requestsPerMinute !== undefined ? { requests_per_minute: changes.requestsPerMinute } : {}),
        });
        for (const issuerId of await plans.issuerIdsOnPlan(code)) {
          await deps.audit.append(trx, {
            issuerId,
            actor,
            action: 'plan.updated',
            targetType: 'plan',
            targetId: code,
            details: { before, after },
          });
        }
      });
    },
  };
}

export type IssuerService = ReturnType<typeof createIssuerService>;
