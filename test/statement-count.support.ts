import { AsyncLocalStorage } from 'node:async_hooks';
import type { KyselyPlugin, PluginTransformResultArgs, QueryResult, UnknownRow } from 'kysely';

/**
 * Counts the statements run inside a scope's async context: the plugin sees every result, prepared
 * statements included, and counts only where `context.run(scope, ...)` entered a scope, so
 * background jobs' statements never count.
 */
export function statementCounter<Scope extends { statements: number }>() {
  const context = new AsyncLocalStorage<Scope>();
  const plugin: KyselyPlugin = {
    transformQuery: (args) => args.node,
    async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
      const scope = context.getStore();
      if (scope) scope.statements++;
      return args.result;
    },
  };
  return { context, plugin };
}
