import { readFileSync } from 'node:fs';
import { type CliCommand, parseOptions, requireOption, UsageError } from './context.js';

const USAGE = `sso set --issuer <slug> [--provider <name>] [--issuer-url <url>] [--client-id <id>]
    [--client-secret-file <path>] [--domain <domain>|none] [--password on|off]
sso show --issuer <slug>
sso remove --issuer <slug>`;

function onOff(value: string | undefined, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (value !== 'on' && value !== 'off') throw new UsageError('--password must be on or off');
  return value === 'on';
}

/**
 * The issuer's OpenID Connect provider for console sign-in, set by the operator (actor `cli`), as
 * owners do in Settings. The client secret is read from a file, never from the command line (which
 * other users of the machine and the shell history can read); a change without one keeps the secret.
 */
export const ssoCommand: CliCommand = async (args, ctx) => {
  const [action, ...rest] = args;
  const values = parseOptions(rest, {
    issuer: { type: 'string' },
    provider: { type: 'string' },
    'issuer-url': { type: 'string' },
    'client-id': { type: 'string' },
    'client-secret-file': { type: 'string' },
    domain: { type: 'string' },
    password: { type: 'string' },
  });
  const { sso } = ctx.services.accounts;
  const issuer = await ctx.services.issuers.getIssuerBySlug(requireOption(values, 'issuer'));
  if (action === 'show') {
    const settings = await sso.settings(issuer.id);
    ctx.out(`Provider: ${settings.providerName} (${settings.issuerUrl}), client ${settings.clientId}`);
    ctx.out(`Domain sign-in (viewer): ${settings.allowedDomain ?? 'none'}`);
    ctx.out(`Password sign-in: ${settings.passwordSignIn ? 'on' : 'off'}`);
    ctx.out(`Redirect URI to register at the provider: ${settings.redirectUri}`);
    ctx.out(`Login page: ${settings.signInUrl}`);
    return 0;
  }
  if (action === 'remove') {
    await sso.remove(issuer.id, 'cli');
    ctx.out('Removed the sign-in provider; password sign-in works again.');
    return 0;
  }
  if (action !== 'set') throw new UsageError(USAGE);
  const current = await sso.settings(issuer.id).catch(() => null);
  const pick = (name: 'provider' | 'issuer-url' | 'client-id', kept: string | undefined) => {
    const value = values[name] ?? kept;
    if (value === undefined) throw new UsageError(`--${name} is required when setting up a provider`);
    return value;
  };
  const secretFile = values['client-secret-file'];
  const domain = values.domain ?? current?.allowedDomain ?? 'none';
  const settings = await sso.configure(
    issuer.id,
    {
      providerName: pick('provider', current?.providerName),
      issuerUrl: pick('issuer-url', current?.issuerUrl),
      clientId: pick('client-id', current?.clientId),
      clientSecret: secretFile === undefined ? undefined : readFileSync(secretFile, 'utf8').trim(),
      allowedDomain: domain === 'none' ? null : domain,
      passwordSignIn: onOff(values.password, current?.passwordSignIn ?? true),
    },
    'cli',
  );
  ctx.out(`Sign-in provider set: ${settings.providerName}. Register this redirect URI at the provider:`);
  ctx.out(settings.redirectUri);
  ctx.out(`Staff sign in at ${settings.signInUrl}`);
  return 0;
};
