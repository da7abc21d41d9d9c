import { type Static, Type } from '@sinclair/typebox';
import { ALIGNMENT_TARGET_TYPES, EXTENSION_TERM_PATTERN } from '../../core/ob3-vocabularies.js';
import { DateTime, Name, Nullable, Text, WebUrl } from '../../core/schemas.js';

export const AlignmentSchema = Type.Object(
  {
    id: Type.String(),
    issuerId: Type.String(),
    definitionId: Type.String(),
    targetName: Type.String(),
    targetUrl: Type.String({ format: 'uri' }),
    targetFramework: Type.Optional(Nullable(Type.String())),
    targetCode: Type.Optional(Nullable(Type.String())),
    targetDescription: Type.Optional(Nullable(Type.String())),
    targetType: Type.Optional(Nullable(Type.String({ description: 'OB 3.0 AlignmentTargetType' }))),
    createdAt: DateTime,
  },
  { $id: 'Alignment', description: 'A framework alignment of a definition (Open Badges AlignmentObject)' },
);
export type Alignment = Static<typeof AlignmentSchema>;

/** targetUrl must be http(s): the Open Badges validator requires a URL there, not any URI. */
export const CreateAlignmentBody = Type.Object({
  targetName: Name(300),
  targetUrl: WebUrl,
  targetFramework: Type.Optional(Text(300)),
  targetCode: Type.Optional(Text(100)),
  targetDescription: Type.Optional(Text(2000)),
  targetType: Type.Optional(
    Type.String({
      pattern: `^(${ALIGNMENT_TARGET_TYPES.join('|')})$|${EXTENSION_TERM_PATTERN}`,
      maxLength: 100,
      description: `OB 3.0 AlignmentTargetType: one of ${ALIGNMENT_TARGET_TYPES.join(', ')}, or an extension term such as ext:ESCOSkill (an ESCO skill: its URI in targetUrl)`,
    }),
  ),
});
export type CreateAlignmentInput = Static<typeof CreateAlignmentBody>;

export const alignmentSchemas = [AlignmentSchema];
