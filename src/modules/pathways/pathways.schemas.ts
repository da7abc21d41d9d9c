import { type Static, Type } from '@sinclair/typebox';
import { DateTime, Email, Name, StringEnum, Text } from '../../core/schemas.js';
import { SLUG_PATTERN } from '../../core/slug.js';

export const PathwayStatus = StringEnum(['active', 'archived']);
export type PathwayStatus = Static<typeof PathwayStatus>;

const pathwayFields = {
  id: Type.String(),
  issuerId: Type.String(),
  slug: Type.String(),
  name: Type.String(),
  description: Type.Optional(Type.String()),
  status: Type.Optional(PathwayStatus),
  createdAt: Type.Optional(DateTime),
  updatedAt: Type.Optional(DateTime),
};

export const PathwaySchema = Type.Object(pathwayFields, {
  $id: 'Pathway',
  description: 'A staged set of credential definitions leading to a goal',
});
export type Pathway = Static<typeof PathwaySchema>;

export const PathwayStageSchema = Type.Object(
  {
    id: Type.String(),
    pathwayId: Type.String(),
    definitionId: Type.String(),
    stepOrder: Type.Integer(),
    required: Type.Boolean(),
  },
  { $id: 'PathwayStage' },
);
export type PathwayStage = Static<typeof PathwayStageSchema>;

export const PathwayWithStagesSchema = Type.Object(
  { ...pathwayFields, stages: Type.Array(Type.Ref(PathwayStageSchema), { description: 'Ordered by stepOrder' }) },
  { $id: 'PathwayWithStages' },
);

export const PathwayProgressSchema = Type.Object(
  {
    pathwayId: Type.String(),
    name: Type.String(),
    complete: Type.Boolean({ description: 'Every required stage earned, and the pathway has at least one stage' }),
    earnedStages: Type.Integer(),
    totalStages: Type.Integer(),
    requiredStages: Type.Integer(),
    stages: Type.Array(
      Type.Object({
        stageId: Type.String(),
        definitionId: Type.String(),
        stepOrder: Type.Integer(),
        required: Type.Boolean(),
        earned: Type.Boolean({ description: 'The recipient holds a currently valid credential of this definition' }),
      }),
    ),
  },
  { $id: 'PathwayProgress' },
);
export type PathwayProgress = Static<typeof PathwayProgressSchema>;

export const CreatePathwayBody = Type.Object({
  name: Name(200),
  description: Text(5000),
  slug: Type.Optional(Type.String({ pattern: SLUG_PATTERN, maxLength: 64 })),
});
export type CreatePathwayInput = Static<typeof CreatePathwayBody>;

export const UpdatePathwayBody = Type.Object(
  {
    name: Type.Optional(Name(200)),
    description: Type.Optional(Text(5000)),
    status: Type.Optional(PathwayStatus),
  },
  { minProperties: 1 },
);
export type UpdatePathwayInput = Static<typeof UpdatePathwayBody>;

export const AddStageBody = Type.Object({
  definitionId: Type.String({ minLength: 1, maxLength: 200, description: "A definition of the key holder's issuer" }),
  stepOrder: Type.Integer({ minimum: 1, maximum: 10_000 }),
  required: Type.Optional(Type.Boolean({ description: 'Defaults to true' })),
});
export type AddStageInput = Static<typeof AddStageBody>;

export const ProgressBody = Type.Object({ recipientEmail: Email });

export const pathwaySchemas = [PathwaySchema, PathwayStageSchema, PathwayWithStagesSchema, PathwayProgressSchema];
