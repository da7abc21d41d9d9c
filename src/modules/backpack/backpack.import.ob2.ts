import type { ImportFetch } from './backpack.fetch.js';
import { type Checked, identityMatches, parseForeignJson, Unverifiable, unverified } from './backpack.import.verify.js';

type Json = Record<string, unknown>;

const asObject = (value: unknown): Json | null =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : null;
const asArray = (value: unknown): unknown[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);
const text = (value: unknown, fallback = ''): string => (typeof value === 'string' ? value.slice(0, 2000) : fallback);
const types = (document: Json) => asArray(document.type).map(String);

/** What the backpack shows of a hosted Open Badges 2.0 assertion, and the outcome of its check. */
export interface Ob2Import {
  key: string;
  document: Json;
  name: string;
  description: string;
  issuerName: string;
  issuerId: string;
  imageUrl: string | null;
  issuedOn: string | null;
  expiresOn: string | null;
  checked: Checked;
}

const isHttpUrl = (value: unknown): value is string =>
  typeof value === 'string' && /^https?:\/\//i.test(value) && URL.canParse(value);

async function document(fetch: ImportFetch, url: string, what: string): Promise<{ json: Json; gone: boolean }> {
  const answer = await fetch(url);
  if (answer.status !== 200 && answer.status !== 410) {
    throw new Unverifiable(`${what} at ${url.slice(0, 200)} answered HTTP ${answer.status}.`);
  }
  return { json: parseForeignJson(answer.body, what), gone: answer.status === 410 };
}

/** A BadgeClass or Issuer given by URL (fetched) or embedded (read as it is). */
async function linked(fetch: ImportFetch, value: unknown, what: string): Promise<Json> {
  if (isHttpUrl(value)) return (await document(fetch, value, what)).json;
  const embedded = asObject(value);
  if (!embedded) throw new Unverifiable(`The assertion has no ${what}.`);
  return embedded;
}

/**
 * OB 2.0 §"Hosted verification": the assertion's `id` is fetched and the answer must carry that
 * same `id`, with `verification.type` hosted; its Issuer Profile must be on the assertion's origin,
 * or allow it by `verification.allowedOrigins` / `startsWith` (Issuer's VerificationObject). A
 * revoked assertion answers `revoked: true` (410 under OB 2.0 §"Revocation"); the recipient's email
 * IdentityObject must be the earner's address. Signed OB 2.0 assertions are not checked.
 */
export async function checkHostedAssertion(
  fetch: ImportFetch,
  url: string,
  address: string | null,
  now: Date,
): Promise<Ob2Import> {
  if (!isHttpUrl(url)) throw new Unverifiable('An Open Badges 2.0 assertion is imported by its URL.');
  const fetched = await document(fetch, url, 'The assertion');
  const assertion = fetched.json;
  const view: Ob2Import = {
    key: url,
    document: assertion,
    name: 'Open Badges 2.0 badge',
    description: '',
    issuerName: new URL(url).host,
    issuerId: new URL(url).origin,
    imageUrl: null,
    issuedOn: typeof assertion.issuedOn === 'string' ? assertion.issuedOn : null,
    expiresOn: typeof assertion.expires === 'string' ? assertion.expires : null,
    checked: { status: 'unverified', reason: null },
  };
  try {
    if (!types(assertion).includes('Assertion'))
      throw new Unverifiable('The document is not an Open Badges 2.0 Assertion.');
    if (assertion.id !== url) throw new Unverifiable('The assertion is not hosted at the address it names as its id.');
    if (assertion.revoked === true || fetched.gone) {
      view.checked = { status: 'revoked', reason: text(assertion.revocationReason) || null };
      return view;
    }
    const verification = asObject(assertion.verification);
    const kind = String(verification?.type ?? '');
    if (kind !== 'hosted' && kind !== 'HostedBadge') {
      throw new Unverifiable('Only hosted Open Badges 2.0 assertions are checked; this one is signed.');
    }
    const badge = await linked(fetch, assertion.badge, 'BadgeClass');
    view.name = text(badge.name, view.name);
    view.description = text(badge.description);
    view.imageUrl = isHttpUrl(assertion.image) ? assertion.image : isHttpUrl(badge.image) ? badge.image : null;
    const issuer = await linked(fetch, badge.issuer, 'Issuer');
    view.issuerName = text(issuer.name, view.issuerName);
    if (typeof issuer.id === 'string') view.issuerId = issuer.id;
    if (!hostedBy(issuer, url)) throw new Unverifiable('The assertion is not hosted where its issuer allows.');
    const recipient = asObject(assertion.recipient);
    if (address === null) throw new Unverifiable('Sign in again so the backpack can check the badge is yours.');
    if (recipient?.type !== 'email' || !identityMatches(recipient, address)) {
      throw new Unverifiable('The badge was issued to another address than the one you signed in with.');
    }
    if (view.expiresOn && new Date(view.expiresOn) <= now) view.checked = { status: 'expired', reason: null };
    else view.checked = { status: 'verified', reason: null };
  } catch (error) {
    view.checked = unverified(error);
  }
  return view;
}

/** OB 2.0 Issuer VerificationObject: the default is the issuer's own origin. */
function hostedBy(issuer: Json, assertionUrl: string): boolean {
  const assertion = new URL(assertionUrl);
  const verification = asObject(issuer.verification);
  const origins = asArray(verification?.allowedOrigins).map(String);
  const prefixes = asArray(verification?.startsWith).map(String);
  if (origins.length > 0 || prefixes.length > 0) {
    return origins.includes(assertion.host) || prefixes.some((p) => p !== '' && assertionUrl.startsWith(p));
  }
  return isHttpUrl(issuer.id) && new URL(issuer.id).origin === assertion.origin;
}
