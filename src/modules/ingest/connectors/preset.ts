import { canonicalLanguage } from '../../../core/language.js';
import { isMissingDate } from '../dates.js';

export type JsonObject = Record<string, unknown>;

/** What a connector reads from a record; `mapping` may name other dot-paths for any of them. */
export const MAPPED_FIELDS = [
  'recipientEmail',
  'recipientName',
  'givenName',
  'familyName',
  'courseCode',
  'completedAt',
  'completionKey',
  'definitionId',
  'definitionRef',
  'evidenceUrl',
  'language',
] as const;
export type MappedField = (typeof MAPPED_FIELDS)[number];
export type FieldPaths = Partial<Record<MappedField, string[]>>;

/** A record's values, read along the effective paths: text trimmed, '' when absent. */
export interface RecordFields {
  recipientEmail: string;
  recipientName: string;
  courseCode: string;
  /** Raw date value (the first path holding a date, skipping 0 and placeholders). */
  completedAt: unknown;
  completionKey: string;
  definitionId: string;
  definitionRef: string;
  evidenceUrl: string;
  /** The learner's language as a canonical BCP 47 tag; '' when the record has none this service can read. */
  language: string;
}

export interface PresetOptions {
  /** aXcelerate unit outcome codes that count as completions. */
  outcomeCodes: ReadonlySet<string>;
}

export type Verdict = { kind: 'completion' } | { kind: 'skip' | 'error'; message: string };
export const COMPLETION: Verdict = { kind: 'completion' };
export const skip = (message: string): Verdict => ({ kind: 'skip', message });

/** A provider preset (design.md §4 Connectors): default paths, completion filter, key. */
export interface ConnectorPreset {
  provider: string;
  paths: FieldPaths;
  /** The record the paths read, when the provider wraps it in an envelope. */
  unwrap?(record: JsonObject): JsonObject;
  /** Decides whether a record is a completion; the rest are skipped (or errors) with a reason. */
  classify(record: JsonObject, fields: RecordFields, options: PresetOptions): Verdict;
  /** Course code when the paths find none. */
  fallbackCourseCode?(record: JsonObject): string;
  /** The provider's deterministic completion key; '' when its parts are missing (auto: then applies). */
  completionKey(record: JsonObject): string;
  /** Undoes damage the provider does to emails in transit. */
  repairEmail?(email: string): string;
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reads a dot-path through own properties only (never the prototype: "constructor" is no field). */
export function readPath(record: JsonObject, path: string): unknown {
  let current: unknown = record;
  for (const segment of path.split('.')) {
    if ((isObject(current) || Array.isArray(current)) && Object.hasOwn(current, segment)) {
      current = (current as Record<string, unknown>)[segment];
    } else {
      return undefined;
    }
  }
  return current;
}

/** A scalar as trimmed text ('' for anything else): providers send ids as numbers or strings. */
export function text(value: unknown): string {
  if (typeof value === 'string') return value.trim();
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return '';
}

export function firstText(record: JsonObject, paths: string[] | undefined): string {
  for (const path of paths ?? []) {
    const value = text(readPath(record, path));
    if (value !== '') return value;
  }
  return '';
}

function firstDate(record: JsonObject, paths: string[] | undefined): unknown {
  for (const path of paths ?? []) {
    const value = readPath(record, path);
    if (!isMissingDate(value)) return value;
  }
  return undefined;
}

/** Reads every field along the preset's paths overridden by the body's mapping. */
export function readFields(preset: ConnectorPreset, record: JsonObject, paths: FieldPaths): RecordFields {
  const email = firstText(record, paths.recipientEmail);
  const name =
    firstText(record, paths.recipientName) ||
    [firstText(record, paths.givenName), firstText(record, paths.familyName)].filter((part) => part !== '').join(' ');
  return {
    recipientEmail: email !== '' && preset.repairEmail ? preset.repairEmail(email) : email,
    recipientName: name,
    courseCode: firstText(record, paths.courseCode) || (preset.fallbackCourseCode?.(record) ?? ''),
    completedAt: firstDate(record, paths.completedAt),
    completionKey: firstText(record, paths.completionKey),
    definitionId: firstText(record, paths.definitionId),
    definitionRef: firstText(record, paths.definitionRef),
    evidenceUrl: firstText(record, paths.evidenceUrl),
    language: learnerLanguage(firstText(record, paths.language)),
  };
}

/**
 * A record's locale as a BCP 47 tag: Moodle names its language packs with underscores (`pt_br`,
 * `fr_ca`), which read as `pt-BR` and `fr-CA`. A sender's locale is a preference, not a field the
 * sender typed, so one that is no tag is dropped rather than failing the completion.
 */
function learnerLanguage(value: string): string {
  return value === '' ? '' : (canonicalLanguage(value.replace(/_/g, '-')) ?? '');
}

/** Names a provider value in a message, bounded so a huge value cannot bloat the report. */
export function quoted(value: string): string {
  return JSON.stringify(value.length > 100 ? `${value.slice(0, 100)}…` : value);
}
