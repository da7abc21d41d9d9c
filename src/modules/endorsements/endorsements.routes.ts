import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errorResponses, IdParams, keyedErrors } from '../../core/schemas.js';
import type { EndorsementCredentialsTable as EndorsementCredentialRow } from '../../db/schema.js';
import {
  CreateEndorsementBody,
  EndorsementSchema,
  type EndorsementTargetType,
  GiveEndorsementBody,
  type GivenEndorsement,
  GivenEndorsementSchema,
} from './endorsements.schemas.js';

const Endorsement = Type.Ref(EndorsementSchema);
const Given = Type.Ref(GivenEndorsementSchema);

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
    credential,
  };
}

/** The same four operations exist for definitions and for credentials. */
const targets: { targetType: EndorsementTargetType; path: string; noun: string; suffix: string }[] = [
  { targetType: 'definition', path: '/api/v1/definitions/:id/endorsements', noun: 'definition', suffix: 'Definition' },
  { targetType: 'credential', path: '/api/v1/credentials/:id/endorsements', noun: 'credential', suffix: 'Credential' },
];

export const endorsementRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { endorsements, vc } = app.services;
  const tags = ['Endorsements'];

  app.post(
    '/api/v1/endorsements/given',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'giveEndorsement',
        tags,
        summary:
          "Endorse another issuer's definition with this issuer's own key (a signed OB 3.0 EndorsementCredential)",
        body: GiveEndorsementBody,
        response: { 201: Given, ...errorResponses(400, 404, ...keyedErrors) },
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
