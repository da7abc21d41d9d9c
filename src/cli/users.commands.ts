import type { Role } from '../core/context.js';
import { ROLES } from '../modules/accounts/accounts.service.js';
import { type CliCommand, parseOptions, requireOption, UsageError } from './context.js';

const USAGE = `users invite --issuer <slug> --email <address> --role ${ROLES.join('|')}`;

function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

/** Console users: the operator invites an issuer's first owner (owners invite the rest in the console). */
export const usersCommand: CliCommand = async (args, ctx) => {
  const [action, ...rest] = args;
  if (action !== 'invite') throw new UsageError(USAGE);
  const values = parseOptions(rest, {
    issuer: { type: 'string' },
    email: { type: 'string' },
    role: { type: 'string' },
  });
  const role = requireOption(values, 'role');
  if (!isRole(role)) throw new UsageError(`--role must be one of ${ROLES.join(', ')}`);
  const invited = await ctx.services.accounts.inviteToIssuer(
    requireOption(values, 'issuer'),
    requireOption(values, 'email'),
    role,
    'cli',
  );
  ctx.out(
    `Invited a console ${role} (user ${invited.user.id}); the link works once, until ${invited.inviteExpiresAt}:`,
  );
  ctx.out(invited.inviteUrl);
  return 0;
};
