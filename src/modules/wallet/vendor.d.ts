/*
 * The parts of the untyped Ed25519Signature2020 libraries the Learner Credential Wallet exchange
 * calls, and the presentation functions of @digitalbazaar/vc (its other parts: ../vc/vendor.d.ts).
 */

declare module '@digitalbazaar/vc' {
  export function verify(options: {
    presentation: object;
    challenge: string;
    suite: unknown;
    documentLoader: DocumentLoader;
  }): Promise<VerifyResult>;
  export function createPresentation(options: {
    holder: string;
    verifiableCredential?: object[];
  }): Record<string, unknown>;
  export function signPresentation(options: {
    presentation: object;
    suite: unknown;
    challenge: string;
    documentLoader: DocumentLoader;
  }): Promise<Record<string, unknown>>;
}

declare module '@digitalbazaar/ed25519-signature-2020' {
  export class Ed25519Signature2020 {
    constructor(options?: { key?: unknown; signer?: unknown });
  }
}

declare module '@digitalbazaar/ed25519-verification-key-2020' {
  export class Ed25519VerificationKey2020 {
    static generate(options?: { controller?: string }): Promise<Ed25519VerificationKey2020>;
    id: string;
    controller: string;
    publicKeyMultibase: string;
    fingerprint(): string;
    signer(): unknown;
  }
}

declare module 'ed25519-signature-2020-context' {
  const api: { contexts: Map<string, object>; CONTEXT_URL: string };
  export default api;
}
