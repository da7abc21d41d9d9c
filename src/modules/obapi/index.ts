import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import type { Core } from '../../core/context.js';
import { loadedOnce } from '../../core/loaded-once.js';
import type { AuditService } from '../audit/audit.service.js';
import type { BackpackModule } from '../backpack/index.js';
import type { ClrService } from '../clr/clr.service.js';
import type { VcService } from '../vc/vc.service.js';
import { createPollingJob } from '../webhooks/polling-job.js';
import { systemLookup } from '../webhooks/ssrf.js';
import { pruneExpired } from './oauth.adapter.js';
import { createOauthProvider } from './oauth.provider.js';
import { createObApiService } from './obapi.service.js';
import { createSendService } from './send.service.js';

/** How often expired authorization server state (codes, tokens, sessions, clients) is deleted. */
const PRUNE_INTERVAL_MS = 15 * 60_000;

/**
 * The Open Badges 3.0 API: its authorization server (oidc-provider) and its resource endpoints.
 * The provider is built at first use, its library imported then too: its keys come from the sealed
 * key store's secret, which a process that serves no OAuth request (the CLI, a worker) need not
 * have, and a replica that serves none does not hold the library in memory.
 */
export function createObApiModule(
  core: Core,
  deps: {
    audit: Pick<AuditService, 'append'>;
    vc: Pick<VcService, 'credential'>;
    backpack: Pick<BackpackModule, 'secrets' | 'onAccountDeleted' | 'onSignedOut' | 'imports'>;
    clr: Pick<ClrService, 'signedForAccount'>;
  },
) {
  const current = loadedOnce(async () => {
    const provider = await createOauthProvider(core.config, core.db, core.clock, deps.backpack.secrets, service.writes);
    return { provider, callback: provider.callback() };
  });
  const service = createObApiService(core, {
    audit: deps.audit,
    vc: deps.vc,
    clr: deps.clr,
    imports: deps.backpack.imports,
    provider: async () => (await current()).provider,
  });
  // The backpack as a client of other hosts' Open Badges APIs ("Send to another platform").
  const send = createSendService(core, {
    audit: deps.audit,
    vc: deps.vc,
    secrets: deps.backpack.secrets,
    lookup: systemLookup,
  });
  deps.backpack.onAccountDeleted((executor, accountId) => service.deleteAccountData(executor, accountId));
  deps.backpack.onAccountDeleted((executor, accountId) => send.deleteAccount(executor, accountId));
  deps.backpack.onSignedOut((executor, accountId) => service.endLoginSessions(executor, accountId));
  // Every replica prunes; a delete of expired rows is the same whoever runs it (oauth.adapter.ts).
  const prune = createPollingJob({
    name: 'oauth-prune',
    intervalMs: PRUNE_INTERVAL_MS,
    log: core.log,
    pass: async () => {
      await pruneExpired(core.db, core.clock);
      await send.pruneExpired();
    },
  });
  return {
    ...service,
    send,
    jobs: [prune],
    provider: async (): Promise<Provider> => (await current()).provider,
    callback: async (request: IncomingMessage, response: ServerResponse) =>
      (await current()).callback(request, response),
  };
}

export type ObApiModule = ReturnType<typeof createObApiModule>;
