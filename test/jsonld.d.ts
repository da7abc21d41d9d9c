/* The one call of the untyped JSON-LD processor (Digital Bazaar's jsonld) the tests make. */
declare module 'jsonld' {
  const jsonld: {
    expand(
      input: object,
      options: {
        documentLoader: (url: string) => Promise<{ document: unknown; documentUrl: string; contextUrl: null }>;
        safe: boolean;
      },
    ): Promise<unknown[]>;
  };
  export default jsonld;
}
