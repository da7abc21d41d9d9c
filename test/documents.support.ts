import { createHash } from 'node:crypto';
import { Ajv } from 'ajv';
import formats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';

/*
 * A faithful re-implementation, for tests, of the checks the official 1EdTech Open Badges 2.0 validator
 * (openbadges-validator-core, tasks/validation.py, verification.py, graph.py, images.py) runs on a hosted
 * badge: it cannot run here (no PyPI). It fetches like the validator (same Accept header), follows the
 * same links (badge -> issuer, endorsement -> issuer, images), and reports errors and warnings.
 * Stricter than the validator in one way: every property name must be a term of the v2 context, where
 * the validator's JSON-LD compaction would silently expand or drop an unknown one.
 */

export const OB_CONTEXT = 'https://w3id.org/openbadges/v2';

const extensionAjv = new Ajv({ strict: false, allErrors: true });
// ajv-formats is CommonJS with a default export; under NodeNext it arrives as the module object.
(formats as unknown as typeof formats.default)(extensionAjv);
export const VALIDATOR_ACCEPT = 'application/ld+json, application/json, image/png, image/svg+xml';

/** The 81 terms of https://w3id.org/openbadges/v2 (1EdTech openbadges-specification ob_v2p0/v2/context.json). */
export const OB_V2_TERMS: ReadonlySet<string> = new Set([
  'id',
  'type',
  'extensions',
  'obi',
  'validation',
  'cred',
  'dc',
  'schema',
  'sec',
  'xsd',
  'AlignmentObject',
  'CryptographicKey',
  'Endorsement',
  'Assertion',
  'BadgeClass',
  'Criteria',
  'Evidence',
  'Extension',
  'FrameValidation',
  'IdentityObject',
  'Image',
  'HostedBadge',
  'hosted',
  'Issuer',
  'Profile',
  'RevocationList',
  'SignedBadge',
  'signed',
  'TypeValidation',
  'VerificationObject',
  'author',
  'caption',
  'claim',
  'created',
  'creator',
  'description',
  'email',
  'endorsement',
  'expires',
  'genre',
  'image',
  'name',
  'owner',
  'publicKey',
  'publicKeyPem',
  'related',
  'startsWith',
  'tags',
  'targetDescription',
  'targetFramework',
  'targetName',
  'targetUrl',
  'telephone',
  'url',
  'version',
  'alignment',
  'allowedOrigins',
  'audience',
  'badge',
  'criteria',
  'endorsementComment',
  'evidence',
  'hashed',
  'identity',
  'issuedOn',
  'issuer',
  'narrative',
  'recipient',
  'revocationList',
  'revocationReason',
  'revoked',
  'revokedAssertions',
  'salt',
  'targetCode',
  'uid',
  'validatesType',
  'validationFrame',
  'validationSchema',
  'verification',
  'verificationProperty',
  'verify',
]);

export interface Fetched {
  status: number;
  contentType: string;
  body: string;
}

export type Fetch = (url: string) => Promise<Fetched>;

export interface Ob2Report {
  errors: string[];
  warnings: string[];
  /** Every URL the checker fetched, in order. */
  fetched: string[];
  /** The JSON documents fetched, by URL. */
  nodes: Map<string, Record<string, unknown>>;
}

/** Fetches through app.inject as the validator would over HTTP (its Accept header, absolute URLs on our origin). */
export function injectFetch(app: FastifyInstance, baseUrl: string): Fetch {
  return async (url) => {
    if (!url.startsWith(`${baseUrl}/`)) throw new Error(`not on our origin: ${url}`);
    const res = await app.inject({
      method: 'GET',
      url: url.slice(baseUrl.length),
      headers: { accept: VALIDATOR_ACCEPT },
    });
    return { status: res.statusCode, contentType: String(res.headers['content-type'] ?? ''), body: res.body };
  };
}

type Json = Record<string, unknown>;
type ValueType = 'IRI' | 'URL' | 'TEXT' | 'TEXT_OR_NUMBER' | 'EMAIL' | 'DATETIME' | 'BOOLEAN' | 'TELEPHONE';

const URN_UUID = /^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-[1-5][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

export function isUrl(value: unknown): boolean {
  if (typeof value !== 'string' || value === '' || /\s/.test(value)) return false;
  try {
    const parsed = new URL(value);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:';
  } catch {
    return false;
  }
}

const isIri = (v: unknown) => typeof v === 'string' && (isUrl(v) || v.startsWith('_:') || URN_UUID.test(v));
const isDataUri = (v: unknown) => typeof v === 'string' && /^data:[^,]*,/.test(v);

/** aniso8601 must parse it, and it must carry a time zone (validation.py _validate_datetime). */
export function isDateTime(v: unknown): boolean {
  return (
    typeof v === 'string' &&
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}(:?\d{2})?)$/.test(v) &&
    !Number.isNaN(Date.parse(v)) &&
    (v.endsWith('Z') || /[+-](?:\d{4}|\d{2}|\d{2}:\d{2})$/.test(v))
  );
}

const primitive: Record<ValueType, (v: unknown) => boolean> = {
  IRI: isIri,
  URL: isUrl,
  TEXT: (v) => typeof v === 'string',
  TEXT_OR_NUMBER: (v) => typeof v === 'string' || typeof v === 'number',
  EMAIL: (v) => typeof v === 'string' && /^[^@\s]+@[^@\s]+$/.test(v),
  DATETIME: isDateTime,
  BOOLEAN: (v) => typeof v === 'boolean',
  TELEPHONE: (v) => typeof v === 'string' && /^\+?[1-9]\d{1,14}(;ext=\d+)?$/.test(v),
};

const authority = (url: string) => new URL(url).host;
const listOf = (v: unknown): unknown[] => (Array.isArray(v) ? v : [v]);

export function identityHash(email: string, salt: string): string {
  return `sha256$${createHash('sha256')
    .update(email.trim().toLowerCase() + salt)
    .digest('hex')}`;
}

export interface ValidateOptions {
  fetch: Fetch;
  /** The validator's "now" (the app's clock in tests). */
  now: Date;
  /** A recipient email the assertion must be awarded to (the validator's trusted profile check). */
  recipientEmail?: string;
}

/** Validates the hosted document at `url` and everything it links to, like openbadges-validator-core. */
export async function validateHosted(url: string, options: ValidateOptions): Promise<Ob2Report> {
  const report: Ob2Report = { errors: [], warnings: [], fetched: [], nodes: new Map() };
  const seen = new Set<string>();
  const error = (m: string) => report.errors.push(m);
  const warn = (m: string) => report.warnings.push(m);

  async function fetchNode(nodeUrl: string): Promise<Json | null> {
    const cached = report.nodes.get(nodeUrl);
    if (cached) return cached;
    report.fetched.push(nodeUrl);
    const res = await options.fetch(nodeUrl);
    if (res.status !== 200) error(`GET ${nodeUrl} answered ${res.status}`);
    if (!/^application\/ld\+json\b/.test(res.contentType)) error(`${nodeUrl} Content-Type ${res.contentType}`);
    let data: unknown;
    try {
      data = JSON.parse(res.body);
    } catch {
      error(`Unknown Content-Type (not JSON, PNG or SVG) from ${nodeUrl}`);
      return null;
    }
    if (typeof data !== 'object' || data === null || Array.isArray(data)) {
      error(`${nodeUrl} is not a JSON object`);
      return null;
    }
    const node = data as Json;
    report.nodes.set(nodeUrl, node);
    if (node['@context'] !== OB_CONTEXT) error(`${nodeUrl} @context is ${JSON.stringify(node['@context'])}`);
    if (node.id !== nodeUrl) warn(`Node fetched from source ${nodeUrl} declared its id as ${String(node.id)}`);
    checkTerms(node, nodeUrl);
    for (const extension of extensions.splice(0)) await extensionNode(extension.node, extension.path);
    return node;
  }

  const extensions: { node: unknown; path: string }[] = [];

  /**
   * An extension object (OB 2.0 "Extensions" and "Extension Validation"): its `@context` a URL,
   * fetched, whose terms are the only properties besides `@context` and `type`; `type` includes
   * `Extension`; each TypeValidation of the context that names one of its types has its JSON
   * Schema fetched and run against the object.
   */
  async function extensionNode(value: unknown, path: string): Promise<void> {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      error(`extension ${path} is not an object`);
      return;
    }
    const ext = value as Json;
    const types = listOf(ext.type).map(String);
    if (!types.includes('Extension')) error(`extension ${path} has no type Extension`);
    if (typeof ext['@context'] !== 'string' || !isUrl(ext['@context'])) {
      error(`extension ${path} has no @context URL`);
      return;
    }
    const contextUrl = ext['@context'];
    report.fetched.push(contextUrl);
    const res = await options.fetch(contextUrl);
    let context: Json | null = null;
    try {
      context = res.status === 200 ? (JSON.parse(res.body) as Json) : null;
    } catch {
      context = null;
    }
    const terms = context?.['@context'];
    if (!context || typeof terms !== 'object' || terms === null || Array.isArray(terms)) {
      error(`extension context ${contextUrl} of ${path} answered ${res.status} without a @context object`);
      return;
    }
    for (const key of Object.keys(ext)) {
      if (key !== '@context' && key !== 'type' && !(key in terms)) {
        error(`Property ${key} of extension ${path} is not a term of ${contextUrl}`);
      }
    }
    for (const entry of listOf(context['obi:validation'] ?? [])) {
      const validation = entry as Json;
      if (!types.includes(String(validation['obi:validatesType']))) continue;
      const schemaUrl = String(validation['obi:validationSchema']);
      report.fetched.push(schemaUrl);
      const schemaRes = await options.fetch(schemaUrl);
      if (schemaRes.status !== 200) {
        error(`extension schema ${schemaUrl} answered ${schemaRes.status}`);
        continue;
      }
      const validate = extensionAjv.compile(JSON.parse(schemaRes.body) as object);
      if (!validate(ext)) error(`extension ${path} fails ${schemaUrl}: ${JSON.stringify(validate.errors)}`);
    }
  }

  function checkTerms(value: unknown, path: string): void {
    if (Array.isArray(value)) {
      for (const [i, v] of value.entries()) checkTerms(v, `${path}[${i}]`);
      return;
    }
    if (typeof value !== 'object' || value === null) return;
    for (const [key, v] of Object.entries(value)) {
      if (key === '@context') continue;
      // A JSON-LD keyword, not a term: the language of the document's strings (top level, as the OB
      // 2.0 "Internationalization" examples write it) or of a `related` edition.
      if (key === '@language') {
        if (typeof v !== 'string' || !/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(v)) {
          error(`@language ${JSON.stringify(v)} at ${path} is not a BCP 47 tag`);
        }
        continue;
      }
      // OB 2.0 "Extensions": a property in the `extensions:` namespace holding an object with its own
      // context; its terms are that context's, checked once it is fetched (extensionNode).
      if (key.startsWith('extensions:') && key.length > 'extensions:'.length) {
        extensions.push({ node: v, path: `${path}.${key}` });
        continue;
      }
      if (!OB_V2_TERMS.has(key)) error(`Property ${key} at ${path} is not a term of the Open Badges v2 context`);
      if (key === 'type') {
        for (const t of listOf(v)) {
          if (typeof t !== 'string' || !OB_V2_TERMS.has(t)) error(`type ${String(t)} at ${path} is not in the context`);
        }
      }
      checkTerms(v, `${path}.${key}`);
    }
  }

  async function fetchImage(imageUrl: string, label: string): Promise<void> {
    if (seen.has(imageUrl)) return;
    seen.add(imageUrl);
    report.fetched.push(imageUrl);
    const res = await options.fetch(imageUrl);
    if (res.status < 200 || res.status > 299) error(`image of ${label} at ${imageUrl} answered ${res.status}`);
    if (!/^image\/(svg\+xml|png)\b/.test(res.contentType)) {
      error(`image of ${label} at ${imageUrl} has Content-Type ${res.contentType}, not PNG or SVG`);
    }
  }

  /** validate_property: presence, null/empty, single vs many, primitive type. Returns the values. */
  function property(node: Json, label: string, name: string, type: ValueType | 'ID', required: boolean, many = false) {
    if (!(name in node)) {
      if (required) error(`Required property ${name} not present in ${label}`);
      return [] as unknown[];
    }
    const values = listOf(node[name]);
    if (values.length === 0 || values.every((v) => v === null)) {
      if (required) error(`Required property ${name} value is not acceptable in ${label}`);
      return [];
    }
    if (!many && values.length > 1) error(`Property ${name} in ${label} has more than the single allowed value`);
    if (type !== 'ID') {
      for (const v of values)
        if (!primitive[type](v)) error(`${type} property ${name} value ${JSON.stringify(v)} not valid in ${label}`);
    }
    return values;
  }

  function rdfType(node: Json, label: string, allowed: string[], required = true): void {
    const values = property(node, label, 'type', 'TEXT', required, true);
    if (values.length > 0 && !values.some((v) => allowed.includes(String(v)))) {
      error(`Node ${label} of type ${JSON.stringify(node.type)} does not have type among allowed values (${allowed})`);
    }
  }

  async function primaryObject(node: Json, label: string): Promise<void> {
    property(node, label, 'version', 'TEXT_OR_NUMBER', false);
    for (const related of property(node, label, 'related', 'ID', false, true)) {
      const id = typeof related === 'object' && related !== null ? (related as Json).id : related;
      if (!isIri(id)) error(`related ${JSON.stringify(related)} in ${label} is not an IRI`);
    }
    for (const endorsement of property(node, label, 'endorsement', 'ID', false, true)) {
      if (typeof endorsement === 'string') {
        if (!isUrl(endorsement)) error(`endorsement ${endorsement} in ${label} is not a URL`);
        else await endorsementNode(endorsement);
      } else if (typeof endorsement === 'object' && endorsement !== null) {
        await validateEndorsement(endorsement as Json, `${label}.endorsement`);
      } else error(`endorsement in ${label} is neither a URL nor an object`);
    }
  }

  async function profileNode(profileUrl: unknown, label: string): Promise<Json | null> {
    if (typeof profileUrl !== 'string' || !isUrl(profileUrl)) {
      error(`${label} issuer ${JSON.stringify(profileUrl)} is not an HTTP(S) URL`);
      return null;
    }
    const node = await fetchNode(profileUrl);
    if (!node || seen.has(`profile:${profileUrl}`)) return node;
    seen.add(`profile:${profileUrl}`);
    const l = `Profile ${profileUrl}`;
    property(node, l, 'id', 'IRI', true);
    rdfType(node, l, ['Issuer', 'Profile']);
    property(node, l, 'name', 'TEXT', true);
    property(node, l, 'description', 'TEXT', false);
    for (const image of property(node, l, 'image', 'ID', false)) {
      const id = typeof image === 'object' && image !== null ? (image as Json).id : image;
      if (!isUrl(id) && !isDataUri(id)) error(`image of ${l} is neither a URL nor a data URI`);
    }
    property(node, l, 'url', 'URL', true);
    property(node, l, 'email', 'EMAIL', true);
    property(node, l, 'telephone', 'TELEPHONE', false);
    for (const verification of property(node, l, 'verification', 'ID', false)) {
      if (typeof verification !== 'object' || verification === null) continue;
      const v = verification as Json;
      property(v, `${l}.verification`, 'startsWith', 'URL', false, true);
      for (const origin of property(v, `${l}.verification`, 'allowedOrigins', 'TEXT', false, true)) {
        if (!/^[A-Za-z0-9.-]+(:\d+)?$/.test(String(origin))) error(`allowedOrigins ${String(origin)} is not a host`);
      }
    }
    if (typeof node.id === 'string' && !/^https?:\/\//.test(node.id)) {
      warn(`Issuer Profile ${node.id} not hosted with HTTP-based identifier.`);
    }
    await primaryObject(node, l);
    return node;
  }

  async function validateEndorsement(node: Json, l: string): Promise<void> {
    property(node, l, 'id', 'IRI', true);
    rdfType(node, l, ['Endorsement']);
    const claims = property(node, l, 'claim', 'ID', true);
    for (const claim of claims) {
      if (typeof claim !== 'object' || claim === null) {
        error(`claim of ${l} must be an embedded object (it is neither fetched nor allowed as a remote URL)`);
        continue;
      }
      property(claim as Json, `${l}.claim`, 'id', 'IRI', true);
      property(claim as Json, `${l}.claim`, 'endorsementComment', 'TEXT', false);
    }
    property(node, l, 'issuedOn', 'DATETIME', true);
    const [issuer] = property(node, l, 'issuer', 'ID', true);
    if (issuer !== undefined) await profileNode(issuer, l);
    const [verification] = property(node, l, 'verification', 'ID', true);
    if (verification !== undefined) {
      const type = typeof verification === 'object' && verification !== null ? (verification as Json).type : undefined;
      if (!['hosted', 'HostedBadge', 'signed', 'SignedBadge'].includes(String(type))) {
        error(`verification of ${l} has type ${String(type)}`);
      }
    }
    await primaryObject(node, l);
  }

  async function endorsementNode(endorsementUrl: string): Promise<void> {
    if (seen.has(`endorsement:${endorsementUrl}`)) return;
    seen.add(`endorsement:${endorsementUrl}`);
    const node = await fetchNode(endorsementUrl);
    if (node) await validateEndorsement(node, `Endorsement ${endorsementUrl}`);
  }

  async function badgeClassNode(badgeUrl: string): Promise<{ node: Json; issuer: Json | null } | null> {
    const node = await fetchNode(badgeUrl);
    if (!node) return null;
    const l = `BadgeClass ${badgeUrl}`;
    property(node, l, 'id', 'IRI', true);
    rdfType(node, l, ['BadgeClass']);
    const [issuerRef] = property(node, l, 'issuer', 'ID', true);
    const issuer = issuerRef === undefined ? null : await profileNode(issuerRef, l);
    property(node, l, 'name', 'TEXT', true);
    property(node, l, 'description', 'TEXT', true);
    const [image] = property(node, l, 'image', 'ID', false);
    if (image === undefined) error(`Could not load and validate image in node ${l}`);
    else {
      const id = typeof image === 'object' && image !== null ? (image as Json).id : image;
      if (isDataUri(id)) {
        if (!/^data:image\/(png|svg\+xml)[;,]/.test(String(id))) error(`data URI image of ${l} is not PNG or SVG`);
      } else if (!isUrl(id)) error(`image of ${l} is neither a URL nor a data URI`);
      // Images elsewhere (a definition's own imageUrl) cannot be fetched in a test; ours must answer.
      else if (String(id).startsWith(new URL(badgeUrl).origin)) await fetchImage(String(id), l);
    }
    const [criteria] = property(node, l, 'criteria', 'ID', true);
    if (typeof criteria === 'string') {
      if (!isUrl(criteria)) error(`criteria of ${l} is not a URL`);
    } else if (typeof criteria === 'object' && criteria !== null) {
      const c = criteria as Json;
      rdfType(c, `${l}.criteria`, ['Criteria'], false);
      property(c, `${l}.criteria`, 'id', 'IRI', false);
      property(c, `${l}.criteria`, 'narrative', 'TEXT', false);
      if (c.id === undefined && !c.narrative) {
        error(`Criteria node of ${l} has no narrative. Either external id or narrative is required.`);
      }
    }
    for (const alignment of property(node, l, 'alignment', 'ID', false, true)) {
      if (typeof alignment !== 'object' || alignment === null) {
        error(`alignment of ${l} is not an embedded AlignmentObject`);
        continue;
      }
      const a = alignment as Json;
      const al = `${l}.alignment`;
      rdfType(a, al, ['AlignmentObject'], false);
      property(a, al, 'targetName', 'TEXT', true);
      property(a, al, 'targetUrl', 'URL', true);
      for (const p of ['description', 'targetDescription', 'targetFramework', 'targetCode']) {
        property(a, al, p, 'TEXT', false);
      }
    }
    property(node, l, 'tags', 'TEXT', false, true);
    await primaryObject(node, l);
    return { node, issuer };
  }

  async function assertionNode(assertionUrl: string): Promise<void> {
    const node = await fetchNode(assertionUrl);
    if (!node) return;
    const l = `Assertion ${assertionUrl}`;
    property(node, l, 'id', 'IRI', true);
    rdfType(node, l, ['Assertion']);
    const [recipient] = property(node, l, 'recipient', 'ID', true);
    if (recipient !== undefined) identityObject(recipient, l);
    const [verification] = property(node, l, 'verification', 'ID', true);
    const verificationType =
      typeof verification === 'object' && verification !== null ? String((verification as Json).type) : '';
    if (verification !== undefined && !['hosted', 'HostedBadge', 'signed', 'SignedBadge'].includes(verificationType)) {
      error(`verification of ${l} has type ${verificationType}`);
    }
    property(node, l, 'issuedOn', 'DATETIME', true);
    property(node, l, 'expires', 'DATETIME', false);
    const [image] = property(node, l, 'image', 'ID', false);
    if (image !== undefined) {
      const id = typeof image === 'object' && image !== null ? (image as Json).id : image;
      if (!isUrl(id)) error(`image of ${l} must be a URL (an Assertion image may not be a data URI)`);
      else if (String(id).startsWith(new URL(assertionUrl).origin)) await fetchImage(String(id), l);
    }
    property(node, l, 'narrative', 'TEXT', false);
    for (const evidence of property(node, l, 'evidence', 'ID', false, true)) {
      if (typeof evidence === 'string') {
        if (!isUrl(evidence)) error(`evidence ${evidence} of ${l} is not a URL`);
        continue;
      }
      if (typeof evidence !== 'object' || evidence === null) {
        error(`evidence of ${l} is neither a URL nor an Evidence object`);
        continue;
      }
      const e = evidence as Json;
      property(e, `${l}.evidence`, 'id', 'IRI', false);
      for (const p of ['narrative', 'name', 'description', 'genre', 'audience'])
        property(e, `${l}.evidence`, p, 'TEXT', false);
    }
    timestamps(node, l);
    const [badge] = property(node, l, 'badge', 'ID', true);
    const badgeClass = typeof badge === 'string' && isUrl(badge) ? await badgeClassNode(badge) : null;
    if (badge !== undefined && !badgeClass) error(`badge of ${l} could not be fetched as a BadgeClass`);
    if (badgeClass?.issuer && ['hosted', 'HostedBadge'].includes(verificationType)) {
      hostedScope(assertionUrl, badgeClass.issuer);
    }
    await primaryObject(node, l);
  }

  function identityObject(recipient: unknown, l: string): void {
    if (typeof recipient !== 'object' || recipient === null) {
      error(`recipient of ${l} is not an embedded IdentityObject`);
      return;
    }
    const r = recipient as Json;
    const rl = `${l}.recipient`;
    rdfType(r, rl, ['id', 'email', 'url', 'telephone']);
    const [identity] = property(r, rl, 'identity', 'TEXT', true);
    property(r, rl, 'hashed', 'BOOLEAN', true);
    property(r, rl, 'salt', 'TEXT', false);
    const text = String(identity ?? '');
    const looksHashed = /^md5\$[\da-fA-F]{32}$/.test(text) || /^sha256\$[\da-fA-F]{64}$/.test(text);
    if (r.hashed && !looksHashed) error(`Identity ${text} must match known hash style if hashed is true`);
    else if (looksHashed && !r.hashed) error(`Identity ${text} must not be hashed if hashed is false`);
    if (!r.hashed && r.type === 'email' && !/[^@]+@[^@]+$/.test(text))
      error('Email type identity must match email format.');
    if (options.recipientEmail !== undefined) {
      const expected = identityHash(options.recipientEmail, String(r.salt ?? ''));
      if (text.toLowerCase() !== expected)
        error(`Profile identifier did not match assertion ${l} recipient hash ${text}`);
    }
  }

  function timestamps(node: Json, l: string): void {
    if (!isDateTime(node.issuedOn)) return;
    const issuedOn = Date.parse(String(node.issuedOn));
    if (issuedOn > options.now.getTime()) error(`${l} has issue date ${String(node.issuedOn)} in the future.`);
    if (node.expires !== undefined && isDateTime(node.expires)) {
      const expires = Date.parse(String(node.expires));
      if (expires < issuedOn) error(`${l} expiration is prior to issue date.`);
      else if (expires < options.now.getTime()) error(`${l} expired on ${String(node.expires)}`);
    }
  }

  /** hosted_id_in_verification_scope with the issuer's policy, or the default: the issuer id's authority. */
  function hostedScope(assertionUrl: string, issuer: Json): void {
    const policy =
      typeof issuer.verification === 'object' && issuer.verification !== null ? (issuer.verification as Json) : {};
    if (policy.startsWith !== undefined) {
      const prefixes = listOf(policy.startsWith).map(String);
      if (!prefixes.some((p) => assertionUrl.startsWith(p))) {
        error(
          `Assertion id ${assertionUrl} does not start with any permitted values in its issuer's verification policy.`,
        );
      }
    }
    const issuerId = String(issuer.id ?? '');
    const allowed =
      policy.allowedOrigins !== undefined
        ? listOf(policy.allowedOrigins).map(String)
        : isUrl(issuerId)
          ? [authority(issuerId)]
          : [];
    if (allowed.length === 0 || !issuerId.startsWith('http')) {
      warn(`Issuer ${issuerId} has no HTTP domain to enforce hosted verification policy against.`);
    } else if (!allowed.includes(authority(assertionUrl))) {
      error(`Assertion ${assertionUrl} not hosted in allowed origins ${allowed.join(', ')}`);
    }
  }

  const first = await options.fetch(url);
  let root: Json | null = null;
  try {
    root = JSON.parse(first.body) as Json;
  } catch {
    error(`Unknown Content-Type from ${url}`);
  }
  const type = root ? String(listOf(root.type)[0]) : '';
  if (type === 'Assertion') await assertionNode(url);
  else if (type === 'BadgeClass') await badgeClassNode(url);
  else if (type === 'Issuer' || type === 'Profile') await profileNode(url, 'input');
  else if (type === 'Endorsement') await endorsementNode(url);
  else if (root) error(`Unknown type ${type} at ${url}`);
  return report;
}

/*
 * A small XML well-formedness checker (no XML parser is installed): balanced, properly nested
 * elements, quoted attributes without `<`, known entities only, declared namespace prefixes,
 * terminated CDATA and comments, exactly one root element.
 */
export function xmlProblems(xml: string): string[] {
  const problems: string[] = [];
  const stack: { name: string; prefixes: Set<string> }[] = [];
  let roots = 0;
  let i = 0;
  const entity = /&(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);/y;
  const checkText = (text: string, where: string) => {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters XML 1.0 forbids
    if (/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/.test(text)) {
      problems.push(`invalid character in ${where}`);
    }
    for (let j = text.indexOf('&'); j !== -1; j = text.indexOf('&', j + 1)) {
      entity.lastIndex = j;
      if (!entity.test(text)) problems.push(`bad entity reference in ${where} at ${j}`);
    }
  };
  const declared = (prefix: string, own: Set<string>) =>
    prefix === 'xml' || own.has(prefix) || stack.some((e) => e.prefixes.has(prefix));
  while (i < xml.length) {
    if (xml.startsWith('<![CDATA[', i)) {
      const end = xml.indexOf(']]>', i + 9);
      if (end === -1) return [...problems, 'unterminated CDATA section'];
      if (stack.length === 0) problems.push('CDATA outside the root element');
      i = end + 3;
    } else if (xml.startsWith('<!--', i)) {
      const end = xml.indexOf('-->', i + 4);
      if (end === -1) return [...problems, 'unterminated comment'];
      i = end + 3;
    } else if (xml.startsWith('<?', i)) {
      const end = xml.indexOf('?>', i + 2);
      if (end === -1) return [...problems, 'unterminated processing instruction'];
      i = end + 2;
    } else if (xml[i] === '<') {
      const tag =
        /<(\/?)([A-Za-z_][\w.-]*(?::[A-Za-z_][\w.-]*)?)((?:\s+[A-Za-z_][\w.:-]*\s*=\s*(?:"[^"<]*"|'[^'<]*'))*)\s*(\/?)>/y;
      tag.lastIndex = i;
      const m = tag.exec(xml);
      if (!m) return [...problems, `malformed tag at ${i}: ${xml.slice(i, i + 40)}`];
      const [whole, closing, name = '', attrText = '', selfClosing] = m;
      if (closing) {
        const open = stack.pop();
        if (open?.name !== name) problems.push(`</${name}> closes <${open?.name ?? 'nothing'}>`);
      } else {
        const prefixes = new Set<string>();
        const names = new Set<string>();
        for (const a of attrText.matchAll(/([A-Za-z_][\w.:-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) {
          const attrName = a[1] ?? '';
          if (names.has(attrName)) problems.push(`duplicate attribute ${attrName} on <${name}>`);
          names.add(attrName);
          checkText(a[2] ?? a[3] ?? '', `attribute ${attrName} of <${name}>`);
          if (attrName.startsWith('xmlns:')) prefixes.add(attrName.slice(6));
        }
        for (const qualified of [name, ...[...names].filter((n) => !n.startsWith('xmlns'))]) {
          const prefix = qualified.includes(':') ? (qualified.split(':')[0] ?? '') : null;
          if (prefix !== null && !declared(prefix, prefixes)) problems.push(`undeclared namespace prefix ${prefix}`);
        }
        if (stack.length === 0) roots++;
        if (!selfClosing) stack.push({ name, prefixes });
      }
      i += whole.length;
    } else {
      const next = xml.indexOf('<', i);
      const text = xml.slice(i, next === -1 ? xml.length : next);
      if (stack.length === 0 && text.trim() !== '') problems.push('text outside the root element');
      if (text.includes(']]>')) problems.push("']]>' in text");
      checkText(text, 'text');
      i = next === -1 ? xml.length : next;
    }
  }
  if (stack.length > 0) problems.push(`unclosed <${stack.map((e) => e.name).join('>, <')}>`);
  if (roots !== 1) problems.push(`${roots} root elements`);
  return problems;
}

/** The OB 2.0 baked assertion of an SVG: the root's namespace, the first child's verify URL and its CDATA JSON. */
export function bakedAssertion(svg: string): { namespace: string | null; verify: string; json: unknown } | null {
  const m =
    /^<svg\b([^>]*)><openbadges:assertion verify="([^"]*)"><!\[CDATA\[([\s\S]*?)\]\]><\/openbadges:assertion>/.exec(
      svg,
    );
  if (!m) return null;
  const namespace = /\sxmlns:openbadges="([^"]*)"/.exec(m[1] ?? '')?.[1] ?? null;
  const verify = (m[2] ?? '')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
  return { namespace, verify, json: JSON.parse(m[3] ?? 'null') };
}
