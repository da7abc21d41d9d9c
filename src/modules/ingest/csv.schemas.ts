import { type Static, Type } from '@sinclair/typebox';
import { Name, Nullable } from '../../core/schemas.js';
import { NotificationOutcomeSchema } from '../credentials/credentials.schemas.js';
import { DateFormatSchema } from './dates.js';

const HeaderName = Type.String({ minLength: 1, maxLength: 200 });
/** A header, or null: the field is read from no column, whatever the aliases would find. */
const MappedColumn = Nullable(HeaderName);

const CsvMapping = Type.Object(
  {
    recipientEmail: Type.Optional(MappedColumn),
    recipientName: Type.Optional(MappedColumn),
    completionKey: Type.Optional(MappedColumn),
    definitionId: Type.Optional(MappedColumn),
    definitionRef: Type.Optional(MappedColumn),
    issuedOn: Type.Optional(MappedColumn),
    evidenceUrl: Type.Optional(MappedColumn),
    notify: Type.Optional(MappedColumn),
    language: Type.Optional({
      ...MappedColumn,
      description:
        "The column of each row's language (BCP 47, such as fr or de-CH): the credential is issued in it. An empty cell is the definition's own language.",
    }),
    givenName: Type.Optional({
      ...MappedColumn,
      description:
        'The given (first) name column; with familyName it makes recipientName when no column gives the whole name.',
    }),
    familyName: Type.Optional({ ...MappedColumn, description: 'The family name (surname) column.' }),
    sortName: Type.Optional({
      ...MappedColumn,
      description:
        'A column holding the name as "Family, Given" in one cell ("Nguyen, Anh" is stored as "Anh Nguyen").',
    }),
    learnerRef: Type.Optional({
      ...MappedColumn,
      description:
        'A learner reference (student number) column: a row without its own completion key gets the key learner:<ref>:<definition slug>.',
    }),
    dateFormat: Type.Optional({
      ...DateFormatSchema,
      description: `${DateFormatSchema.description} Without it the import detects the format from the issuedOn column (the report's dateFormat says what it found); a file whose day/month dates all have day and month ≤ 12 is ambiguous and must name it.`,
    }),
  },
  {
    description:
      'Field name -> header as written in the file (case, spaces, underscores, hyphens and dots ignored); overrides the aliases. null: the field is read from no column (not used), whatever its aliases would find. A mapping that names any of recipientName, givenName, familyName and sortName decides the name alone.',
  },
);

export const ImportCsvBody = Type.Object({
  csv: Type.String({
    description:
      'Raw CSV text (RFC 4180) with a header row; a leading UTF-8 byte-order mark is stripped. The separator is the one the header line has most of outside quotes: a comma, a semicolon (Excel where the decimal mark is a comma) or a tab.',
  }),
  filename: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  dryRun: Type.Optional(
    Type.Boolean({
      description:
        'true: write nothing; each row says what the real run would do (outcome) and its class (preview: new, duplicate, already_issued or error).',
    }),
  ),
  mapping: Type.Optional(CsvMapping),
  notify: Type.Optional(
    Type.Boolean({
      description:
        "Email each new credential's earner (a row's own `notify` column, yes or no, wins); the issuer's default when absent. Dry runs send nothing.",
    }),
  ),
  nameCorrections: Type.Optional(
    Type.Array(
      Type.Object({
        rowNum: Type.Integer({ minimum: 2, description: "The row's rowNum in the report (the line it starts on)." }),
        recipientName: Name(),
      }),
      {
        maxItems: 50_000,
        description:
          "Names to use instead of the file's for the rows named, for instance where the preview's nameWarning says a character was lost when the file was saved.",
      },
    ),
  ),
  defaults: Type.Optional(
    Type.Object(
      {
        definitionId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
        definitionRef: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
      },
      { description: 'The definition of rows that name none themselves.' },
    ),
  ),
});
export type ImportCsvBody = Static<typeof ImportCsvBody>;

export const RowOutcome = Type.Unsafe<'issued' | 'skipped' | 'error'>({
  type: 'string',
  enum: ['issued', 'skipped', 'error'],
  description: 'What the run did with the row; in a dry run, what the real run would do.',
});

export const RowPreview = Type.Unsafe<'new' | 'duplicate' | 'already_issued' | 'error'>({
  type: 'string',
  enum: ['new', 'duplicate', 'already_issued', 'error'],
  description:
    'Dry run only: new (would issue), duplicate (repeats an earlier row), already_issued (the key exists, or the recipient already holds a valid credential of the definition), error.',
});

const RecognisedColumn = Type.Object({
  header: Type.String({ description: 'The header as written in the file.' }),
  field: Type.String({
    description:
      'The field the column fed: recipientName for a given, family, preferred or sort name column; learnerRef for a learner reference.',
  }),
});

const RowProblemSchema = Type.Object({
  field: Type.String({
    description:
      'recipientEmail, recipientName, completionKey, definition, issuedOn, evidenceUrl, notify, quota, or row (the row as a whole).',
  }),
  code: Type.Unsafe<string>({
    type: 'string',
    enum: [
      'missing',
      'invalid_email',
      'unknown_definition',
      'ambiguous_definition',
      'not_a_day',
      'date_order',
      'unreadable_date',
      'future_date',
      'invalid_url',
      'too_long',
      'line_break',
      'contains_email',
      'invalid_notify',
      'invalid_language',
      'cell_count',
      'definition_archived',
      'quota_exceeded',
    ],
    description:
      'What is wrong: date_order is a day/month date whose order must be named (mapping.dateFormat); cell_count: the row has value cells, not as many as the header has columns.',
  }),
  value: Nullable(
    Type.String({
      description:
        'The cell as the file gives it, cut to 80 characters; null when empty, or when a cell other than the email holds an email address. In the response only, never stored.',
    }),
  ),
  column: Type.Optional(
    Nullable(Type.String({ description: 'The header of the column (or "A + B", two columns) the value came from.' })),
  ),
});

export const ImportRowReportSchema = Type.Object(
  {
    rowNum: Type.Integer({ description: 'Line number where the row starts; the header is line 1.' }),
    outcome: RowOutcome,
    preview: Type.Optional(RowPreview),
    completionKey: Type.Optional(Nullable(Type.String())),
    credentialId: Type.Optional(Nullable(Type.String())),
    message: Type.Optional(Nullable(Type.String({ description: 'Why a row was skipped or failed; never the email.' }))),
    notification: Type.Optional(NotificationOutcomeSchema),
    recipientName: Type.Optional(
      Nullable(Type.String({ description: 'The name the row gives (null when none, or not storable).' })),
    ),
    definitionName: Type.Optional(
      Nullable(Type.String({ description: "The name of the row's definition (null when none matched)." })),
    ),
    issuedOn: Type.Optional(
      Nullable(Type.String({ description: 'The date as read (ISO 8601); null when none or unreadable.' })),
    ),
    problems: Type.Optional(
      Type.Array(RowProblemSchema, {
        description: 'A row in error: each problem of its cells, for a reader to word in its own terms.',
      }),
    ),
    duplicateOf: Type.Optional(
      Type.Integer({ description: 'A duplicate: the rowNum of the earlier row it repeats (same completion key).' }),
    ),
    skippedFor: Type.Optional(
      Type.Unsafe<'already_issued' | 'already_held'>({
        type: 'string',
        enum: ['already_issued', 'already_held'],
        description:
          'Skipped: already_issued (the completion key exists) or already_held (the recipient holds a valid credential of the definition, credentialId).',
      }),
    ),
    nameWarning: Type.Optional(
      Type.String({
        description:
          'Dry run only: the name has a "?" where a character was probably lost when the file was saved (Windows-1252); correct it with nameCorrections.',
      }),
    ),
  },
  { $id: 'ImportRowReport' },
);

export const ImportReportSchema = Type.Object(
  {
    batchId: Type.String({ description: 'The import batch; a dry run records none and this id names no batch.' }),
    source: Type.Optional(Type.String()),
    filename: Type.Optional(Nullable(Type.String())),
    total: Type.Integer(),
    issued: Type.Integer({ description: 'Issued, or in a dry run: would be issued.' }),
    skipped: Type.Integer({ description: 'Duplicates in the file plus completion keys already issued.' }),
    errored: Type.Integer(),
    dryRun: Type.Optional(Type.Boolean({ description: 'true when the report is a preview and nothing was written.' })),
    columns: Type.Optional(
      Type.Object(
        {
          recognised: Type.Array(RecognisedColumn),
          ignored: Type.Array(Type.String(), { description: 'Headers of the columns no field was read from.' }),
        },
        { description: 'How the header was read.' },
      ),
    ),
    dateFormat: Type.Optional(
      Type.Object(
        {
          used: Nullable(
            Type.String({
              description: "The dateFormat the dates were read in (mapping.dateFormat's, else the detected one)",
            }),
          ),
          detected: Nullable(
            Type.String({
              description: 'The dateFormat the issuedOn column shows (null: no dates, both orders, or ambiguous)',
            }),
          ),
          ambiguous: Type.Boolean({
            description:
              'Every day/month date has day and month ≤ 12: it reads two ways; without mapping.dateFormat those rows are errors',
          }),
        },
        { description: 'How the dates were read.' },
      ),
    ),
    rows: Type.Array(Type.Ref(ImportRowReportSchema)),
  },
  { $id: 'ImportReport' },
);
export type ImportReport = Static<typeof ImportReportSchema>;
