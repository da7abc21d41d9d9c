import { type Static, Type } from '@sinclair/typebox';
import { StringEnum } from '../../core/schemas.js';

export const CONTROL_CATEGORIES = [
  'Encryption',
  'Data Isolation',
  'Access Control',
  'Audit',
  'Data Minimisation',
  'Secrets Management',
  'Observability',
] as const;

export const ControlCategory = StringEnum(CONTROL_CATEGORIES);
export type ControlCategory = Static<typeof ControlCategory>;

export const ControlSchema = Type.Object({
  id: Type.String(),
  category: ControlCategory,
  title: Type.String(),
  description: Type.String({ description: 'How Accolade implements the control' }),
  evidence: Type.String({ description: 'The code and tests that prove it (paths in the source repository)' }),
});
export type Control = Static<typeof ControlSchema>;

/** One entry of the operator's subprocessor file; closed, so a misspelt field is refused at start-up. */
export const SubprocessorSchema = Type.Object(
  {
    name: Type.String({ minLength: 1 }),
    purpose: Type.String({ minLength: 1 }),
    location: Type.String({ minLength: 1 }),
    dataTypes: Type.Array(Type.String({ minLength: 1 })),
  },
  { additionalProperties: false },
);
export type Subprocessor = Static<typeof SubprocessorSchema>;
export const SubprocessorFileSchema = Type.Array(SubprocessorSchema);

export const TrustControlsSchema = Type.Object(
  {
    controls: Type.Array(ControlSchema),
    subprocessors: Type.Array(SubprocessorSchema),
    slo: Type.Object({
      availabilityTarget: Type.String(),
      rtoTarget: Type.String({ description: 'Recovery time objective' }),
      rpoTarget: Type.String({ description: 'Recovery point objective' }),
      dataResidency: Type.String(),
      lastReviewed: Type.String({ format: 'date', description: 'When these controls were last reviewed' }),
    }),
    controlCount: Type.Integer(),
    categoryCount: Type.Integer(),
  },
  { $id: 'TrustControls' },
);
export type TrustControls = Static<typeof TrustControlsSchema>;

export const trustSchemas = [TrustControlsSchema];
