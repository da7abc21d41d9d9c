import { type Static, Type } from '@sinclair/typebox';
import { Nullable } from '../../../core/schemas.js';
import { nulCheckedByHandler } from '../../../core/validation.js';
import { NotificationOutcomeSchema, NotifyFlag } from '../../credentials/credentials.schemas.js';
import { DateFormatSchema } from '../dates.js';

export const MAX_RECORDS = 1_000;

const Path = Type.String({
  minLength: 1,
  maxLength: 200,
  description: 'A dot-path into the record ("body.user.email").',
});
const Paths = Type.Union([Path, Type.Array(Path, { minItems: 1, maxItems: 10 })], {
  description: 'A dot-path, or several tried in order (the first non-empty value wins).',
});

const ConnectorMapping = Type.Object(
  {
    recipientEmail: Type.Optional(Paths),
    recipientName: Type.Optional(Paths),
    givenName: Type.Optional(Paths),
    familyName: Type.Optional(Paths),
    courseCode: Type.Optional(Paths),
    completedAt: Type.Optional(Paths),
    completionKey: Type.Optional(Paths),
    definitionId: Type.Optional(Paths),
    definitionRef: Type.Optional(Paths),
    evidenceUrl: Type.Optional(Paths),
    language: Type.Optional({
      ...Paths,
      description:
        "The learner's language (BCP 47, or a Moodle language pack name such as pt_br): the credential is issued in it; a value that is no language tag is ignored.",
    }),
    dateFormat: Type.Optional(DateFormatSchema),
  },
  { description: "Overrides the provider preset's paths per field." },
);

export const ConnectorBody = nulCheckedByHandler(
  Type.Object(
    {
      records: Type.Optional(
        Type.Array(
          Type.Unknown({ description: 'A completion record (JSON object); anything else is an error record.' }),
          {
            maxItems: MAX_RECORDS,
          },
        ),
      ),
      mapping: Type.Optional(ConnectorMapping),
      definitionMap: Type.Optional(
        Type.Object(
          {},
          {
            additionalProperties: Type.String({ minLength: 1, maxLength: 200 }),
            maxProperties: 1_000,
            description: 'Provider course or qualification code -> definition slug or id.',
          },
        ),
      ),
      options: Type.Optional(
        Type.Object({
          outcomeCodes: Type.Optional(
            Type.Array(Type.Union([Type.String({ minLength: 1, maxLength: 8 }), Type.Integer({ minimum: 0 })]), {
              maxItems: 50,
              description: 'aXcelerate: AVETMISS outcome codes issued besides 20 and 51 (e.g. 60 credit transfer).',
            }),
          ),
          notify: Type.Optional(NotifyFlag),
        }),
      ),
    },
    {
      additionalProperties: true,
      description:
        'Completion records in `records` (at most 1,000). A body without `records` is taken as one record, so a system that posts one raw event per request needs no wrapper.',
    },
  ),
);
export type ConnectorBody = Static<typeof ConnectorBody>;

export const ProviderParams = Type.Object({
  provider: Type.String({ maxLength: 50, description: 'generic, moodle or canvas.' }),
});

const RecordOutcome = Type.Unsafe<'issued' | 'skipped' | 'error'>({
  type: 'string',
  enum: ['issued', 'skipped', 'error'],
});

export const ConnectorRecordReportSchema = Type.Object(
  {
    index: Type.Integer({ description: 'Position of the record in `records` (0 for an unwrapped body).' }),
    outcome: RecordOutcome,
    completionKey: Type.Optional(Nullable(Type.String())),
    credentialId: Type.Optional(Nullable(Type.String())),
    message: Type.Optional(
      Nullable(Type.String({ description: 'Why a record was skipped or failed; never the email.' })),
    ),
    notification: Type.Optional(NotificationOutcomeSchema),
  },
  { $id: 'ConnectorRecordReport' },
);

export const ConnectorRunReportSchema = Type.Object(
  {
    provider: Type.String(),
    total: Type.Integer(),
    issued: Type.Integer(),
    skipped: Type.Integer(),
    errored: Type.Integer(),
    records: Type.Array(Type.Ref(ConnectorRecordReportSchema)),
  },
  { $id: 'ConnectorRunReport' },
);
export type ConnectorRunReport = Static<typeof ConnectorRunReportSchema>;
