import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type SerializerFactory = ReturnType<typeof SerializerSelector>;
type Serializer = ReturnType<ReturnType<SerializerFactory>>;

/**
 * Fastify's own response serializers (fast-json-stringify, through the compiler Fastify uses by
 * default), each compiled at its route's first answer with that status instead of at start.
 * Compiling all of them at start was about 3.8 s of CPU (and json-schema-ref-resolver's 0.9 s of
 * it) before the server answered anything (docs/decisions.md, "Start in a second"). Once compiled,
 * a route serializes with the same function as before.
 *
 * Each route gets its own copy of the shared schemas: Fastify's compiler takes a schema out of the
 * copy it keeps when a response schema carries that schema's `$id`, so with one copy the schemas a
 * route could resolve would depend on the order in which routes were first answered.
 *
 * `atFirstUse: false` compiles at route registration, as Fastify does by default (tests use it to
 * prove that every response schema compiles).
 */
export function serializerFactory(atFirstUse: boolean): SerializerFactory {
  const build = SerializerSelector();
  return (externalSchemas, options) => (route) => {
    const compile = () => build(externalSchemas, options)(route);
    if (!atFirstUse) return compile();
    let serialize: Serializer | undefined;
    return (doc) => {
      serialize ??= compile();
      return serialize(doc);
    };
  };
}
