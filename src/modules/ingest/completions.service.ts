import type { Core } from '../../core/context.js';
import { AppError, errors } from '../../core/errors.js';
import { autoCompletionKey } from '../credentials/issuance.batch.js';
import { type IssuanceService, issuedOnProblem } from '../credentials/issuance.service.js';
import type { DefinitionRow } from '../definitions/definitions.repository.js';
import type { DefinitionService } from '../definitions/definitions.service.js';
import type { IngestCompletionBody, IngestResult } from './completions.schemas.js';
import { createDefinitionResolver } from './definition-resolver.js';

export type CompletionIngestDeps = {
  definitions: Pick<DefinitionService, 'findRow' | 'listRows'>;
  issuance: Pick<IssuanceService, 'issue' | 'recipientHash' | 'toIssued' | 'heldCredential'>;
};

/** One completion from an LMS or automation: single issuance with definition lookup and a default key. */
export function createCompletionIngestService(core: Pick<Core, 'clock'>, deps: CompletionIngestDeps) {
  async function resolveDefinition(issuerId: string, body: IngestCompletionBody): Promise<DefinitionRow> {
    if (body.definitionId !== undefined) {
      const definition = await deps.definitions.findRow(issuerId, body.definitionId);
      if (!definition) throw errors.ingestFailed('definitionId does not match a definition.');
      return definition;
    }
    if (body.definitionRef !== undefined) {
      const resolver = createDefinitionResolver(await deps.definitions.listRows(issuerId));
      const lookup = resolver.byRef(body.definitionRef, 'definitionRef');
      if ('problem' in lookup) throw errors.ingestFailed(`${lookup.problem}.`);
      return lookup.definition;
    }
    throw errors.ingestFailed('Give definitionId or definitionRef to say which credential the completion earns.');
  }

  return {
    /**
     * 201 issued, 200 replay or a credential the recipient already holds (skipped), 422
     * ingest_failed when the completion cannot issue, 402 quota.
     */
    async ingest(issuerId: string, actor: string, body: IngestCompletionBody): Promise<IngestResult> {
      if (body.issuedOn !== undefined) {
        const problem = issuedOnProblem(body.issuedOn, core.clock.now());
        if (problem) throw errors.ingestFailed(problem);
      }
      const definition = await resolveDefinition(issuerId, body);
      let completionKey = body.completionKey;
      if (completionKey === undefined) {
        const recipientHash = await deps.issuance.recipientHash(issuerId, body.recipientEmail);
        // Without its own key, a completion the person already holds through another channel
        // answers with that credential instead of issuing a second one.
        const held = await deps.issuance.heldCredential(issuerId, definition.id, recipientHash);
        if (held) {
          return {
            ...deps.issuance.toIssued({ row: held, created: false }),
            completionKey: held.completion_key,
            outcome: 'skipped',
          };
        }
        completionKey = autoCompletionKey(definition.id, recipientHash);
      }
      try {
        const outcome = await deps.issuance.issue(issuerId, actor, {
          definitionId: definition.id,
          recipientEmail: body.recipientEmail,
          completionKey,
          recipientName: body.recipientName ?? null,
          evidenceUrl: body.evidenceUrl ?? null,
          issuedOn: body.issuedOn ?? null,
          language: body.language ?? null,
          source: 'ingest',
          notify: body.notify,
        });
        return {
          ...deps.issuance.toIssued(outcome),
          completionKey: outcome.row.completion_key,
          outcome: outcome.created ? 'issued' : 'skipped',
        };
      } catch (err) {
        // A replay of a known key still answers 200; only a new credential is refused here.
        if (err instanceof AppError && err.code === 'definition_archived') throw errors.ingestFailed(err.message);
        throw err;
      }
    },
  };
}

export type CompletionIngestService = ReturnType<typeof createCompletionIngestService>;
