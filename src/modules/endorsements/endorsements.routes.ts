import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import {
  DECISIONS,
  type Decision,
  ENDORSEMENT_ACCEPTED_MAX,
  ENDORSEMENT_CLAIM_MAX,
  ENDORSEMENT_PENDING_MAX,
  type EndorsementStatus,
} from '../../core/endorsement-limits.js';
import { errorResponses, IdParams, keyedErrors } from '../../core/schemas.js';
import type { EndorsementCredentialsTable as EndorsementCredentialRow } from '../../db/schema.js';
import {
  CreateEndorsementBody,
  EndorsementSchema,
  type EndorsementTargetType,
  GiveEndorsementBody,
  type GivenEndorsement,
  GivenEndorsementSchema,
  ReceivedEndorsementSchema,
  ReceivedEndorsementsQuery,
} from './endorsements.schemas.js';

const Endorsement = Type.Ref(EndorsementSchema);
const Given = Type.Ref(GivenEndorsementSchema);
const Received = Type.Ref(ReceivedEndorsementSchema);

function toGiven(row: EndorsementCredentialRow): GivenEndorsement {
  const credential = JSON.parse(row.credential) as GivenEndorsement['credential'] & {
    credentialSubject: { id: string };
  };
  return {
    id: row.id,
    endorserIssuerId: row.endorser_issuer_id,
    endorsedIssuerId: row.endorsed_issuer_id,
    definitionId: row.definition_id,
    badgeClass: credential.credentialSubject.id,
    claim: row.claim,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
    status: row.status as EndorsementStatus,
    decidedAt: row.decided_at,
    credential,
  };
}

/** The three decisions of the endorsed issuer, each its own operation. */
const decisions: { decision: Decision; summary: string }[] = [
  {
    decision: 'accept',
    summary: `Accept an endorsement of one of this issuer's definitions: credentials of that definition signed from now on embed it (at most ${ENDORSEMENT_ACCEPTED_MAX} accepted per definition; 409 endorsement_limit beyond, 409 endorsement_final when removed or revoked by its endorser)`,
  },
  {
    decision: 'reject',
    summary:
      'Reject an endorsement of one of this issuer’s definitions: credentials signed from now on do not embed it; it can still be accepted later (409 endorsement_final when removed)',
  },
  {
    decision: 'remove',
    summary:
      'Remove an endorsement of one of this issuer’s definitions for good: never embedded again, never accepted again, and its endorser cannot give that definition another until it revokes this one',
  },
];

/** The same four operations exist for definitions and for credentials. */
const targets: { targetType: EndorsementTargetType; path: string; noun: string; suffix: string }[] = [
  { targetType: 'definition', path: '/api/v1/definitions/:id/endorsements', noun: 'definition', suffix: 'Definition' },
  { targetType: 'credential', path: '/api/v1/credentials/:id/endorsements', noun: 'credential', suffix: 'Credential' },
];

export const endorsementRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { endorsements, vc } = app.services;
  const tags = ['Endorsements'];

  app.get(
    '/api/v1/endorsements/received',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'listReceivedEndorsements',
        tags,
        summary: "Endorsements other issuers gave this issuer's definitions, oldest first",
        description:
          'Every endorsement another issuer of this service signed for one of this issuer’s definitions, whatever its status: pending until accepted, and only accepted ones are embedded in the credentials this issuer signs. Filter by status or definition; pages of at most 200.',
        querystring: ReceivedEndorsementsQuery,
        response: { 200: Type.Array(Received), ...errorResponses(400, ...keyedErrors) },
      },
    },
    async (request) => vc.receivedEndorsements.list(request.issuerId(), request.query),
  );

  for (const { decision, summary } of decisions) {
    app.post(
      `/api/v1/endorsements/received/:id/${decision}`,
      {
        config: { auth: 'key' },
        schema: {
          operationId: `${decision}ReceivedEndorsement`,
          tags,
          summary,
          description: `${summary}. Deciding the same thing twice changes nothing more. Audited as endorsement.${DECISIONS[decision]}. Another issuer's endorsement is 404.`,
          params: IdParams,
          response: { 200: Received, ...errorResponses(404, 409, ...keyedErrors) },
        },
      },
      async (request) =>
        vc.receivedEndorsements.decide(request.issuerId(), request.actor(), request.params.id, decision),
    );
  }

  app.post(
    '/api/v1/endorsements/given',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'giveEndorsement',
        tags,
        summary:
          "Endorse another issuer's definition with this issuer's own key (a signed OB 3.0 EndorsementCredential)",
        description: `The endorsement is pending until the endorsed issuer accepts it (POST /api/v1/endorsements/received/{id}/accept); only then is it embedded in that issuer's signed credentials. One endorsement not revoked per endorser and definition (409 already_endorsed), at most ${ENDORSEMENT_PENDING_MAX} pending per definition (409 endorsement_limit), a claim of at most ${ENDORSEMENT_CLAIM_MAX} characters; an issuer cannot endorse its own definitions (400).`,
        body: GiveEndorsementBody,
        response: { 201: Given, ...errorResponses(400, 404, 409, ...keyedErrors) },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send(toGiven(await vc.credentials.giveEndorsement(request.issuerId(), request.actor(), request.body))),
  );

  app.get(
    '/api/v1/endorsements/given',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'listGivenEndorsements',
        tags,
        summary: "The endorsements this issuer signed for other issuers' definitions, oldest first",
        response: { 200: Type.Array(Given), ...errorResponses(...keyedErrors) },
      },
    },
    async (request) => (await vc.credentials.givenEndorsements(request.issuerId())).map(toGiven),
  );

  app.post(
    '/api/v1/endorsements/given/:id/revoke',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'revokeGivenEndorsement',
        tags,
        summary:
          'Revoke an endorsement this issuer gave: its status bit flips, and credentials signed from now on stop listing it',
        params: IdParams,
        response: { 200: Given, ...errorResponses(404, ...keyedErrors) },
      },
    },
    async (request) =>
      toGiven(await vc.credentials.revokeGivenEndorsement(request.issuerId(), request.actor(), request.params.id)),
  );

  for (const { targetType, path, noun, suffix } of targets) {
    app.post(
      path,
      {
        config: { auth: 'key' },
        schema: {
          operationId: `endorse${suffix}`,
          tags,
          summary: `Endorse a ${noun}; the endorsement is hosted as an Open Badges 2.0 Endorsement`,
          params: IdParams,
          body: CreateEndorsementBody,
          response: { 201: Endorsement, ...errorResponses(400, 404, ...keyedErrors) },
        },
      },
      async (request, reply) =>
        reply
          .status(201)
          .send(
            await endorsements.create(request.issuerId(), request.actor(), targetType, request.params.id, request.body),
          ),
    );

    app.get(
      path,
      {
        config: { auth: 'key' },
        schema: {
          operationId: `list${suffix}Endorsements`,
          tags,
          summary: `A ${noun}'s endorsements in creation order (empty for an unknown ${noun})`,
          params: IdParams,
          response: { 200: Type.Array(Endorsement), ...errorResponses(...keyedErrors) },
        },
      },
      async (request) => endorsements.list(request.issuerId(), targetType, request.params.id),
    );
  }
};
