import { Ajv } from 'ajv';
import { addServiceFormats } from '../../core/validation.js';
import { AuditCheckpoint, AuditCheckpointSet, type AuditCheckpoint as Checkpoint } from './audit.schemas.js';

const ajv = addServiceFormats(new Ajv({ strict: false, allErrors: false }));
const isCheckpoint = ajv.compile<Checkpoint>(AuditCheckpoint);
const isCheckpointSet = ajv.compile<{ takenAt: string; issuers: Checkpoint[] }>(AuditCheckpointSet);

/**
 * The checkpoints in a kept checkpoint document: what `GET /api/v1/audit/head` answers (one issuer)
 * or what `accolade audit head` prints (several). Null when the document is neither.
 */
export function checkpointsOf(document: unknown): Checkpoint[] | null {
  if (isCheckpoint(document)) return [document];
  if (isCheckpointSet(document)) return document.issuers;
  return null;
}
