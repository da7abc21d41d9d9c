import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { Role } from '../src/core/context.js';

export const PASSWORD = 'correct horse battery staple';

export interface ConsoleUser {
  userId: string;
  email: string;
  cookie: string;
  csrf: string;
  /** Headers of a change made with this session: the cookie and the CSRF token. */
  headers: Record<string, string>;
}

/** The `accolade_session=<token>` pair of a response's Set-Cookie. */
export function sessionCookie(res: LightMyRequestResponse): string {
  const header = res.headers['set-cookie'];
  const line = Array.isArray(header) ? header[0] : header;
  const pair = line?.split(';')[0] ?? '';
  expect(pair).toMatch(/^accolade_session=[A-Za-z0-9_-]{43}$/);
  return pair;
}

let counter = 0;

/** Invites a user through the service and accepts through the API: a signed-in console session. */
export async function consoleUser(
  app: FastifyInstance,
  issuerId: string,
  role: Role,
  email = `staff-${process.pid}-${++counter}@example.org`,
): Promise<ConsoleUser> {
  const invited = await app.services.accounts.invite(issuerId, email, role, 'system');
  const token = invited.inviteUrl.split('/').pop() ?? '';
  const res = await app.inject({
    method: 'POST',
    url: `/api/v1/invites/${token}/accept`,
    payload: { password: PASSWORD },
  });
  expect(res.statusCode, res.body).toBe(200);
  const cookie = sessionCookie(res);
  const csrf = res.json().csrfToken as string;
  return { userId: invited.user.id, email, cookie, csrf, headers: { cookie, 'x-csrf-token': csrf } };
}
