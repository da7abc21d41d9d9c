import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { isoNow } from '../../core/clock.js';
import type { Core } from '../../core/context.js';
import { AppError, errors, type ValidationIssue } from '../../core/errors.js';
import { sha256Hex } from '../../core/hashing.js';
import { fill, formatLocale, type Language, negotiateLanguage, textLanguages } from '../../core/locale.js';
import { publicUrls } from '../../core/urls.js';
import type { AuditService } from '../audit/audit.service.js';
import type { CredentialService } from '../credentials/credentials.service.js';
import {
  certificateWordingIssues,
  type DefinitionText,
  definitionText,
} from '../definitions/definition-translations.js';
import type { DefinitionRow } from '../definitions/definitions.repository.js';
import type { DefinitionService } from '../definitions/definitions.service.js';
import { expiryFor } from '../definitions/definitions.validity.js';
import type { ImageService } from '../images/images.service.js';
import type { IssuerService } from '../issuers/issuers.service.js';
import type { VcService } from '../vc/vc.service.js';
import {
  completeDesign,
  DEFAULT_DESIGN,
  fillWording,
  type IssuerCertificateSettings,
  paperSize,
  parseSettings,
  refuse,
} from './certificates.designs.js';
import { fontChains } from './certificates.fonts.js';
import { type CertificateContent, renderCertificate } from './certificates.render.js';
import { type CertificateDesignRow, createCertificateRepository, ISSUER_TARGET } from './certificates.repository.js';
import type {
  CertificateDesign,
  CertificateDesignInput,
  CertificatePreviewInput,
  CertificateSettingsInput,
} from './certificates.schemas.js';
import { workSlots } from './certificates.slots.js';
import { certificateMessages } from './messages/index.js';

/**
 * Rendered PDFs kept per replica, by content: a certificate is about 20 KB plus its images, so
 * about 1,500 without images. Counted in bytes the PDFs really hold (see wholeBuffer in the render).
 */
const CACHE_BYTES = 32 * 1024 * 1024;
/**
 * Certificates made at once per process (issue 44: rendering is bounded), from reading the record
 * to the finished PDF, cached or not; the others wait. Drawing is synchronous on the one event
 * loop, so a second slot only lets one certificate read its record, images and signed credential
 * while another is drawn: more would add their memory (images, documents), not speed.
 */
export const RENDERS_AT_ONCE = 2;
const FALLBACK_COLOR = '#1f3a5f';
const HEX_COLOR = /^#[0-9a-fA-F]{6}$/;
/** What a preview prints in place of a credential's values. */
const PREVIEW_EARNER = 'Alex Sample';
const PREVIEW_BADGE = 'Sample Badge';
const PREVIEW_CREDENTIAL = '00000000-0000-4000-8000-000000000000';
const PREVIEW_NOTE = 'A preview of a certificate design: a real certificate embeds the signed credential here.';

type Source = 'definition' | 'issuer' | 'default';
/** Whether a PDF drawn afresh goes into the cache ('keep') or only to its caller ('pass'). */
type CacheUse = 'keep' | 'pass';

/**
 * Certificates (issue 44): designs per definition with an issuer default, and the PDF of a
 * credential made on request from its stored record, its design and its signed OB 3.0 credential.
 * A PDF is cached by the hash of everything it prints (not by id), so a changed design, name or
 * logo shows at the next download and an unchanged one is never rendered twice.
 */
export function createCertificateService(
  core: Pick<Core, 'config' | 'db' | 'clock'>,
  deps: {
    audit: Pick<AuditService, 'append'>;
    issuers: Pick<IssuerService, 'getIssuer'>;
    definitions: Pick<DefinitionService, 'findRow'>;
    credentials: Pick<CredentialService, 'findRow'>;
    images: Pick<ImageService, 'owned' | 'hostedPng'>;
    vc: Pick<VcService, 'credential'>;
  },
) {
  const repo = createCertificateRepository(core.db);
  const urls = publicUrls(core.config.publicBaseUrl);
  const fonts = fontChains(core.config.certificateFonts);
  const rendered = new LRUCache<string, Buffer>({ maxSize: CACHE_BYTES, sizeCalculation: (pdf) => pdf.length });
  const slots = workSlots(RENDERS_AT_ONCE);
  let drawn = 0;

  async function requireDefinition(issuerId: string, definitionId: string) {
    const definition = await deps.definitions.findRow(issuerId, definitionId);
    if (!definition) throw errors.notFound('Definition');
    return definition;
  }

  /** The images a design names must be the issuer's own PNGs (the upload checked them). */
  async function checkDesign(issuerId: string, design: CertificateDesign): Promise<void> {
    const issues: ValidationIssue[] = certificateWordingIssues(design.wording, '/wording');
    const images: [string, string | null][] = [
      ['/backgroundImageId', design.backgroundImageId],
      ['/logoImageId', design.logoImageId],
      ...design.signatories.map((s, i): [string, string | null] => [
        `/signatories/${i}/signatureImageId`,
        s.signatureImageId,
      ]),
    ];
    for (const [path, id] of images) {
      if (id === null) continue;
      const image = await deps.images.owned(issuerId, id);
      if (image?.contentType !== 'image/png') {
        issues.push({
          path,
          message: image ? 'must be a PNG (an SVG cannot be printed)' : 'no such image of this issuer',
          code: 'image',
        });
      }
    }
    refuse(issues);
  }

  async function stored(issuerId: string, definitionId: string) {
    const rows = await repo.find(issuerId, [definitionId, ISSUER_TARGET]);
    const own = rows.find((r) => r.target === definitionId);
    const settings = parseSettings(rows.find((r) => r.target === ISSUER_TARGET));
    return { own, settings };
  }

  function effective(own: CertificateDesignRow | undefined, settings: IssuerCertificateSettings) {
    if (own) return { source: 'definition' as Source, design: completeDesign(JSON.parse(own.design)), row: own };
    if (settings.design) return { source: 'issuer' as Source, design: settings.design, row: undefined };
    return { source: 'default' as Source, design: DEFAULT_DESIGN, row: undefined };
  }

  const view = (design: CertificateDesign, row: CertificateDesignRow | undefined) => ({
    ...design,
    version: row?.version ?? 0,
    updatedAt: row?.updated_at ?? null,
  });

  async function image(issuerId: string, id: string | null): Promise<Buffer | null> {
    if (id === null) return null;
    const found = await deps.images.owned(issuerId, id);
    return found?.contentType === 'image/png' ? found.bytes : null;
  }

  /** A long date in the language, with the issuer's country's conventions when one is set (en-US: "March 2, 2026"). */
  function formatDate(iso: string, locale: string): string {
    const date = new Date(iso);
    try {
      return new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeZone: 'UTC' }).format(date);
    } catch {
      return new Intl.DateTimeFormat('en', { dateStyle: 'long', timeZone: 'UTC' }).format(date);
    }
  }

  const service = {
    async definitionDesign(issuerId: string, definitionId: string) {
      await requireDefinition(issuerId, definitionId);
      const { own, settings } = await stored(issuerId, definitionId);
      const { source, design, row } = effective(own, settings);
      return { definitionId, source, ...view(design, row) };
    },

    async saveDefinitionDesign(issuerId: string, actor: string, definitionId: string, input: CertificateDesignInput) {
      await requireDefinition(issuerId, definitionId);
      const design = completeDesign(input);
      await checkDesign(issuerId, design);
      const row = await core.db.transaction().execute(async (trx) => {
        const saved = await createCertificateRepository(trx).save(
          issuerId,
          definitionId,
          JSON.stringify(design),
          isoNow(core.clock),
          actor,
        );
        await deps.audit.append(trx, {
          issuerId,
          actor,
          action: 'certificate_design.updated',
          targetType: 'definition',
          targetId: definitionId,
          details: { version: saved.version, enabled: design.enabled },
        });
        return saved;
      });
      return { definitionId, source: 'definition' as Source, ...view(design, row) };
    },

    /** The definition goes back to the issuer's default (or the built-in one). */
    async removeDefinitionDesign(issuerId: string, actor: string, definitionId: string): Promise<void> {
      await requireDefinition(issuerId, definitionId);
      await core.db.transaction().execute(async (trx) => {
        if (!(await createCertificateRepository(trx).remove(issuerId, definitionId))) return;
        await deps.audit.append(trx, {
          issuerId,
          actor,
          action: 'certificate_design.removed',
          targetType: 'definition',
          targetId: definitionId,
          details: {},
        });
      });
    },

    /** Whether a definition's credentials have certificates (its design, else the issuer's, else the built-in one). */
    async enabledFor(issuerId: string, definitionId: string): Promise<boolean> {
      const { own, settings } = await stored(issuerId, definitionId);
      return effective(own, settings).design.enabled;
    },

    async settings(issuerId: string) {
      const [row] = await repo.find(issuerId, [ISSUER_TARGET]);
      const { design, country } = parseSettings(row);
      return { ...view(design ?? DEFAULT_DESIGN, row), country };
    },

    async saveSettings(issuerId: string, actor: string, input: CertificateSettingsInput) {
      const { country = null, ...body } = input;
      const design = completeDesign(body);
      await checkDesign(issuerId, design);
      const row = await core.db.transaction().execute(async (trx) => {
        const saved = await createCertificateRepository(trx).save(
          issuerId,
          ISSUER_TARGET,
          JSON.stringify({ ...design, country }),
          isoNow(core.clock),
          actor,
        );
        await deps.audit.append(trx, {
          issuerId,
          actor,
          action: 'certificate_settings.updated',
          targetType: 'issuer',
          targetId: issuerId,
          details: { version: saved.version, enabled: design.enabled, country },
        });
        return saved;
      });
      return { ...view(design, row), country };
    },

    /**
     * The certificate PDF of the issuer's credential. 404 for another issuer's or an unknown id,
     * or when certificates are off for its definition; 410 once it is revoked (an erasure revokes);
     * 422 when it cannot be printed truly (no name stored, a character no font has).
     */
    pdf: (issuerId: string, credentialId: string): Promise<Buffer> =>
      slots.run(() => pdf(issuerId, credentialId, 'keep')),

    /**
     * The same PDF for a bulk download (a batch's ZIP): taken from the cache when it is there, but
     * not put in it, so one ZIP of a thousand certificates neither evicts the ones being
     * downloaded one by one nor holds its own in memory after it has streamed.
     */
    bulkPdf: (issuerId: string, credentialId: string): Promise<Buffer> =>
      slots.run(() => pdf(issuerId, credentialId, 'pass')),

    /**
     * A design drawn with sample values (an unsaved one, for the console's live preview): the
     * definition's name when one is given, else a sample badge, and a sample earner and credential.
     * Its images are checked as a save checks them.
     */
    preview: (issuerId: string, input: CertificatePreviewInput): Promise<Buffer> =>
      slots.run(() => preview(issuerId, input)),

    /**
     * Certificates being made and waiting now, the most ever made at once (RENDERS_AT_ONCE bounds
     * it), how many PDFs were drawn afresh, and the bytes the cache holds.
     */
    renderStats: () => ({ ...slots.load(), drawn, cachedBytes: rendered.calculatedSize }),
  };

  return service;

  /** service.pdf, run in a slot. */
  async function pdf(issuerId: string, credentialId: string, cache: CacheUse): Promise<Buffer> {
    const credential = await deps.credentials.findRow(issuerId, credentialId);
    if (!credential) throw errors.notFound('Credential');
    if (credential.revoked_at !== null) {
      throw new AppError(
        'gone',
        credential.revoked_reason === 'gdpr_erasure'
          ? "This credential was erased at the earner's request; it has no certificate."
          : 'This credential was revoked; it has no certificate any more. A reissued or renewed credential has its own.',
      );
    }
    const definition = await requireDefinition(issuerId, credential.definition_id);
    const { own, settings } = await stored(issuerId, definition.id);
    const { design } = effective(own, settings);
    if (!design.enabled) throw new AppError('not_found', 'Certificates are turned off for this badge.');
    if (!credential.display_name) {
      throw new AppError(
        'certificate_unprintable',
        'This credential has no recipient name stored, so no certificate can name its earner. Reissue it with a recipientName.',
      );
    }
    const issuer = await deps.issuers.getIssuer(issuerId);
    // Issue 45 §2: the credential's language, then the issuer's; the badge's text as it was issued.
    const sources = { credential: credential.language, issuer: issuer.language };
    const language = negotiateLanguage(sources);
    const [signed, text] = await Promise.all([
      deps.vc.credential(issuer.slug, credential.id),
      definitionText(core.db, definition, textLanguages(sources, language), { asOf: credential.created_at }),
    ]);
    return render(
      await compose(issuer, design, settings, language, definition, text, {
        earnerName: credential.display_name,
        issuedOn: credential.issued_on,
        expiresOn: credential.expires_on,
        credentialId: credential.id,
        verifyUrl: urls.verifyPage(issuer.slug, credential.id),
        credentialJson: signed.dataIntegrity,
        credentialUrl: urls.openBadgeCredential(issuer.slug, credential.id),
      }),
      cache,
    );
  }

  /** service.preview, run in a slot. */
  async function preview(issuerId: string, input: CertificatePreviewInput): Promise<Buffer> {
    const { definitionId, language, ...body } = input;
    const definition = definitionId ? await requireDefinition(issuerId, definitionId) : null;
    const design = completeDesign(body);
    await checkDesign(issuerId, design);
    const [issuer, { settings }] = await Promise.all([
      deps.issuers.getIssuer(issuerId),
      stored(issuerId, definitionId ?? ISSUER_TARGET),
    ]);
    const issuedOn = isoNow(core.clock);
    const sources = { credential: language ?? null, issuer: issuer.language };
    const chosen = negotiateLanguage(sources);
    const text: DefinitionText = definition
      ? await definitionText(core.db, definition, textLanguages(sources, chosen))
      : { language: chosen, name: PREVIEW_BADGE, description: '', criteriaNarrative: null };
    return render(
      await compose(issuer, design, settings, chosen, definition, text, {
        earnerName: PREVIEW_EARNER,
        issuedOn,
        expiresOn: definition ? expiryFor(definition, issuedOn) : null,
        credentialId: PREVIEW_CREDENTIAL,
        verifyUrl: urls.verifyPage(issuer.slug, PREVIEW_CREDENTIAL),
        credentialJson: JSON.stringify({ preview: PREVIEW_NOTE }),
        credentialUrl: urls.openBadgeCredential(issuer.slug, PREVIEW_CREDENTIAL),
      }),
      'keep',
    );
  }

  /** Everything one certificate prints, resolved from its design and the record it certifies. */
  async function compose(
    issuer: Awaited<ReturnType<typeof deps.issuers.getIssuer>>,
    design: CertificateDesign,
    settings: IssuerCertificateSettings,
    language: Language,
    definition: Pick<DefinitionRow, 'language'> | null,
    text: DefinitionText,
    record: {
      earnerName: string;
      issuedOn: string;
      expiresOn: string | null;
      credentialId: string;
      verifyUrl: string;
      credentialJson: string;
      credentialUrl: string;
    },
  ): Promise<CertificateContent> {
    const words = certificateMessages(language);
    const locale = settings.country ? `${language}-${settings.country}` : formatLocale(language);
    const issuedOn = formatDate(record.issuedOn, locale);
    const expiresOn = record.expiresOn ? formatDate(record.expiresOn, locale) : null;
    // The translation's title and wording, else the design's own (in the definition's language),
    // else, while the design keeps the built-in ones, the built-in words in this language.
    const ownLanguage = definition?.language ?? issuer.language;
    const title = text.certificateTitle
      ? { text: text.certificateTitle, lang: text.language }
      : design.title === DEFAULT_DESIGN.title
        ? { text: words.defaultTitle, lang: language }
        : { text: design.title, lang: ownLanguage };
    const wording = text.certificateWording
      ? { text: text.certificateWording, lang: text.language }
      : design.wording === DEFAULT_DESIGN.wording
        ? { text: words.defaultWording, lang: language }
        : { text: design.wording, lang: ownLanguage };
    const badgeName = text.name;
    const issuerName = issuer.name;
    const [background, logo, ...signatures] = await Promise.all([
      image(issuer.id, design.backgroundImageId),
      design.logoImageId ? image(issuer.id, design.logoImageId) : deps.images.hostedPng(issuer.brand_logo_url),
      ...design.signatories.map((s) => image(issuer.id, s.signatureImageId)),
    ]);
    const brand = issuer.brand_primary_color;
    const nfc = (template: string, values: Record<string, string>) => fill(template, values).normalize('NFC');
    return {
      title: title.text.normalize('NFC'),
      earnerName: record.earnerName.normalize('NFC'),
      badgeName: badgeName.normalize('NFC'),
      issuerName: issuerName.normalize('NFC'),
      issuedOn,
      expiresOn,
      credentialId: record.credentialId,
      verifyUrl: record.verifyUrl,
      wording: fillWording(wording.text, {
        earnerName: record.earnerName,
        badgeName,
        issuerName,
        issuedOn,
        expiresOn: expiresOn ?? words.noExpiry,
        credentialId: record.credentialId,
      }).normalize('NFC'),
      labels: {
        awardedTo: words.awardedTo,
        details: [
          nfc(words.issuedByOn, { issuer: issuerName, date: issuedOn }),
          ...(expiresOn ? [nfc(words.expires, { date: expiresOn })] : []),
          nfc(words.credentialId, { id: record.credentialId }),
        ],
        verify: nfc(words.verifyAt, { url: record.verifyUrl }),
        subject: nfc(words.subject, { badge: badgeName, issuer: issuerName }),
        logoAlt: nfc(words.logoAlt, { issuer: issuerName }),
        qrAlt: nfc(words.qrAlt, { url: record.verifyUrl }),
      },
      textLangs: { title: title.lang, badgeName: text.language, wording: wording.lang },
      signatories: design.signatories.map((s, i) => ({
        name: s.name.normalize('NFC'),
        role: s.role.normalize('NFC'),
        signature: signatures[i] ?? null,
        alt: nfc(words.signatureAlt, { name: s.name }),
      })),
      background,
      logo,
      color: design.color ?? (brand && HEX_COLOR.test(brand) ? brand : FALLBACK_COLOR),
      borderStyle: design.borderStyle,
      orientation: design.orientation,
      size: paperSize(design.size, settings.country),
      lang: language,
      credentialJson: record.credentialJson,
      credentialUrl: record.credentialUrl,
      createdAt: core.clock.now(),
    };
  }

  /** The PDF of `content`, drawn once per content (the cache is keyed by what it prints). */
  async function render(content: CertificateContent, cache: CacheUse): Promise<Buffer> {
    const key = contentKey(content);
    const cached = rendered.get(key);
    if (cached) return cached;
    const pdf = await renderCertificate(content, await fonts());
    drawn++;
    if (cache === 'keep') rendered.set(key, pdf);
    return pdf;
  }
}

/** The hash of everything the PDF prints (images by their hash), not of when it was made. */
function contentKey(content: CertificateContent): string {
  const { createdAt: _made, background, logo, signatories, ...text } = content;
  const digest = (bytes: Buffer | null) => (bytes ? createHash('sha256').update(bytes).digest('hex') : null);
  return sha256Hex(
    JSON.stringify({
      ...text,
      background: digest(background),
      logo: digest(logo),
      signatories: signatories.map((s) => ({ ...s, signature: digest(s.signature) })),
    }),
  );
}

export type CertificateService = ReturnType<typeof createCertificateService>;
