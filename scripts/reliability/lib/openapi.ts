import SwaggerParser from '@apidevtools/swagger-parser';
import { openapiSchemaToJsonSchema } from '@openapi-contrib/openapi-schema-to-json-schema';
import type { FastifyInstance } from 'fastify';

/** A JSON Schema (draft 4 style, as the converter emits it), after `nullable` became `type: [.., 'null']`. */
export type JsonSchema = Record<string, unknown>;

export interface ParameterSpec {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: JsonSchema;
}

export interface OperationSpec {
  /** `GET /api/v1/credentials/{id}`: how operations are named in reports. */
  key: string;
  operationId: string;
  method: string;
  path: string;
  /** True when the document gives the operation a security requirement (an API key). */
  secured: boolean;
  /** True when only a web console session is accepted (no API key): the fuzzer signs in for it. */
  consoleOnly: boolean;
  pathParams: ParameterSpec[];
  queryParams: ParameterSpec[];
  body: { required: boolean; contentTypes: string[]; schema: JsonSchema | null } | null;
  /** Documented status -> content type -> schema (an empty map: a response without a body). */
  responses: Map<string, Map<string, JsonSchema>>;
}

export interface ApiDocument {
  raw: Record<string, unknown>;
  operations: OperationSpec[];
  /** Problems swagger-parser found validating the document as OpenAPI 3.0 (empty when valid). */
  validationErrors: string[];
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

type Loose = Record<string, unknown>;

function toJsonSchema(schema: unknown): JsonSchema {
  return openapiSchemaToJsonSchema(structuredClone(schema) as Loose, { cloneSchema: true }) as JsonSchema;
}

function parameter(raw: Loose): ParameterSpec {
  return {
    name: String(raw.name),
    in: raw.in as ParameterSpec['in'],
    required: raw.required === true,
    schema: toJsonSchema(raw.schema ?? {}),
  };
}

/** The published document, fetched the way a client would, then validated and dereferenced. */
export async function loadApiDocument(app: FastifyInstance): Promise<ApiDocument> {
  const res = await app.inject({ method: 'GET', url: '/openapi.json' });
  if (res.statusCode !== 200) throw new Error(`GET /openapi.json answered ${res.statusCode}`);
  const raw = res.json() as Loose;
  const validationErrors: string[] = [];
  try {
    await SwaggerParser.validate(structuredClone(raw) as never);
  } catch (err) {
    validationErrors.push(err instanceof Error ? err.message : String(err));
  }
  const deref = (await SwaggerParser.dereference(structuredClone(raw) as never)) as unknown as Loose;
  const operations: OperationSpec[] = [];
  for (const [path, item] of Object.entries((deref.paths ?? {}) as Record<string, Loose>)) {
    const shared = ((item.parameters as Loose[] | undefined) ?? []).map(parameter);
    for (const method of METHODS) {
      const op = item[method] as Loose | undefined;
      if (!op) continue;
      const params = [...shared, ...((op.parameters as Loose[] | undefined) ?? []).map(parameter)];
      const requestBody = op.requestBody as Loose | undefined;
      const content = (requestBody?.content ?? {}) as Record<string, Loose>;
      const contentTypes = Object.keys(content);
      const firstSchema = contentTypes[0] ? content[contentTypes[0]]?.schema : undefined;
      const responses = new Map<string, Map<string, JsonSchema>>();
      for (const [status, response] of Object.entries((op.responses ?? {}) as Record<string, Loose>)) {
        const byType = new Map<string, JsonSchema>();
        for (const [type, media] of Object.entries((response.content ?? {}) as Record<string, Loose>)) {
          byType.set(type, toJsonSchema(media.schema ?? {}));
        }
        responses.set(status, byType);
      }
      operations.push({
        key: `${method.toUpperCase()} ${path}`,
        operationId: String(op.operationId ?? `${method} ${path}`),
        method: method.toUpperCase(),
        path,
        secured: Array.isArray(op.security) && op.security.length > 0,
        consoleOnly:
          Array.isArray(op.security) &&
          op.security.length > 0 &&
          (op.security as Record<string, unknown>[]).every((s) => Object.keys(s).join() === 'consoleSession'),
        pathParams: params.filter((p) => p.in === 'path'),
        queryParams: params.filter((p) => p.in === 'query'),
        body: requestBody
          ? {
              required: requestBody.required === true,
              contentTypes,
              schema: firstSchema ? toJsonSchema(firstSchema) : null,
            }
          : null,
        responses,
      });
    }
  }
  return { raw, operations, validationErrors };
}

/** Replaces lone surrogates, which no URL can carry, so any text can go in a path or query. */
export function encodable(text: string): string {
  return text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

/**
 * The path with each `{param}` replaced by its value, percent-encoded. "." and ".." (even as %2E)
 * are dot segments that URL normalisation removes, so they cannot be a parameter: they get a suffix.
 */
export function fillPath(path: string, values: Record<string, string>): string {
  return path.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    const value = values[name] ?? '';
    return encodeURIComponent(encodable(/^\.{1,2}$/.test(value) ? `${value}_` : value));
  });
}
