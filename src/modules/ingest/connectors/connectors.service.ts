import type { Core } from '../../../core/context.js';
import { errors } from '../../../core/errors.js';
import { unstorableTextAt } from '../../../core/validation.js';
import {
  type IngestContext,
  type IngestContextDeps,
  loadIngestContext,
  prepareCompletion,
} from '../completion-entry.js';
import type { DateFormat } from '../dates.js';
import type { DefinitionLookup } from '../definition-resolver.js';
import type { ImportRunner, PreparedEntry } from '../import-run.js';
import { axceleratePreset, DEFAULT_OUTCOME_CODES } from './axcelerate.js';
import { canvasPreset } from './canvas.js';
import type { ConnectorBody, ConnectorRunReport } from './connectors.schemas.js';
import { genericPreset } from './generic.js';
import { moodlePreset } from './moodle.js';
import {
  type ConnectorPreset,
  type FieldPaths,
  isObject,
  MAPPED_FIELDS,
  type PresetOptions,
  quoted,
  type RecordFields,
  readFields,
} from './preset.js';

const PRESETS: ReadonlyMap<string, ConnectorPreset> = new Map(
  [genericPreset, moodlePreset, canvasPreset, axceleratePreset].map((preset) => [preset.provider, preset]),
);

interface CallSettings {
  paths: FieldPaths;
  definitionMap: Record<string, string>;
  options: PresetOptions;
  dateFormat: DateFormat | undefined;
  /** Whether new credentials notify their earners (options.notify, else the issuer's default). */
  notify: boolean;
}

function settingsFor(preset: ConnectorPreset, body: ConnectorBody, notify: boolean): CallSettings {
  const paths: FieldPaths = { ...preset.paths };
  for (const field of MAPPED_FIELDS) {
    const override = body.mapping?.[field];
    if (override !== undefined) paths[field] = Array.isArray(override) ? override : [override];
  }
  const extra = (body.options?.outcomeCodes ?? []).map((code) => String(code).trim());
  return {
    paths,
    definitionMap: (body.definitionMap ?? {}) as Record<string, string>,
    options: { outcomeCodes: new Set([...DEFAULT_OUTCOME_CODES, ...extra]) },
    dateFormat: body.mapping?.dateFormat,
    notify,
  };
}

/** The records of a call: `records`, else the body itself (minus the call's own settings) as one. */
function recordsOf(body: ConnectorBody): unknown[] {
  if (body.records !== undefined) return body.records;
  const { mapping: _mapping, definitionMap: _definitionMap, options: _options, ...record } = body;
  return [record];
}

/** definitionId, else definitionRef, else the course code through definitionMap, else as a slug. */
function recordLookup(
  ctx: IngestContext,
  fields: RecordFields,
  definitionMap: Record<string, string>,
): DefinitionLookup {
  if (fields.definitionId !== '') {
    const definition = ctx.resolver.byId(fields.definitionId);
    return definition ? { definition } : { problem: 'definitionId does not match a definition' };
  }
  if (fields.definitionRef !== '') return ctx.resolver.byRef(fields.definitionRef, 'definitionRef');
  const code = fields.courseCode;
  if (code === '') return { problem: 'the record has no course code to choose its definition by' };
  if (Object.hasOwn(definitionMap, code)) {
    const target = definitionMap[code] as string;
    const definition = ctx.resolver.byIdOrSlug(target);
    return definition
      ? { definition }
      : { problem: `definitionMap sends course code ${quoted(code)} to ${quoted(target)}, which is no definition` };
  }
  const definition = ctx.resolver.byCode(code);
  return definition
    ? { definition }
    : {
        problem: `no definition for course code ${quoted(code)}: add it to definitionMap or use it as a definition slug`,
      };
}

function prepareRecord(
  ctx: IngestContext,
  preset: ConnectorPreset,
  settings: CallSettings,
  raw: unknown,
): PreparedEntry {
  if (!isObject(raw)) return { kind: 'error', message: 'the record is not a JSON object', completionKey: null };
  const unstorable = unstorableTextAt(raw);
  if (unstorable !== null) {
    return {
      kind: 'error',
      message: `${unstorable.path || 'the record'} contains ${unstorable.character}`,
      completionKey: null,
    };
  }
  const record = preset.unwrap ? preset.unwrap(raw) : raw;
  const fields = readFields(preset, record, settings.paths);
  const completionKey = fields.completionKey || preset.completionKey(record);
  const verdict = preset.classify(record, fields, settings.options);
  if (verdict.kind !== 'completion') {
    return { kind: verdict.kind, message: verdict.message, completionKey: completionKey || null };
  }
  return prepareCompletion(
    ctx,
    {
      recipientEmail: fields.recipientEmail,
      recipientName: fields.recipientName,
      completionKey,
      issuedOn: fields.completedAt,
      evidenceUrl: fields.evidenceUrl,
      notify: '',
      language: fields.language,
    },
    recordLookup(ctx, fields, settings.definitionMap),
    { dateField: 'completedAt', dateFormat: settings.dateFormat, notify: settings.notify },
  );
}

/**
 * Receive endpoints for learning and student management systems: each record is mapped by its
 * provider preset, filtered, and issued idempotently; a bad record never fails the others.
 */
export function createConnectorService(
  core: Pick<Core, 'clock'>,
  deps: IngestContextDeps & { runner: Pick<ImportRunner, 'run'> },
) {
  return {
    async receive(issuerId: string, actor: string, provider: string, body: ConnectorBody): Promise<ConnectorRunReport> {
      const preset = PRESETS.get(provider);
      if (!preset) throw errors.unknownProvider(provider.slice(0, 50));
      // The body schema leaves U+0000 and unpaired surrogates to this handler, so one bad record
      // fails alone; the settings reach queries and paths, so one there fails the call.
      const unstorable = unstorableTextAt({
        mapping: body.mapping,
        definitionMap: body.definitionMap,
        options: body.options,
      });
      if (unstorable !== null) {
        const message = `${unstorable.path} must not contain ${unstorable.character}`;
        throw errors.validation(message, [{ path: unstorable.path, message, code: unstorable.code }]);
      }
      const settings = settingsFor(preset, body, await deps.notifications.wanted(issuerId, body.options?.notify));
      const ctx = await loadIngestContext(core, deps, issuerId);
      const entries = recordsOf(body).map((raw) => prepareRecord(ctx, preset, settings, raw));
      const result = await deps.runner.run(
        issuerId,
        { actor, source: `connector:${provider}`, filename: null, dryRun: false, label: (index) => `record ${index}` },
        entries,
      );
      return {
        provider,
        total: result.total,
        issued: result.issued,
        skipped: result.skipped,
        errored: result.errored,
        records: result.entries.map((entry, index) => ({
          index,
          outcome: entry.outcome,
          completionKey: entry.completionKey,
          credentialId: entry.credentialId,
          message: entry.message,
          ...(entry.notification ? { notification: entry.notification } : {}),
        })),
      };
    },
  };
}

export type ConnectorService = ReturnType<typeof createConnectorService>;
