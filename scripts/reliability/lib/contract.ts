import { Ajv, type ValidateFunction } from 'ajv';
import formats from 'ajv-formats';
import type { JsonSchema, OperationSpec } from './openapi.js';

// ajv-formats is CommonJS with a default export; under NodeNext it arrives as the module object.
const addFormats = formats as unknown as typeof formats.default;

export type ViolationRule =
  | 'server-error'
  | 'undocumented-status'
  | 'undocumented-content-type'
  | 'unexpected-body'
  | 'invalid-json'
  | 'schema-mismatch'
  | 'not-an-error-body';

export interface Violation {
  rule: ViolationRule;
  detail: string;
}

export interface ObservedResponse {
  statusCode: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
}

/**
 * 4xx answers that are documented with a body other than the Error body, and why. Everything else
 * in 4xx must be `{error: string, message?: string}`.
 */
/** The Open Badges API (OB 3.0 §6) answers its errors with 1EdTech's Imsx_StatusInfo, as the specification requires. */
function imsxStatusInfo(body: unknown): boolean {
  return typeof body === 'object' && body !== null && 'imsx_codeMajor' in body && 'imsx_severity' in body;
}

export const NON_ERROR_4XX: Record<string, string> = {
  '410': 'a revoked assertion is the Open Badges 2.0 revocation document (design.md, public documents)',
};

const ERROR_BODY_SCHEMA = {
  type: 'object',
  required: ['error'],
  properties: { error: { type: 'string', minLength: 1 }, message: { type: 'string' } },
};

function isJsonType(type: string): boolean {
  return type === 'application/json' || type.endsWith('+json');
}

function mediaType(headers: ObservedResponse['headers']): string {
  const value = headers['content-type'];
  const text = Array.isArray(value) ? (value[0] ?? '') : String(value ?? '');
  return text.split(';')[0]?.trim().toLowerCase() ?? '';
}

/** Drops the draft marker the converter adds: ajv 8 validates the keywords without it. */
function withoutDraft(schema: JsonSchema): JsonSchema {
  const { $schema: _draft, ...rest } = schema;
  return rest;
}

/** Checks answers against the published document: status, content type, body schema, Error bodies. */
export function createContractChecker() {
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  const compiled = new Map<string, ValidateFunction>();
  const errorBody = ajv.compile(ERROR_BODY_SCHEMA);

  function validator(cacheKey: string, schema: JsonSchema): ValidateFunction {
    let fn = compiled.get(cacheKey);
    if (!fn) {
      fn = ajv.compile(withoutDraft(schema));
      compiled.set(cacheKey, fn);
    }
    return fn;
  }

  return {
    check(op: OperationSpec, res: ObservedResponse): Violation[] {
      const out: Violation[] = [];
      const status = String(res.statusCode);
      if (res.statusCode >= 500) out.push({ rule: 'server-error', detail: `${status}: ${res.body.slice(0, 300)}` });
      const documented = op.responses.get(status) ?? op.responses.get('default');
      if (!documented) {
        out.push({
          rule: 'undocumented-status',
          detail: `${status} is not among ${[...op.responses.keys()].join(', ')}: ${res.body.slice(0, 200)}`,
        });
        return out;
      }
      const type = mediaType(res.headers);
      if (documented.size === 0) {
        if (res.body.length > 0) {
          out.push({
            rule: 'unexpected-body',
            detail: `${status} documents no body but got ${type}: ${res.body.slice(0, 200)}`,
          });
        }
        return out;
      }
      const schema = documented.get(type);
      if (!schema) {
        out.push({
          rule: 'undocumented-content-type',
          detail: `${status} ${type || '(none)'} is not among ${[...documented.keys()].join(', ')}`,
        });
        return out;
      }
      if (!isJsonType(type)) return out;
      let body: unknown;
      try {
        body = JSON.parse(res.body);
      } catch {
        out.push({ rule: 'invalid-json', detail: `${status} ${type}: ${res.body.slice(0, 200)}` });
        return out;
      }
      const validate = validator(`${op.key} ${status} ${type}`, schema);
      if (!validate(body)) {
        const problems = (validate.errors ?? [])
          .slice(0, 3)
          .map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`)
          .join('; ');
        out.push({ rule: 'schema-mismatch', detail: `${status}: ${problems}: ${res.body.slice(0, 200)}` });
      }
      if (
        res.statusCode >= 400 &&
        res.statusCode < 500 &&
        !(status in NON_ERROR_4XX) &&
        !errorBody(body) &&
        !imsxStatusInfo(body)
      ) {
        out.push({ rule: 'not-an-error-body', detail: `${status}: ${res.body.slice(0, 200)}` });
      }
      return out;
    },
  };
}
