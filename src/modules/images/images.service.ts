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
export function createImageService(
  core: Pick<Core, 'db' | 'clock' | 'ids' | 'config'>,
  deps: { audit: Pick<AuditService, 'append'> },
) {
  const repo = createImageRepository(core.db);
  const urlOf = (id: string) => `${core.config.publicBaseUrl}/v1/images/${id}`;

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

    async read(id: string) {
      const image = await repo.getPublic(id);
      if (!image) throw errors.notFound('Image');
      return { contentType: image.content_type, bytes: Buffer.from(image.bytes) };
    },
  };
}

export type ImageService = ReturnType<typeof createImageService>;
