import type { Core } from '../../core/context.js';
import { AppError, errors } from '../../core/errors.js';
import { canonicalJson, sha256Hex } from '../../core/hashing.js';
import { requireJsonLdBudget } from '../../core/jsonld-budget.js';
import type { AuditService } from '../audit/audit.service.js';
import type { LookupFn } from '../webhooks/ssrf.js';
import { type ImportFetch, ImportFetchError, importFetcher } from './backpack.fetch.js';
import { bakedInPng, bakedInSvg } from './backpack.import.baked.js';
import { checkHostedAssertion, type Ob2Import } from './backpack.import.ob2.js';
import {
  type Checked,
  checkCredential,
  checkJwt,
  credentialExpiry,
  foreignResolver,
  type ImportStatus,
  parseForeignJson,
  Unverifiable,
} from './backpack.import.verify.js';
import { createImportsRepository, type ImportRow } from './backpack.imports.repository.js';

/** Checks (new imports and checks again) one account may make per hour; each may fetch IMPORT_FETCHES_MAX documents. */
export const IMPORTS_PER_HOUR = 20;
const HOUR_MS = 3_600_000;
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const TEXT_CAP = 2000;

/** What the earner gave: pasted text (a URL, a credential's JSON or a compact JWS), or a baked image. */
export type ImportSource = { text: string } | { image: Buffer; mediaType: 'image/png' | 'image/svg+xml' };

/** An imported credential as the backpack shows it. */
export interface ImportedBadge {
  id: string;
  spec: 'ob2' | 'ob3';
  name: string;
  description: string;
  issuerName: string;
  issuerId: string;
  imageUrl: string | null;
  issuedOn: string | null;
  expiresOn: string | null;
  status: ImportStatus;
  reason: string | null;
  checkedAt: string;
  sourceUrl: string | null;
}

type Json = Record<string, unknown>;
type Format = ImportRow['format'];

const asObject = (value: unknown): Json | null =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : null;
const text = (value: unknown, fallback = ''): string =>
  typeof value === 'string' && value.trim() !== '' ? value.slice(0, TEXT_CAP) : fallback;
const typesOf = (document: Json) => (Array.isArray(document.type) ? document.type : [document.type]).map(String);
const isUrl = (value: string) => /^https?:\/\/\S+$/i.test(value) && URL.canParse(value);
const iso = (value: unknown): string | null =>
  typeof value === 'string' && !Number.isNaN(Date.parse(value)) ? new Date(value).toISOString() : null;

const invalid = (message: string) => errors.validation(message, [{ path: '/source', message, code: 'credential' }]);

/** A document an earner gave, parsed and measured against the JSON-LD budget (400 past it) before anything reads it. */
function givenJson(value: string): Json {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw invalid('The text is not JSON, a compact JWS or an http(s) URL.');
  }
  const object = asObject(parsed);
  if (!object) throw invalid('The JSON is not an object.');
  requireJsonLdBudget(object, '/source');
  return object;
}

/** The credential of a VC-JWT: the `vc` claim (VC 1.1 JWT, OB 3.0 §8.2) or the payload itself (VC-JOSE). */
function jwtCredential(jws: string): Json {
  let payload: Json | null;
  try {
    payload = asObject(JSON.parse(Buffer.from(jws.split('.')[1] ?? '', 'base64url').toString('utf8')));
  } catch {
    payload = null;
  }
  if (!payload) throw invalid('The JWS payload is not a JSON credential.');
  const vc = asObject(payload.vc) ?? payload;
  requireJsonLdBudget(vc, '/source');
  return { ...vc, ...(typeof payload.jti === 'string' && vc.id === undefined ? { id: payload.jti } : {}) };
}

function requireBadge(credential: Json): void {
  const types = typesOf(credential);
  if (
    !types.includes('VerifiableCredential') ||
    !types.some((t) => t === 'AchievementCredential' || t === 'OpenBadgeCredential')
  ) {
    throw invalid('The credential is not an Open Badges 3.0 AchievementCredential (OpenBadgeCredential).');
  }
}

/** What the backpack shows of an OB 3.0 credential: its achievement and issuer. */
export function ob3View(credential: Json) {
  const subject = asObject(credential.credentialSubject);
  const achievement = asObject(subject?.achievement);
  const issuer = asObject(credential.issuer);
  const image = achievement?.image;
  const imageUrl = typeof image === 'string' ? image : text(asObject(image)?.id) || null;
  const issuerId = typeof credential.issuer === 'string' ? credential.issuer : text(issuer?.id);
  return {
    name: text(achievement?.name, text(credential.name, 'Open Badges 3.0 badge')),
    description: text(achievement?.description, text(credential.description)),
    issuerName: text(issuer?.name, issuerId.slice(0, 200) || 'Unknown issuer'),
    issuerId: issuerId.slice(0, TEXT_CAP),
    imageUrl: imageUrl && imageUrl.length <= TEXT_CAP ? imageUrl : null,
    issuedOn: iso(credential.validFrom) ?? iso(credential.issuanceDate),
    expiresOn: credentialExpiry(credential),
  };
}

const keyOf = (credential: Json, fallback: string) =>
  typeof credential.id === 'string' && credential.id.length <= TEXT_CAP
    ? credential.id
    : `sha256:${sha256Hex(fallback)}`;

/**
 * Import into the backpack (issue 47 §1): an Open Badges 2.0 assertion (its URL, or an image baked
 * with it) or an Open Badges 3.0 credential (JSON or compact JWS, pasted, at a URL, or baked into a
 * PNG or SVG) from another host, checked before it is shown: OB 2.0 by hosted verification, OB 3.0
 * by its proof (Data Integrity eddsa-rdfc-2022 or Ed25519Signature2020; a VC-JWT by the issuer's
 * key), the DID resolved and every document fetched through the SSRF guard with a timeout and a
 * size cap, the recipient matched to the signed-in address, and its status list read. What cannot
 * be checked is kept marked unverified with the reason, never shown as valid. Priced: at most
 * IMPORTS_PER_HOUR checks per account per hour, each fetching at most IMPORT_FETCHES_MAX documents.
 */
export function createImportService(
  core: Pick<Core, 'db' | 'clock' | 'ids' | 'config'>,
  deps: { audit: Pick<AuditService, 'append'>; lookup: LookupFn; auditChain: string },
) {
  const repo = createImportsRepository(core.db);
  const fetcher = importFetcher({ allowPrivate: core.config.webhookAllowPrivate, lookup: deps.lookup });
  const allowPrivate = core.config.webhookAllowPrivate;

  interface Outcome {
    spec: 'ob2' | 'ob3';
    format: Format;
    key: string;
    document: string;
    sourceUrl: string | null;
    view: ReturnType<typeof ob3View>;
    checked: Checked;
  }

  /** An assertion whose hosted copy cannot even be read is refused (400): there is nothing to keep. */
  async function hosted(fetch: ImportFetch, url: string, address: string | null, now: Date): Promise<Ob2Import> {
    try {
      return await checkHostedAssertion(fetch, url, address, now);
    } catch (error) {
      if (error instanceof Unverifiable || error instanceof ImportFetchError) throw invalid(error.message);
      throw error;
    }
  }

  const fromOb2 = (found: Ob2Import, format: Format): Outcome => ({
    spec: 'ob2',
    format,
    key: found.key,
    document: JSON.stringify(found.document),
    sourceUrl: found.key,
    view: found,
    checked: found.checked,
  });

  async function ob3Json(credential: Json, format: Format, fetch: ImportFetch, address: string | null, now: Date) {
    requireBadge(credential);
    const document = JSON.stringify(credential);
    const checked = await checkCredential(credential, foreignResolver(fetch, allowPrivate), address, now);
    return {
      spec: 'ob3' as const,
      format,
      key: keyOf(credential, canonicalJson(credential)),
      document,
      view: ob3View(credential),
      checked,
    };
  }

  async function ob3Jws(jws: string, format: Format, fetch: ImportFetch, address: string | null, now: Date) {
    const credential = jwtCredential(jws);
    requireBadge(credential);
    const checked = await checkJwt(jws, credential, foreignResolver(fetch, allowPrivate), address, now);
    return {
      spec: 'ob3' as const,
      format,
      key: keyOf(credential, jws),
      document: jws,
      view: ob3View(credential),
      checked,
    };
  }

  /** A URL: an OB 2.0 hosted assertion, or an OB 3.0 credential published at it. */
  async function fromUrl(
    url: string,
    format: Format,
    fetch: ImportFetch,
    address: string | null,
    now: Date,
  ): Promise<Outcome> {
    const answer = await fetch(url).catch((error: unknown) => {
      if (error instanceof ImportFetchError) throw invalid(error.message);
      throw error;
    });
    if (answer.status !== 200 && answer.status !== 410)
      throw invalid(`${url.slice(0, 200)} answered HTTP ${answer.status}.`);
    let document: Json;
    try {
      document = parseForeignJson(answer.body, 'The document');
    } catch (error) {
      if (error instanceof Unverifiable) throw invalid(`${url.slice(0, 200)}: ${error.message}`);
      throw error;
    }
    if (typesOf(document).includes('Assertion')) {
      const replay: ImportFetch = async (next) => (next === url ? answer : fetch(next));
      return fromOb2(await hosted(replay, url, address, now), format);
    }
    return { ...(await ob3Json(document, format, fetch, address, now)), sourceUrl: url };
  }

  /** Reads what the earner gave and checks it, within one import's share of fetches. */
  async function check(source: ImportSource, address: string | null, now: Date): Promise<Outcome> {
    const fetch = fetcher.budget();
    let value: string;
    let format: Format;
    let spec: 'ob2' | 'ob3' | null = null;
    if ('text' in source) {
      value = source.text.trim();
      format = isUrl(value) ? 'url' : COMPACT_JWS.test(value) ? 'jws' : 'json';
    } else {
      const baked =
        source.mediaType === 'image/png' ? bakedInPng(source.image) : bakedInSvg(source.image.toString('utf8'));
      value = baked.text;
      spec = baked.spec;
      format = source.mediaType === 'image/png' ? 'png' : 'svg';
    }
    if (value === '') throw invalid('Paste a badge’s URL, its JSON or its compact JWS, or choose a baked image.');
    if (isUrl(value)) return fromUrl(value, format, fetch, address, now);
    if (COMPACT_JWS.test(value)) {
      if (spec === 'ob2') throw invalid('Signed Open Badges 2.0 assertions are not imported; import its hosted URL.');
      return { ...(await ob3Jws(value, format, fetch, address, now)), sourceUrl: null };
    }
    const document = givenJson(value);
    if (typesOf(document).includes('Assertion')) {
      // A baked or pasted OB 2.0 assertion is only as good as its hosted copy: that is what is checked.
      if (typeof document.id !== 'string' || !isUrl(document.id))
        throw invalid('The assertion has no hosted URL (id).');
      return fromOb2(await hosted(fetch, document.id, address, now), format);
    }
    return { ...(await ob3Json(document, format, fetch, address, now)), sourceUrl: null };
  }

  function view(row: ImportRow): ImportedBadge {
    return {
      id: row.id,
      spec: row.spec,
      name: row.name,
      description: row.description,
      issuerName: row.issuer_name,
      issuerId: row.issuer_id,
      imageUrl: row.image_url,
      issuedOn: row.issued_on,
      expiresOn: row.expires_on,
      status: row.status,
      reason: row.reason,
      checkedAt: row.checked_at,
      sourceUrl: row.source_url,
    };
  }

  /** One check of the account's hourly share (IMPORTS_PER_HOUR), counted in the database; 429 past it. */
  async function spend(accountId: string, now: Date): Promise<void> {
    if ((await repo.attemptsSince(accountId, new Date(now.getTime() - HOUR_MS).toISOString())) >= IMPORTS_PER_HOUR) {
      throw new AppError(
        'rate_limited',
        `A backpack checks at most ${IMPORTS_PER_HOUR} imports an hour; try again later.`,
      );
    }
    await repo.addAttempt(accountId, now.toISOString());
  }

  /** Checks and keeps `source` for the account; the outcome is recorded in the earners' audit chain. */
  async function run(accountId: string, address: string | null, source: ImportSource): Promise<ImportedBadge> {
    const now = core.clock.now();
    const at = now.toISOString();
    await spend(accountId, now);
    const outcome = await check(source, address, now);
    const existing = await repo.findByKey(accountId, outcome.key);
    const row: ImportRow = {
      id: existing?.id ?? core.ids.uuid(),
      account_id: accountId,
      credential_key: outcome.key,
      spec: outcome.spec,
      format: outcome.format,
      document: outcome.document,
      source_url: outcome.sourceUrl,
      name: outcome.view.name,
      description: outcome.view.description,
      issuer_name: outcome.view.issuerName,
      issuer_id: outcome.view.issuerId,
      image_url: outcome.view.imageUrl,
      issued_on: outcome.view.issuedOn,
      expires_on: outcome.view.expiresOn,
      status: outcome.checked.status,
      reason: outcome.checked.reason?.slice(0, 500) ?? null,
      checked_at: at,
      created_at: existing?.created_at ?? at,
    };
    await core.db.transaction().execute(async (trx) => {
      await createImportsRepository(trx).save(row);
      await deps.audit.append(trx, {
        issuerId: deps.auditChain,
        actor: `earner:${accountId}`,
        action: existing ? 'earner.import_checked' : 'earner.credential_imported',
        targetType: 'earner_account',
        targetId: accountId,
        details: { importId: row.id, spec: row.spec, format: row.format, status: row.status },
      });
    });
    return view(row);
  }

  return {
    importCredential: run,

    /**
     * Checks a credential the backpack holds but did not import (one an app upserted through the
     * Open Badges API), exactly as an import is checked and from the same hourly share; nothing is
     * kept here, the caller keeps the outcome. A credential that cannot even be read is unverified
     * with the reason, never refused: it is already in the backpack.
     */
    async checkHeld(
      accountId: string,
      address: string | null,
      text: string,
    ): Promise<{ status: ImportStatus; reason: string | null }> {
      const now = core.clock.now();
      await spend(accountId, now);
      try {
        const { checked } = await check({ text }, address, now);
        return { status: checked.status, reason: checked.reason?.slice(0, 500) ?? null };
      } catch (error) {
        if (error instanceof AppError && error.code === 'validation_failed') {
          return { status: 'unverified', reason: error.message.slice(0, 500) };
        }
        throw error;
      }
    },

    /** Checks an import again (its URL fetched anew, or its document as kept): its status may have changed. */
    async recheck(accountId: string, address: string | null, id: string): Promise<ImportedBadge> {
      const row = await repo.find(accountId, id);
      if (!row) throw errors.notFound('Imported credential');
      return run(accountId, address, { text: row.source_url ?? row.document });
    },

    async list(accountId: string): Promise<ImportedBadge[]> {
      return (await repo.list(accountId)).map(view);
    },

    async remove(accountId: string, id: string): Promise<void> {
      await core.db.transaction().execute(async (trx) => {
        if (!(await createImportsRepository(trx).delete(accountId, id))) throw errors.notFound('Imported credential');
        await deps.audit.append(trx, {
          issuerId: deps.auditChain,
          actor: `earner:${accountId}`,
          action: 'earner.import_deleted',
          targetType: 'earner_account',
          targetId: accountId,
          details: { importId: id },
        });
      });
    },
  };
}

export type ImportService = ReturnType<typeof createImportService>;
