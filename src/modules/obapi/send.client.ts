import * as oidc from 'openid-client';
import { guardedExchange, ImportFetchError } from '../backpack/backpack.fetch.js';
import type { LookupFn } from '../webhooks/ssrf.js';
import { OB_API, SCOPES } from './obapi.scopes.js';

/** A Service Description Document, a registration or a token answer is small JSON. */
const SEND_DOCUMENT_CAP_BYTES = 256 * 1024;
const DISCOVERY_PATH = `${OB_API}/discovery`;

/** Something another platform did (or did not do) that ends a send; the message is the earner's. */
export class RemoteRefusal extends Error {
  override name = 'RemoteRefusal';
  /**
   * The host where the earner pressed Deny (RFC 6749 §4.1.2.1 `access_denied`): their choice, not a
   * fault of either platform, so it is answered as a page of its own; null for every other refusal.
   */
  readonly declinedAt: string | null;
  constructor(message: string, declinedAt: string | null = null) {
    super(message);
    this.declinedAt = declinedAt;
  }
}

/** What a send needs of the other platform's Service Description Document (OB 3.0 §6.3). */
export interface RemoteService {
  name: string;
  apiBase: string;
  registrationUrl: string;
  authorizationUrl: string;
  tokenUrl: string;
}

/**
 * The discovery URL of what the earner typed: a Service Description Document's URL as is, else
 * the platform's base URL (or its API's base) with OB 3.0's /ims/ob/v3p0/discovery. Null when it
 * is no http(s) URL.
 */
export function discoveryUrlOf(address: string): string | null {
  let url: URL;
  try {
    url = new URL(address.trim());
  } catch {
    return null;
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.username || url.password) return null;
  url.hash = '';
  url.search = '';
  const path = url.pathname.replace(/\/+$/, '');
  if (path.endsWith(DISCOVERY_PATH)) url.pathname = path;
  else if (path.endsWith(OB_API)) url.pathname = `${path}/discovery`;
  else url.pathname = `${path}${DISCOVERY_PATH}`;
  return url.toString();
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** An https URL, or an http one where `allowHttp` (WEBHOOK_ALLOW_PRIVATE, for loopback hosts). */
function webUrl(value: unknown, allowHttp: boolean): string | null {
  if (typeof value !== 'string') return null;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || (allowHttp && url.protocol === 'http:') ? url.toString() : null;
  } catch {
    return null;
  }
}

/**
 * The parts of an SDD a send uses, or a refusal naming what is missing: OB 3.0 §6.3's
 * `components.securitySchemes.OAuth2ACG` (type oauth2) with `x-imssf-registrationUrl` and an
 * authorizationCode flow of `authorizationUrl`, `tokenUrl` and `scopes` that include
 * credential.upsert, and `servers[0].url`, the API's base. Each URL is https (RFC 6749 §3.1 and
 * §3.2 require TLS), http only where `allowHttp`: the guard holds every fetch to https already, but
 * the authorization URL is opened by the earner's browser, where no guard sees it.
 */
export function readServiceDescription(host: string, document: unknown, allowHttp: boolean): RemoteService {
  const refuse = (what: string) =>
    new RemoteRefusal(`${host} does not describe an Open Badges 3.0 API that accepts badges (${what}).`);
  if (!isObject(document)) throw refuse('its discovery document is not a JSON object');
  const scheme =
    isObject(document.components) && isObject(document.components.securitySchemes)
      ? document.components.securitySchemes.OAuth2ACG
      : undefined;
  if (!isObject(scheme) || scheme.type !== 'oauth2') throw refuse('no OAuth2ACG security scheme');
  const flow = isObject(scheme.flows) ? scheme.flows.authorizationCode : undefined;
  if (!isObject(flow)) throw refuse('no authorization code flow');
  const registrationUrl = webUrl(scheme['x-imssf-registrationUrl'], allowHttp);
  const authorizationUrl = webUrl(flow.authorizationUrl, allowHttp);
  const tokenUrl = webUrl(flow.tokenUrl, allowHttp);
  if (!registrationUrl) throw refuse('no https x-imssf-registrationUrl');
  if (!authorizationUrl || !tokenUrl) throw refuse('no https authorizationUrl and tokenUrl');
  if (!isObject(flow.scopes) || !Object.hasOwn(flow.scopes, SCOPES.credentialUpsert)) {
    throw refuse('the scope credential.upsert is not offered');
  }
  const server = Array.isArray(document.servers) ? document.servers[0] : undefined;
  const apiBase = isObject(server) ? webUrl(server.url, allowHttp) : null;
  if (!apiBase) throw refuse('no https servers[0].url');
  const info = isObject(document.info) ? document.info : {};
  const name = [scheme['x-imssf-name'], info.title].find((v): v is string => typeof v === 'string' && v.length > 0);
  return {
    name: (name ?? host).slice(0, 200),
    apiBase: apiBase.replace(/\/+$/, ''),
    registrationUrl,
    authorizationUrl,
    tokenUrl,
  };
}

/** Every outbound call of a send, openid-client's included, goes through the SSRF guard. */
export function sendTransport(options: { allowPrivate: boolean; lookup: LookupFn }) {
  async function get(url: string): Promise<{ status: number; json: unknown }> {
    const answer = await guardedExchange(
      url,
      { method: 'GET', headers: { accept: 'application/json' }, capBytes: SEND_DOCUMENT_CAP_BYTES },
      options,
    );
    let json: unknown = null;
    try {
      json = JSON.parse(answer.body.toString('utf8'));
    } catch {
      json = null;
    }
    return { status: answer.status, json };
  }

  /** openid-client's customFetch: the guarded exchange, answered as a WHATWG Response. */
  const fetch: oidc.CustomFetch = async (url, init) => {
    const body = init.body;
    let text: string | undefined;
    if (body === undefined || body === null) text = undefined;
    else if (typeof body === 'string') text = body;
    else if (body instanceof URLSearchParams) text = body.toString();
    else if (body instanceof Uint8Array || body instanceof ArrayBuffer)
      text = Buffer.from(body as Uint8Array).toString('utf8');
    else throw new RemoteRefusal('A request body of this kind is not sent.');
    const answer = await guardedExchange(
      url,
      {
        method: init.method === 'GET' ? 'GET' : 'POST',
        headers: init.headers,
        ...(text === undefined ? {} : { body: text }),
        capBytes: SEND_DOCUMENT_CAP_BYTES,
      },
      options,
    );
    const empty = [204, 205, 304].includes(answer.status);
    return new Response(empty ? null : new Uint8Array(answer.body), { status: answer.status, headers: answer.headers });
  };

  return { get, fetch };
}

export type SendTransport = ReturnType<typeof sendTransport>;

/**
 * The RFC 8414 metadata openid-client is configured with, composed from the SDD: its URLs as the
 * SDD names them. The issuer and the RFC 7009 revocation endpoint, which an SDD does not name, come
 * from the host's own RFC 8414 document when it serves one whose endpoints are the SDD's; else the
 * issuer is the authorization URL's origin and nothing is revoked (there is no endpoint for it).
 */
export async function composeServerMetadata(
  service: RemoteService,
  transport: SendTransport,
): Promise<oidc.ServerMetadata> {
  const origin = new URL(service.authorizationUrl).origin;
  const composed: { -readonly [K in keyof oidc.ServerMetadata]: oidc.ServerMetadata[K] } = {
    issuer: origin,
    authorization_endpoint: service.authorizationUrl,
    token_endpoint: service.tokenUrl,
    registration_endpoint: service.registrationUrl,
    code_challenge_methods_supported: ['S256'],
  };
  let published: unknown = null;
  try {
    const answer = await transport.get(`${origin}/.well-known/oauth-authorization-server`);
    if (answer.status === 200) published = answer.json;
  } catch (error) {
    if (!(error instanceof ImportFetchError)) throw error;
  }
  if (
    isObject(published) &&
    typeof published.issuer === 'string' &&
    published.authorization_endpoint === service.authorizationUrl &&
    published.token_endpoint === service.tokenUrl
  ) {
    composed.issuer = published.issuer;
    // http only for a platform whose own endpoints are http, which readServiceDescription allowed.
    const revocation = webUrl(published.revocation_endpoint, new URL(service.tokenUrl).protocol === 'http:');
    if (revocation) composed.revocation_endpoint = revocation;
    if (published.authorization_response_iss_parameter_supported === true) {
      composed.authorization_response_iss_parameter_supported = true;
    }
  }
  return composed;
}

/** The extensions every Configuration of a send gets: the guarded transport, and plain http only where private addresses are allowed. */
function execute(allowPrivate: boolean) {
  return allowPrivate ? [oidc.allowInsecureRequests] : [];
}

/**
 * RFC 7591 registration at the SDD's x-imssf-registrationUrl, by openid-client: it is handed the
 * composed metadata (a discovery URL answered from memory, as the SDD is the host's discovery)
 * and makes the registration request itself through the guarded transport.
 */
export async function registerClient(
  server: oidc.ServerMetadata,
  client: Partial<oidc.ClientMetadata>,
  transport: SendTransport,
  allowPrivate: boolean,
): Promise<oidc.ClientMetadata> {
  const metadataUrl = new URL('/.well-known/oauth-authorization-server', server.issuer);
  const registered = await oidc.dynamicClientRegistration(metadataUrl, client, undefined, {
    [oidc.customFetch]: (url, init) =>
      url === metadataUrl.href ? Promise.resolve(Response.json(server)) : transport.fetch(url, init),
    execute: execute(allowPrivate),
    timeout: 10,
  });
  return registered.clientMetadata();
}

/** The client of one remote platform, rebuilt from its stored registration on whichever replica runs the step. */
export function clientConfiguration(
  server: oidc.ServerMetadata,
  client: oidc.ClientMetadata,
  clientSecret: string | null,
  transport: SendTransport,
  allowPrivate: boolean,
): oidc.Configuration {
  const method = client.token_endpoint_auth_method;
  let auth: oidc.ClientAuth;
  if (!clientSecret || method === 'none') auth = oidc.None();
  else if (method === 'client_secret_post') auth = oidc.ClientSecretPost(clientSecret);
  else auth = oidc.ClientSecretBasic(clientSecret);
  const config = new oidc.Configuration(server, client.client_id, client, auth);
  config[oidc.customFetch] = transport.fetch;
  config.timeout = 10;
  for (const extension of execute(allowPrivate)) extension(config);
  return config;
}

/** An earner's message for what openid-client raised while talking to `host`, naming no token. */
export function refusalOf(host: string, error: unknown): RemoteRefusal {
  if (error instanceof RemoteRefusal) return error;
  if (error instanceof ImportFetchError) return new RemoteRefusal(error.message);
  if (error instanceof oidc.AuthorizationResponseError) {
    return error.error === 'access_denied'
      ? new RemoteRefusal(`You did not allow this service to send badges to ${host}.`, host)
      : new RemoteRefusal(`${host} did not authorize the send (${error.error.slice(0, 100)}).`);
  }
  if (error instanceof oidc.ResponseBodyError) {
    const detail = error.error_description ? `: ${String(error.error_description).slice(0, 200)}` : '';
    return new RemoteRefusal(`${host} refused (${error.error.slice(0, 100)}${detail}).`);
  }
  if (error instanceof oidc.WWWAuthenticateChallengeError) {
    return new RemoteRefusal(`${host} did not accept the access it granted (HTTP ${error.status}).`);
  }
  if (error instanceof oidc.ClientError) {
    return new RemoteRefusal(`${host} did not answer as an OAuth 2.0 server does (${error.message.slice(0, 120)}).`);
  }
  throw error;
}
