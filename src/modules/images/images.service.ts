import { isoNow } from '../../core/clock.js';
import type { Core } from '../../core/context.js';
import { errors } from '../../core/errors.js';
import type { AuditService } from '../audit/audit.service.js';
import { createImageRepository } from './images.repository.js';
import { checkPng, sanitiseSvg } from './images.sanitise.js';

export const IMAGE_TYPES = ['image/png', 'image/svg+xml'] as const;
export type ImageType = (typeof IMAGE_TYPES)[number];
/** Largest upload, in bytes. */
export const IMAGE_MAX_BYTES = 256 * 1024;

/** Uploaded images (badge images, logos): checked or sanitised, stored, served publicly by id. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** Hosted images whose type is remembered per replica: a few dozen bytes each. */
const KNOWN_IMAGES = 10_000;

export function createImageService(
  core: Pick<Core, 'db' | 'clock' | 'ids' | 'config'>,
  deps: { audit: Pick<AuditService, 'append'> },
) {
  const repo = createImageRepository(core.db);
  const urlOf = (id: string) => `${core.config.publicBaseUrl}/v1/images/${id}`;
  const hostedPrefix = urlOf('');
  const pngIds = new Map<string, boolean>();
  /** The id of an image URL this service hosts, or null for any other URL. */
  const hostedId = (url: string | null | undefined) => {
    if (!url?.startsWith(hostedPrefix)) return null;
    const id = url.slice(hostedPrefix.length);
    return UUID.test(id) ? id : null;
  };

  return {
    async upload(issuerId: string, contentType: ImageType, body: Buffer, actor: string) {
      const bytes = contentType === 'image/png' ? checkPng(body) : await sanitiseSvg(body);
      const id = core.ids.uuid();
      await core.db.transaction().execute(async (trx) => {
        await createImageRepository(trx).insert({
          id,
          issuer_id: issuerId,
          content_type: contentType,
          bytes,
          created_at: isoNow(core.clock),
        });
        await deps.audit.append(trx, {
          issuerId,
          actor,
          action: 'image.uploaded',
          targetType: 'image',
          targetId: id,
          details: { contentType, bytes: bytes.length },
        });
      });
      return { id, url: urlOf(id), contentType };
    },

    /** The bytes of a PNG this service hosts at `url`; null for any other image (never fetched). */
    async hostedPng(url: string | null | undefined): Promise<Buffer | null> {
      const id = hostedId(url);
      const image = id ? await repo.getPublic(id) : undefined;
      return image?.content_type === 'image/png' ? Buffer.from(image.bytes) : null;
    },

    /**
     * The bytes of the issuer's own uploaded image `id`, with its type (certificate signatures and
     * backgrounds); undefined for an unknown id or another issuer's image.
     */
    async owned(issuerId: string, id: string): Promise<{ contentType: string; bytes: Buffer } | undefined> {
      const image = UUID.test(id) ? await repo.getOwned(issuerId, id) : undefined;
      return image ? { contentType: image.content_type, bytes: Buffer.from(image.bytes) } : undefined;
    },

    /** Whether `url` is a PNG this service hosts (images never change, so the answer is kept). */
    async isHostedPng(url: string | null | undefined): Promise<boolean> {
      const id = hostedId(url);
      if (!id) return false;
      const known = pngIds.get(id);
      if (known !== undefined) return known;
      const png = (await repo.contentType(id)) === 'image/png';
      if (pngIds.size >= KNOWN_IMAGES) pngIds.clear();
      pngIds.set(id, png);
      return png;
    },

    async read(id: string) {
      const image = await repo.getPublic(id);
      if (!image) throw errors.notFound('Image');
      return { contentType: image.content_type, bytes: Buffer.from(image.bytes) };
    },
  };
}

export type ImageService = ReturnType<typeof createImageService>;
