import { type Static, Type } from '@sinclair/typebox';

export const AuditRecord = Type.Object(
  {
    id: Type.String(),
    issuerId: Type.String(),
    stripe: Type.Integer({ description: 'The hash chain the record belongs to (0-7); seq counts within it' }),
    seq: Type.Integer({ description: 'Position in its stripe, from 1; (stripe, seq) is unique' }),
    occurredAt: Type.String({ format: 'date-time' }),
    actor: Type.String({
      description:
        '`key:<API key id>`, `user:<console user id>`, `cli`, `system` (a job), `wallet` (OpenID4VCI) or `anonymous` (an unsubscribe link)',
    }),
    actorName: Type.String({
      description:
        "The actor as people read it: the console user's email, `API key <label>` (its prefix when unlabelled), `CLI`, `System`, `Wallet` or `Anonymous`. Not part of the hash.",
    }),
    action: Type.String(),
    targetType: Type.String(),
    targetId: Type.String(),
    details: Type.Object({}, { additionalProperties: true }),
    prevHash: Type.String({ description: "The previous record's hash in the stripe; empty for seq 1" }),
    hash: Type.String({ description: 'SHA-256 chain hash of this record (docs/audit.md says how to recompute it)' }),
  },
  { $id: 'AuditRecord' },
);

export const StripeHead = Type.Object(
  {
    stripe: Type.Integer({ minimum: 0 }),
    count: Type.Integer({ minimum: 1, description: 'Records in the stripe: the seq of its newest record' }),
    hash: Type.String({ pattern: '^[0-9a-f]{64}$', description: "The newest record's hash" }),
  },
  { additionalProperties: false },
);

export const AuditCheckpoint = Type.Object(
  {
    issuerId: Type.String(),
    takenAt: Type.String({ format: 'date-time' }),
    stripes: Type.Array(StripeHead, { description: 'Stripes without records are left out' }),
  },
  { $id: 'AuditCheckpoint', additionalProperties: false },
);

export const AuditChainReport = Type.Object(
  {
    issuerId: Type.String(),
    records: Type.Integer({ minimum: 0, description: 'Records read across all stripes' }),
    ok: Type.Boolean({ description: 'Every chain recomputes and ends at its head' }),
    brokenAt: Type.Optional(
      Type.Object(
        {
          stripe: Type.Integer({ minimum: 0 }),
          seq: Type.Integer({ minimum: 1 }),
          id: Type.Optional(Type.String({ description: 'The record, when one is named' })),
          reason: Type.String(),
        },
        { additionalProperties: false, description: 'The first place the log does not fit its chains or heads' },
      ),
    ),
  },
  { $id: 'AuditChainReport', additionalProperties: false },
);

/** What `accolade audit head` prints: the checkpoints of every issuer (or of one). */
export const AuditCheckpointSet = Type.Object(
  { takenAt: Type.String({ format: 'date-time' }), issuers: Type.Array(Type.Ref(AuditCheckpoint)) },
  { additionalProperties: false },
);

export type AuditCheckpoint = Static<typeof AuditCheckpoint>;
export interface AuditCheckpointSet {
  takenAt: string;
  issuers: AuditCheckpoint[];
}
