import { createHash } from 'node:crypto';
import { containsEmail } from '../../core/personal-data.js';
import type { IssuanceService } from '../credentials/issuance.service.js';

const KEY_MAX = 255;

/**
 * The completion key of an LTI award (design.md §4 "Added 2026-12-01"): platform issuer,
 * deployment, context, subject and definition, each percent-encoded so the parts cannot run into
 * each other; no email ever. Over 255 characters, or should a platform's ids contain an address,
 * it is their SHA-256 instead. The same learner earning the same badge in the same course is the
 * same key, so launches, retries, syncs and races all meet the one credential.
 */
export function ltiCompletionKey(parts: {
  platformIssuer: string;
  deploymentId: string;
  contextId: string;
  subject: string;
  definitionId: string;
}): string {
  const joined = [parts.platformIssuer, parts.deploymentId, parts.contextId, parts.subject, parts.definitionId]
    .map(encodeURIComponent)
    .join(':');
  const key = `lti:${joined}`;
  if (key.length <= KEY_MAX && !containsEmail(key)) return key;
  return `lti:sha256:${createHash('sha256').update(joined).digest('hex')}`;
}

export interface Learner {
  subject: string;
  email: string | null;
  name: string | null;
  /** The launch's locale: the credential is issued in it. */
  language?: string | null;
}

/** The one issuance path for every LTI award: quota, audit (actor `lti:<platform id>`), webhooks, email. */
export function createAwarder(issuance: Pick<IssuanceService, 'issue' | 'toIssued'>) {
  return async function award(
    platform: { id: string; issuer_id: string; platform_issuer: string },
    where: { deploymentId: string; contextId: string; definitionId: string },
    learner: Learner & { email: string },
  ) {
    const outcome = await issuance.issue(platform.issuer_id, `lti:${platform.id}`, {
      definitionId: where.definitionId,
      recipientEmail: learner.email,
      recipientName: learner.name,
      completionKey: ltiCompletionKey({
        platformIssuer: platform.platform_issuer,
        deploymentId: where.deploymentId,
        contextId: where.contextId,
        subject: learner.subject,
        definitionId: where.definitionId,
      }),
      language: learner.language ?? null,
      source: 'lti',
    });
    return issuance.toIssued(outcome);
  };
}

export type Award = ReturnType<typeof createAwarder>;
