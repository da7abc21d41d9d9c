import { loadedOnce } from '../../core/loaded-once.js';

/**
 * The Data Integrity signing and verifying libraries (jsonld and RDF canonicalisation under them),
 * imported at first use: a service that never signs or checks an OB 3.0 credential does not hold
 * them, about 6 MB of resident memory and 4 MB of heap (docs/decisions.md, memory).
 */
async function load() {
  const [vc, dataIntegrity, eddsa, multikey, statusList] = await Promise.all([
    import('@digitalbazaar/vc'),
    import('@digitalbazaar/data-integrity'),
    import('@digitalbazaar/eddsa-rdfc-2022-cryptosuite'),
    import('@digitalbazaar/ed25519-multikey'),
    import('@digitalbazaar/vc-bitstring-status-list'),
  ]);
  return {
    issue: vc.issue,
    verifyCredential: vc.verifyCredential,
    DataIntegrityProof: dataIntegrity.DataIntegrityProof,
    cryptosuite: eddsa.cryptosuite,
    multikeyFromJwk: multikey.fromJwk,
    multikeyFrom: multikey.from,
    multikeyToJwk: multikey.toJwk,
    createStatusList: statusList.createList,
    createStatusListCredential: statusList.createCredential,
  };
}

export type VcLibraries = Awaited<ReturnType<typeof load>>;

/** The libraries, loaded once; a failed load is tried again at the next call. */
export const vcLibraries: () => Promise<VcLibraries> = loadedOnce(load);
