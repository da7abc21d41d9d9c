import type { IncomingHttpHeaders } from 'node:http';
import type { Core } from '../../core/context.js';
import type { ReadCaches } from '../../db/read-cache.js';
import type { ImageService } from '../images/images.service.js';
import type { UsageService } from '../usage/usage.service.js';
import type { OutboxService } from '../webhooks/outbox.service.js';
import { countryFrom, createEventRecorder, type Verifier } from './events.js';
import { createPageService } from './page.service.js';
import { createVerifyService, type PresentedReader } from './verify.service.js';

/**
 * Verification: the open API (single, bulk), premium, the human page with its share redirects, and
 * the buffered event recorder they all write through (flushed by its job, or `events.flush()`).
 */
export function createVerificationModule(
  core: Core,
  deps: {
    outbox: Pick<OutboxService, 'enqueueEach'>;
    usage: Pick<UsageService, 'meterPremiumVerification'>;
    presented: PresentedReader;
    images: Pick<ImageService, 'isHostedPng'>;
    readCaches: ReadCaches;
  },
) {
  const events = createEventRecorder(core, { outbox: deps.outbox });
  const header = core.config.geoCountryHeader;
  return {
    events,
    verify: createVerifyService(core, {
      events,
      usage: deps.usage,
      presented: deps.presented,
      readCaches: deps.readCaches,
    }),
    page: createPageService(core, { events, images: deps.images, readCaches: deps.readCaches }),
    /** The verifier's country from the trusted proxy header (GEO_COUNTRY_HEADER), else `ZZ`. */
    country: (headers: IncomingHttpHeaders) => countryFrom(header ? headers[header] : undefined),
    /** The verifier of a request: its country, and its client address (whose replays are coalesced). */
    verifier: (request: { headers: IncomingHttpHeaders; ip: string }): Verifier => ({
      country: countryFrom(header ? request.headers[header] : undefined),
      client: request.ip,
    }),
    jobs: [events],
  };
}

export type VerificationModule = ReturnType<typeof createVerificationModule>;
