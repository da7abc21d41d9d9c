import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { LRUCache } from 'lru-cache';
import type { Clock } from '../../core/clock.js';
import { MEDIA } from './lti.constants.js';
import { PlatformCallError, type PlatformHttp } from './lti.http.js';
import type { ToolKeys } from './lti.keys.js';
import type { LtiPlatformsTable } from './lti.tables.js';

/** Pages followed per list (AGS results, NRPS members): 100 pages of the platform's size, then stop. */
const MAX_PAGES = 100;
const ASSERTION_SECONDS = 300;

export interface Member {
  userId: string;
  name: string | null;
  email: string | null;
  roles: string[];
  active: boolean;
}

export interface Result {
  userId: string;
  /** Percent of the maximum, or null when the platform has no score for the learner. */
  percent: number | null;
}

/** The next page of an LTI list: `Link: <url>; rel="next"` (AGS 2.0 §3.2.7 and NRPS 2.0 §2.4.1 "Paging"). */
export function nextLink(header: string | null): string | null {
  if (!header) return null;
  for (const part of header.split(',')) {
    const match = /<([^>]+)>\s*;(.*)/.exec(part.trim());
    if (match?.[1] && /rel\s*=\s*"?([^";]*\s)?next(\s[^";]*)?"?/i.test(match[2] ?? '')) return match[1];
  }
  return null;
}

/** The results URL of a line item: its path plus `/results`, its query kept (AGS 2.0 §3.2.2). */
export function resultsUrl(lineItem: string, userId?: string): string {
  const url = new URL(lineItem);
  url.pathname = `${url.pathname.replace(/\/$/, '')}/results`;
  if (userId !== undefined) url.searchParams.set('user_id', userId);
  return url.href;
}

const str = (value: unknown) => (typeof value === 'string' && value.length > 0 ? value : null);

/**
 * The LTI Advantage services the tool calls on a platform: an access token by the client
 * credentials grant with a `private_key_jwt` assertion (Security Framework 1.0 §4.1 "Using OAuth 2.0
 * Client Credentials Grant", §4.1.1 "Using JSON Web Tokens with OAuth 2.0 Client Credentials
 * Grant"), a line item's results (AGS 2.0 §3.2 "Result service") and a context's members (NRPS 2.0
 * §2 "Membership service"), every list followed through its `next` links.
 */
export function createAdvantage(http: PlatformHttp, keys: Pick<ToolKeys, 'current'>, clock: Clock) {
  const tokens = new LRUCache<string, { token: string; until: number }>({ max: 1000 });

  async function accessToken(platform: LtiPlatformsTable, scopes: string[]): Promise<string> {
    const cacheKey = `${platform.id} ${scopes.join(' ')}`;
    const now = clock.now().getTime();
    const cached = tokens.get(cacheKey);
    if (cached && cached.until > now) return cached.token;
    const key = await keys.current(platform.issuer_id);
    const seconds = Math.floor(now / 1000);
    const assertion = await new SignJWT({ jti: randomUUID() })
      .setProtectedHeader({ alg: 'RS256', kid: key.kid, typ: 'JWT' })
      .setIssuer(platform.client_id)
      .setSubject(platform.client_id)
      .setAudience(platform.token_audience ?? platform.token_url)
      .setIssuedAt(seconds)
      .setExpirationTime(seconds + ASSERTION_SECONDS)
      .sign(key.privateKey);
    const answer = await http.postForm(platform.token_url, {
      grant_type: 'client_credentials',
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: assertion,
      scope: scopes.join(' '),
    });
    const body = answer.json as { access_token?: unknown; expires_in?: unknown } | null;
    const token = str(body?.access_token);
    if (answer.status !== 200 || !token)
      throw new PlatformCallError(`The platform refused an access token (HTTP ${answer.status}).`);
    const lifetime = typeof body?.expires_in === 'number' ? body.expires_in : 3600;
    tokens.set(cacheKey, { token, until: now + Math.max(0, lifetime - 30) * 1000 });
    return token;
  }

  async function pages<T>(first: string, accept: string, token: string, itemsOf: (body: unknown) => T[]): Promise<T[]> {
    const items: T[] = [];
    let url: string | null = first;
    for (let page = 0; url !== null && page < MAX_PAGES; page++) {
      const answer = await http.getJson(url, accept, token);
      if (answer.status !== 200) throw new PlatformCallError(`The platform answered HTTP ${answer.status} for a list.`);
      items.push(...itemsOf(answer.json));
      url = nextLink(answer.headers.get('link'));
    }
    return items;
  }

  return {
    accessToken,

    async results(platform: LtiPlatformsTable, lineItem: string, scopes: string[], userId?: string): Promise<Result[]> {
      const token = await accessToken(platform, scopes);
      return pages(resultsUrl(lineItem, userId), MEDIA.results, token, (body) =>
        (Array.isArray(body) ? body : []).flatMap((raw: Record<string, unknown>) => {
          const user = str(raw?.userId);
          if (!user) return [];
          const score = typeof raw.resultScore === 'number' ? raw.resultScore : null;
          const max = typeof raw.resultMaximum === 'number' && raw.resultMaximum > 0 ? raw.resultMaximum : 1;
          return [{ userId: user, percent: score === null ? null : (score / max) * 100 }];
        }),
      );
    },

    async members(platform: LtiPlatformsTable, membershipsUrl: string, scopes: string[]): Promise<Member[]> {
      const token = await accessToken(platform, scopes);
      return pages(membershipsUrl, MEDIA.memberships, token, (body) => {
        const members = (body as { members?: unknown } | null)?.members;
        return (Array.isArray(members) ? members : []).flatMap((raw: Record<string, unknown>) => {
          const userId = str(raw?.user_id);
          if (!userId) return [];
          const given = [str(raw.given_name), str(raw.family_name)].filter(Boolean).join(' ');
          return [
            {
              userId,
              name: str(raw.name) ?? (given || null),
              email: str(raw.email),
              roles: Array.isArray(raw.roles) ? raw.roles.filter((r): r is string => typeof r === 'string') : [],
              active: raw.status === undefined || raw.status === 'Active',
            },
          ];
        });
      });
    },
  };
}

export type Advantage = ReturnType<typeof createAdvantage>;
