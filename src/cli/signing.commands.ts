import { parseArgs } from 'node:util';
import { issuerDid, verificationMethodId } from '../modules/vc/did.js';
import { type CliCommand, requireOption, UsageError } from './context.js';

const USAGE = 'keys signing rotate --issuer <slug> | keys signing list --issuer <slug>';

/**
 * `accolade keys signing ...`: the issuers' Open Badges 3.0 signing keys. Rotation adds a key that
 * signs from then on; every earlier key stays in the DID document, so earlier credentials verify.
 * Only public keys are ever printed.
 */
export const signingKeysCommand: CliCommand = async (args, ctx) => {
  const [action, ...rest] = args;
  const { values } = parseArgs({ args: rest, options: { issuer: { type: 'string' } } });
  const { signingKeys } = ctx.services.vc;
  switch (action) {
    case 'rotate': {
      const issuer = await ctx.services.issuers.getIssuerBySlug(requireOption(values, 'issuer'));
      const key = await signingKeys.rotate(issuer.id, 'cli');
      const did = issuerDid(ctx.config.publicBaseUrl, issuer.slug);
      ctx.out(
        `Signing key ${verificationMethodId(did, key.version)} added (${key.publicKeyMultibase}); it signs from now on.`,
      );
      return 0;
    }
    case 'list': {
      const issuer = await ctx.services.issuers.getIssuerBySlug(requireOption(values, 'issuer'));
      const did = issuerDid(ctx.config.publicBaseUrl, issuer.slug);
      for (const key of await signingKeys.publicKeys(issuer.id)) {
        ctx.out(`${verificationMethodId(did, key.version)}\t${key.publicKeyMultibase}`);
      }
      return 0;
    }
    default:
      throw new UsageError(USAGE);
  }
};
