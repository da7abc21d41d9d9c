/* The calls of the untyped JSON-LD processor (Digital Bazaar's jsonld) the tests and bench/jsonld-budget.ts make. */
declare module 'jsonld' {
  const jsonld: {
    expand(
      input: object,
      options: {
        documentLoader: (url: string) => Promise<{ document: unknown; documentUrl: string; contextUrl: null }>;
        safe: boolean;
      },
    ): Promise<unknown[]>;
    toRDF(
      input: object,
      options: {
        documentLoader: (url: string) => Promise<{ document: unknown; documentUrl: string; contextUrl: null }>;
      },
    ): Promise<unknown[]>;
    canonize(
      input: object,
      options: {
        algorithm: 'URDNA2015';
        format: 'application/n-quads';
        documentLoader: (url: string) => Promise<{ document: unknown; documentUrl: string; contextUrl: null }>;
        safe: boolean;
      },
    ): Promise<string>;
  };
  export default jsonld;
}
