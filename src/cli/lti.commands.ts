import { parseArgs } from 'node:util';
import { type CliCommand, printTable, UsageError } from './context.js';

const USAGE = 'lti keys rotate [--issuer <slug> [--force]] | lti keys list [--issuer <slug>]';

/**
 * `accolade lti keys ...`: the LTI tool's RS256 keys (Security Framework 1.0 §6.3). Without
 * --issuer, the service key, which signs for every issuer that has no key of its own; with it, that
 * issuer's own key (as its owner's POST /api/v1/lti/tool/keys/rotate, audited with actor `cli`;
 * --force skips the hour between rotations, after a suspected compromise). The replaced key stays
 * in /lti/jwks for its overlap window. Only public key ids are printed.
 */
export const ltiCommand: CliCommand = async (args, ctx) => {
  const [group, action, ...rest] = args;
  if (group !== 'keys') throw new UsageError(USAGE);
  const { values } = parseArgs({
    args: rest,
    options: { issuer: { type: 'string' }, force: { type: 'boolean' } },
    strict: true,
  });
  const { keys } = ctx.services.lti;
  const issuer = values.issuer ? await ctx.services.issuers.getIssuerBySlug(values.issuer) : null;
  switch (action) {
    case 'rotate': {
      const rotation = issuer
        ? await keys.rotateForIssuer(issuer.id, 'cli', { force: values.force === true })
        : await keys.rotateService();
      const whose = issuer ? `Issuer ${issuer.slug}'s LTI tool key` : 'The LTI service tool key';
      ctx.out(`${whose} ${rotation.kid} signs from now on.`);
      if (rotation.retiredKid) {
        ctx.out(`${rotation.retiredKid} stays in /lti/jwks until ${rotation.retiredPublishedUntil} at the latest.`);
      }
      return 0;
    }
    case 'list': {
      if (!issuer) {
        const { keys: published } = await keys.jwks();
        printTable(
          ctx.out,
          ['kid'],
          published.map((key) => [String(key.kid)]),
          'No LTI tool key yet.',
        );
        return 0;
      }
      printTable(
        ctx.out,
        ['kid', 'holder', 'signs', 'created', 'retired', 'published until'],
        (await keys.list(issuer.id)).map((key) => [
          key.kid,
          key.holder,
          key.signs ? 'yes' : 'no',
          key.createdAt,
          key.retiredAt ?? '-',
          key.publishedUntil ?? '-',
        ]),
        'No LTI tool key yet.',
      );
      return 0;
    }
    default:
      throw new UsageError(USAGE);
  }
};
