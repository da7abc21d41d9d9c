import { SignJWT } from 'jose';
import { isoNow } from '../../core/clock.js';
import type { Core } from '../../core/context.js';
import { AppError, errors } from '../../core/errors.js';
import { sha256Hex } from '../../core/hashing.js';
import { publicUrls } from '../../core/urls.js';
import { coalescedReads } from '../../db/coalesced-reads.js';
import { CONCURRENT_READS } from '../../db/credential-reads.js';
import type { ReadCaches } from '../../db/read-cache.js';
import type { AlignmentService } from '../alignments/alignments.service.js';
import type { AuditService } from '../audit/audit.service.js';
import type { CredentialWithSlugs } from '../credentials/credentials.repository.js';
import type { CredentialService } from '../credentials/credentials.service.js';
import { chooseText } from '../definitions/definition-translations.js';
import { definitionAsOf } from '../definitions/definition-versions.js';
import type { DefinitionRow } from '../definitions/definitions.repository.js';
import type { DefinitionService } from '../definitions/definitions.service.js';
import { renderCredentialBadgeSvg } from '../documents/badge-image.js';
import { badgeClassUrlOf, editionLanguage } from '../documents/documents.builders.js';
import type { ImageService } from '../images/images.service.js';
import type { IssuerRow } from '../issuers/issuers.repository.js';
import type { IssuerService } from '../issuers/issuers.service.js';
import { documentLoader } from './contexts.js';
import {
  type AchievementEdition,
  endorsementCredential,
  type JwtSource,
  jwtClaims,
  type OpenBadgeCredential,
  openBadgeCredential,
  STATUS_LIST_LENGTH,
  vcUrls,
} from './credential.builder.js';
import { didDocument, issuerDid, jwkMethodId, verificationMethodId } from './did.js';
import { vcLibraries } from './libraries.js';
import { bakePng } from './png-baking.js';
import { checkNewEndorsement, lockDefinition } from './received-endorsements.service.js';
import { createSigningKeyRepository } from './signing-keys.repository.js';
import type { SigningKey, SigningKeyService } from './signing-keys.service.js';
import { createVcRepository, type EndorsementCredentialRow, signedByIds } from './vc.repository.js';

/**
 * The hosted credential as stored: the Data Integrity JSON text. It has no VC-JWT: OB 3.0 §8.2
 * requires `sub` (`credentialSubject.id`), and the hosted credential's subject is a salted email
 * hash without an id; a holder-bound copy (`signGiven`) has both forms.
 */
export interface SignedCredential {
  dataIntegrity: string;
}

/** A credential given by the caller, signed in both forms: Data Integrity (proof as an array) and VC-JWT. */
export interface SignedGiven {
  dataIntegrity: Record<string, unknown>;
  jwt: string;
}

/** What `signGiven` needs of a credential: what OB 3.0 §8.2 reads, with the issuer as a Profile object. */
export type GivenCredential = JwtSource & { issuer: { id: string } };

/** The highest list number a URL may name: far beyond any issuer's volume, and it keeps the number an integer. */
export const MAX_STATUS_LIST = 100_000;

/**
 * Open Badges 3.0: each credential as a signed OpenBadgeCredential, the issuers' did:web documents
 * and their revocation status lists.
 * - A credential is signed on its first fetch (Data Integrity eddsa-rdfc-2022 and VC-JWT at once)
 *   and stored, so issuance and imports never sign and later fetches never re-sign.
 * - A status list is computed from the database on every read (which positions are revoked) and
 *   re-signed only when that set changed; the signed list is stored, so replicas share it.
 */
export function createVcService(
  core: Pick<Core, 'config' | 'db' | 'dialect' | 'clock' | 'ids'>,
  deps: {
    issuers: Pick<IssuerService, 'findIssuerBySlug' | 'getIssuer'>;
    definitions: Pick<DefinitionService, 'findRow'>;
    credentials: Pick<CredentialService, 'findRow'>;
    alignments: Pick<AlignmentService, 'listRows'>;
    audit: Pick<AuditService, 'append'>;
    signingKeys: SigningKeyService;
    images: Pick<ImageService, 'hostedPng'>;
    readCaches: ReadCaches;
  },
) {
  const urls = publicUrls(core.config.publicBaseUrl);
  const vc = vcUrls(urls);
  const loader = documentLoader();
  const listCache = new Map<string, { digest: string; credential: Record<string, unknown> }>();

  async function requireIssuer(slug: string, what: string): Promise<IssuerRow> {
    const issuer = await deps.issuers.findIssuerBySlug(slug);
    if (!issuer) throw errors.notFound(what);
    return issuer;
  }

  function currentKey(issuer: IssuerRow): Promise<SigningKey> {
    const did = issuerDid(core.config.publicBaseUrl, issuer.slug);
    return deps.signingKeys.current(issuer.id, (version) => verificationMethodId(did, version), did);
  }

  async function signDataIntegrity(document: object, key: SigningKey): Promise<Record<string, unknown>> {
    const { DataIntegrityProof, cryptosuite, issue } = await vcLibraries();
    const suite = new DataIntegrityProof({ signer: key.multikey.signer(), cryptosuite, date: core.clock.now() });
    return issue({ credential: structuredClone(document), suite, documentLoader: loader, now: core.clock.now() });
  }

  /**
   * `credential` signed with `issuer`'s current key in both forms: the Data Integrity proof
   * (eddsa-rdfc-2022, `proof` as the array the 1EdTech schema takes) and the OB 3.0 §8.2 VC-JWT,
   * whose `kid` is the key's JsonWebKey verification method. The credential's issuer must be this
   * issuer's DID: nothing is signed in another party's name.
   */
  async function signBoth(issuer: IssuerRow, credential: GivenCredential): Promise<SignedGiven> {
    const did = issuerDid(core.config.publicBaseUrl, issuer.slug);
    if (credential.issuer.id !== did) throw new Error(`credential issuer ${credential.issuer.id} is not ${did}`);
    const claims = jwtClaims(credential);
    const key = await currentKey(issuer);
    const signed = await signDataIntegrity(credential, key);
    // No `typ`: OB 3.0 §8.2 allows `JWT`, VC-JOSE-COSE §3.1.1 says it SHOULD be `vc+jwt`, and
    // holders built on either refuse the other's (Credo refuses `JWT`); both allow it absent.
    const jwt = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'EdDSA', kid: jwkMethodId(did, key.version) })
      .sign(key.keyObject);
    return { dataIntegrity: { ...signed, proof: [signed.proof] }, jwt };
  }

  /** The credential's status position, allocated on first need; one issuer's allocations take turns. */
  async function statusPosition(issuerId: string, credentialId: string): Promise<number> {
    const existing = await createVcRepository(core.db).find(issuerId, credentialId);
    if (existing) return existing.status_position;
    await deps.signingKeys.publicKeys(issuerId);
    return core.db.transaction().execute(async (trx) => {
      await createSigningKeyRepository(trx, core.dialect).lockFirst(issuerId);
      const repo = createVcRepository(trx);
      const position = await repo.nextPosition(issuerId);
      await repo.insertPosition(issuerId, credentialId, position);
      const row = await repo.find(issuerId, credentialId);
      if (!row) throw new Error('status position missing after allocation');
      return row.status_position;
    });
  }

  /**
   * The definition a BadgeClass URL of this service names (its issuer, slug and name), or a 4xx:
   * only a definition here can be endorsed with a key here.
   */
  async function badgeClassTarget(badgeClass: string) {
    const prefix = `${urls.issuerProfile('')}`;
    const [slug, badges, definitionSlug, ...rest] = badgeClass.startsWith(prefix)
      ? badgeClass.slice(prefix.length).split('/')
      : [];
    if (!slug || badges !== 'badges' || !definitionSlug || rest.length > 0) {
      throw errors.validation('badgeClass must be the BadgeClass URL of a definition on this service.', [
        { path: '/badgeClass', message: 'not a BadgeClass URL of this service', code: 'badgeClass' },
      ]);
    }
    const issuer = await deps.issuers.findIssuerBySlug(decodeURIComponent(slug));
    const definition = issuer
      ? await createVcRepository(core.db).definitionBySlug(issuer.id, decodeURIComponent(definitionSlug))
      : undefined;
    if (!issuer || !definition) throw errors.notFound('Definition');
    return { issuer, definition, badgeClassUrl: urls.badgeClass(issuer.slug, definition.slug) };
  }

  /**
   * What the Achievement of `credential` shows: the definition as the version it was issued under
   * showed it (definition-versions.ts), in the edition of its language (the same one its OB 2.0
   * assertion names, documents.builders.ts `editionLanguage`), so a credential first signed after
   * a later edit still carries what was awarded.
   */
  async function achievementEdition(definition: DefinitionRow, credential: CredentialWithSlugs) {
    const asOf = await definitionAsOf(core.db, definition, credential.created_at);
    const languages = asOf.translations.map((t) => t.lang);
    const language = editionLanguage(asOf.definition.language, languages, credential.language);
    const text = chooseText(asOf.definition, language === null ? [] : asOf.translations, language);
    const at = (lang: string | null) =>
      badgeClassUrlOf(urls, credential.issuer_slug, definition.slug, {
        version: asOf.definition.version_number,
        language: lang,
      });
    const editions = [
      { id: at(null), language: asOf.definition.language },
      ...languages.map((lang) => ({ id: at(lang), language: lang })),
    ];
    const shown: DefinitionRow = {
      ...asOf.definition,
      name: text.name,
      description: text.description,
      criteria_narrative: text.criteriaNarrative,
    };
    const edition: AchievementEdition = {
      id: at(language),
      language: text.language,
      others: editions.filter((e) => e.id !== at(language)),
    };
    return { shown, edition };
  }

  /** The unsigned OpenBadgeCredential of a stored credential, with its status position, and the key to sign it. */
  async function buildCredential(issuer: IssuerRow, credentialId: string) {
    const credential = await deps.credentials.findRow(issuer.id, credentialId);
    if (!credential) throw errors.notFound('Credential');
    const definition = await deps.definitions.findRow(issuer.id, credential.definition_id);
    if (!definition) throw errors.notFound('Credential');
    const [alignments, position, key] = await Promise.all([
      deps.alignments.listRows(issuer.id, definition.id),
      statusPosition(issuer.id, credential.id),
      currentKey(issuer),
    ]);
    const did = issuerDid(core.config.publicBaseUrl, issuer.slug);
    const { shown, edition } = await achievementEdition(definition, credential);
    const unsigned = openBadgeCredential({
      urls,
      did,
      issuer,
      credential,
      definition: shown,
      edition,
      alignments,
      endorsements: (await createVcRepository(core.db).activeEndorsementsOf(definition.id)).map(
        (json) => JSON.parse(json) as Record<string, unknown>,
      ),
      statusPosition: position,
    });
    return { unsigned, key, credentialId: credential.id };
  }

  async function signCredential(issuer: IssuerRow, credentialId: string): Promise<void> {
    const { unsigned, key, credentialId: id } = await buildCredential(issuer, credentialId);
    // The 1EdTech JSON Schema takes `proof` as an array only; the proof itself signs the document without it.
    const signed = await signDataIntegrity(unsigned, key);
    const dataIntegrity = { ...signed, proof: [signed.proof] };
    await createVcRepository(core.db).storeSigned(issuer.id, id, {
      keyVersion: key.version,
      dataIntegrity: JSON.stringify(dataIntegrity),
      signedAt: isoNow(core.clock),
    });
  }

  /**
   * A credential's stored signed forms by id, with its issuer's slug, in one statement that
   * concurrent fetches share; on PostgreSQL from the replica's read cache while its change feed is
   * live (src/db/read-cache.ts; migration 0054 notifies changes of stored signatures, 0053 those of
   * credentials and issuers). A row not yet signed is answered by the signing path below.
   */
  const findSigned = deps.readCaches.cached(
    'ob3',
    coalescedReads(signedByIds(core.db, core.dialect), CONCURRENT_READS),
    (row) => ({
      issuerId: row.issuer_id,
      definitionId: row.definition_id,
    }),
  );

  async function signedCredential(issuer: IssuerRow, credentialId: string): Promise<SignedCredential> {
    const repo = createVcRepository(core.db);
    let row = await repo.find(issuer.id, credentialId);
    if (!row?.data_integrity) {
      await signCredential(issuer, credentialId);
      row = await repo.find(issuer.id, credentialId);
    }
    if (!row?.data_integrity) throw new Error('signed credential missing after signing');
    return { dataIntegrity: row.data_integrity };
  }

  return {
    /** The issuer's did:web DID document: every signing key it has had. */
    async didDocument(slug: string) {
      const issuer = await requireIssuer(slug, 'Issuer');
      const did = issuerDid(core.config.publicBaseUrl, issuer.slug);
      return didDocument(did, await deps.signingKeys.publicKeys(issuer.id), urls.issuerProfile(issuer.slug));
    },

    /** The signed OpenBadgeCredential, signed and stored on the first fetch. */
    async credential(slug: string, credentialId: string): Promise<SignedCredential> {
      const stored = await findSigned(credentialId);
      if (stored?.issuer_slug === slug && stored.data_integrity) {
        return { dataIntegrity: stored.data_integrity };
      }
      return signedCredential(await requireIssuer(slug, 'Credential'), credentialId);
    },

    /**
     * The endorser (an issuer of this service) endorses another issuer's definition, named by its
     * BadgeClass URL: an EndorsementCredential issued by the endorser's Profile and signed with the
     * endorser's current key, with an entry in the endorser's status list. It is pending until the
     * endorsed issuer accepts it (received-endorsements.service.ts); once accepted, it is listed in
     * the Achievement of the definition's credentials signed from then on, until revoked. One per
     * endorser and definition, a bounded number pending per definition. Audited.
     */
    async giveEndorsement(
      endorserIssuerId: string,
      actor: string,
      input: { badgeClass: string; claim: string },
    ): Promise<EndorsementCredentialRow> {
      const target = await badgeClassTarget(input.badgeClass);
      if (target.issuer.id === endorserIssuerId) {
        throw errors.validation('An issuer cannot endorse its own definition.', [
          { path: '/badgeClass', message: 'a definition of the endorsing issuer', code: 'selfEndorsement' },
        ]);
      }
      const endorser = await deps.issuers.getIssuer(endorserIssuerId);
      const endorserDid = issuerDid(core.config.publicBaseUrl, endorser.slug);
      const key = await currentKey(endorser);
      return core.db.transaction().execute(async (trx) => {
        await createSigningKeyRepository(trx, core.dialect).lockFirst(endorser.id);
        await lockDefinition(trx, core.dialect, target.definition.id);
        await checkNewEndorsement(trx, endorser.id, target.definition.id);
        const repo = createVcRepository(trx);
        const id = core.ids.uuid();
        const createdAt = isoNow(core.clock);
        const statusPosition = await repo.nextPosition(endorser.id);
        const unsigned = endorsementCredential({
          urls,
          endorserDid,
          endorser,
          badgeClassUrl: target.badgeClassUrl,
          endorsedName: `${target.definition.name} (${target.issuer.name})`,
          id,
          claim: input.claim,
          createdAt,
          statusPosition,
        });
        const signed = await signDataIntegrity(unsigned, key);
        const row: EndorsementCredentialRow = {
          id,
          endorser_issuer_id: endorser.id,
          endorsed_issuer_id: target.issuer.id,
          definition_id: target.definition.id,
          claim: input.claim,
          status_position: statusPosition,
          key_version: key.version,
          credential: JSON.stringify({ ...signed, proof: [signed.proof] }),
          created_at: createdAt,
          revoked_at: null,
          status: 'pending',
          decided_at: null,
        };
        await repo.insertEndorsementCredential(row);
        await deps.audit.append(trx, {
          issuerId: endorser.id,
          actor,
          action: 'endorsement.given',
          targetType: 'endorsement',
          targetId: id,
          details: { endorsedIssuerId: target.issuer.id, definitionId: target.definition.id },
        });
        return row;
      });
    },

    /** The endorsements the issuer signed for other issuers' definitions, oldest first. */
    async givenEndorsements(endorserIssuerId: string): Promise<EndorsementCredentialRow[]> {
      return createVcRepository(core.db).endorsementsBy(endorserIssuerId);
    },

    /**
     * Revokes an endorsement the issuer signed: its status bit flips in the endorser's list, and
     * credentials of the endorsed definition signed from now on no longer list it. Revoking twice
     * changes nothing more. Another issuer's endorsement is not found. Audited.
     */
    async revokeGivenEndorsement(
      endorserIssuerId: string,
      actor: string,
      id: string,
    ): Promise<EndorsementCredentialRow> {
      return core.db.transaction().execute(async (trx) => {
        const repo = createVcRepository(trx);
        const row = await repo.endorsementBy(endorserIssuerId, id);
        if (!row) throw errors.notFound('Endorsement');
        if (row.revoked_at !== null) return row;
        const revokedAt = isoNow(core.clock);
        await repo.revokeEndorsement(endorserIssuerId, id, revokedAt);
        await deps.audit.append(trx, {
          issuerId: endorserIssuerId,
          actor,
          action: 'endorsement.revoked',
          targetType: 'endorsement',
          targetId: id,
          details: { endorsedIssuerId: row.endorsed_issuer_id, definitionId: row.definition_id },
        });
        return { ...row, revoked_at: revokedAt };
      });
    },

    /**
     * The unsigned OpenBadgeCredential of a credential of the issuer `slug`, as built now (same id,
     * status entry, achievement and issuer as the hosted one), for a caller to make a copy of it
     * (a holder-bound one) and sign that with `signGiven`.
     */
    async unsignedCredential(slug: string, credentialId: string): Promise<OpenBadgeCredential> {
      return (await buildCredential(await requireIssuer(slug, 'Credential'), credentialId)).unsigned;
    },

    /**
     * A credential object given by the caller (a holder-bound copy of a hosted credential, for one),
     * signed with the current key of the issuer `slug`, whose DID must be its issuer: the Data
     * Integrity form and the OB 3.0 §8.2 VC-JWT. Nothing is stored.
     */
    async signGiven(slug: string, credential: GivenCredential): Promise<SignedGiven> {
      return signBoth(await requireIssuer(slug, 'Issuer'), credential);
    },

    /**
     * A document issued by the issuer `slug` (its `issuer.id` the issuer's DID), signed with the
     * issuer's current key in the Data Integrity form only, `proof` as an array: a ClrCredential,
     * whose subject has no id, so it has no VC-JWT (OB 3.0 §8.2 requires `sub`). Nothing is stored.
     */
    async signDataIntegrityOnly(
      slug: string,
      document: { issuer: { id: string } },
    ): Promise<{ signed: Record<string, unknown>; keyVersion: number }> {
      const issuer = await requireIssuer(slug, 'Issuer');
      const did = issuerDid(core.config.publicBaseUrl, issuer.slug);
      if (document.issuer.id !== did) throw new Error(`document issuer ${document.issuer.id} is not ${did}`);
      const key = await currentKey(issuer);
      const signed = await signDataIntegrity(document, key);
      return { signed: { ...signed, proof: [signed.proof] }, keyVersion: key.version };
    },

    /**
     * The badge image with the signed credential baked in (OB 3.0 SVG baking). The image is the
     * generated badge: a definition's own image may be anywhere, and an anonymous request never
     * makes this service fetch a URL.
     */
    async bakedSvg(slug: string, credentialId: string): Promise<string> {
      const issuer = await requireIssuer(slug, 'Credential');
      const { dataIntegrity } = await signedCredential(issuer, credentialId);
      const { name } = JSON.parse(dataIntegrity) as { name?: unknown };
      const art = { name: String(name), issuerName: issuer.name, brandColor: issuer.brand_primary_color };
      return renderCredentialBadgeSvg(art, dataIntegrity);
    },

    /**
     * The badge image with the signed credential baked in (OB 3.0 PNG baking), when the achievement's
     * image is a PNG this service hosts (uploaded or designed in the console); never fetched from
     * elsewhere. Not found otherwise: the SVG download always has the credential baked in.
     */
    async bakedPng(slug: string, credentialId: string): Promise<Buffer> {
      const issuer = await requireIssuer(slug, 'Credential');
      const { dataIntegrity } = await signedCredential(issuer, credentialId);
      const { credentialSubject: subject } = JSON.parse(dataIntegrity) as {
        credentialSubject: { achievement?: { image?: { id?: string } } };
      };
      const png = await deps.images.hostedPng(subject.achievement?.image?.id);
      if (!png) {
        throw new AppError(
          'not_found',
          "This badge's image is not a PNG hosted by this service; the SVG download (baked.svg) has the credential baked in.",
        );
      }
      return bakePng(png, dataIntegrity);
    },

    /** The issuer's signed BitstringStatusListCredential number `list`, re-signed only when a bit changed. */
    async statusList(slug: string, list: number): Promise<Record<string, unknown>> {
      const issuer = await requireIssuer(slug, 'Status list');
      const repo = createVcRepository(core.db);
      // Only lists that hold a position exist (list 0 always): signing and storing a list for any
      // number a client names would let it make the service work and write for nothing.
      const positions = await repo.nextPosition(issuer.id);
      if (list > 0 && list * STATUS_LIST_LENGTH >= positions) throw errors.notFound('Status list');
      const from = list * STATUS_LIST_LENGTH;
      const revoked = await repo.revokedPositions(issuer.id, from, from + STATUS_LIST_LENGTH);
      const digest = sha256Hex(revoked.join(','));
      const cacheKey = `${issuer.id}:${list}`;
      const cached = listCache.get(cacheKey);
      if (cached?.digest === digest) return cached.credential;
      const stored = await repo.findStatusList(issuer.id, list);
      if (stored?.revoked_digest === digest) {
        const credential = JSON.parse(stored.credential) as Record<string, unknown>;
        listCache.set(cacheKey, { digest, credential });
        return credential;
      }
      const { createStatusList, createStatusListCredential } = await vcLibraries();
      const bits = await createStatusList({ length: STATUS_LIST_LENGTH });
      for (const position of revoked) bits.setStatus(position - from, true);
      const id = vc.statusList(issuer.slug, list);
      const unsigned = await createStatusListCredential({ id, list: bits, statusPurpose: 'revocation' });
      const did = issuerDid(core.config.publicBaseUrl, issuer.slug);
      const credential = await signDataIntegrity(
        { ...unsigned, issuer: did, validFrom: isoNow(core.clock) },
        await currentKey(issuer),
      );
      await repo.saveStatusList({
        issuer_id: issuer.id,
        list,
        revoked_digest: digest,
        credential: JSON.stringify(credential),
        signed_at: isoNow(core.clock),
      });
      listCache.set(cacheKey, { digest, credential });
      return credential;
    },
  };
}

export type VcService = ReturnType<typeof createVcService>;
