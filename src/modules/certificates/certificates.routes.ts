import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errorResponses, IdParams, keyedErrors } from '../../core/schemas.js';
import {
  CertificateDesignBody,
  CertificateSettingsBody,
  CertificateSettingsSchema,
  DefinitionCertificateSchema,
} from './certificates.schemas.js';

const tags = ['Certificates'];
const DefinitionCertificate = Type.Ref(DefinitionCertificateSchema);
const CertificateSettings = Type.Ref(CertificateSettingsSchema);

export const certificateRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { certificates } = app.services;

  app.get(
    '/api/v1/definitions/:id/certificate',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'getDefinitionCertificate',
        tags,
        summary: "The certificate design of a definition: its own, else the issuer's default, else the built-in one",
        description:
          '`source` says which applies. Another issuer’s or an unknown definition is 404. Any console role may read it.',
        params: IdParams,
        response: { 200: DefinitionCertificate, ...errorResponses(400, 404, ...keyedErrors) },
      },
    },
    async (request) => certificates.definitionDesign(request.issuerId(), request.params.id),
  );

  app.put(
    '/api/v1/definitions/:id/certificate',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'putDefinitionCertificate',
        tags,
        summary: "Set the definition's own certificate design (fields left out take the built-in defaults)",
        description:
          'The wording may hold {earnerName}, {badgeName}, {issuerName}, {issuedOn}, {expiresOn} and {credentialId}. Images are PNGs uploaded with POST /api/v1/images. `enabled: false` turns certificates off for this definition. Existing credentials show the new design at their next download.',
        params: IdParams,
        body: CertificateDesignBody,
        response: { 200: DefinitionCertificate, ...errorResponses(400, 404, ...keyedErrors) },
      },
    },
    async (request) =>
      certificates.saveDefinitionDesign(request.issuerId(), request.actor(), request.params.id, request.body),
  );

  app.delete(
    '/api/v1/definitions/:id/certificate',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'deleteDefinitionCertificate',
        tags,
        summary: "Remove the definition's own design: it takes the issuer's default again",
        description:
          'Answers 204 whether or not the definition had a design of its own; removing one is audited (`certificate_design.removed`). Existing credentials show the default at their next download.',
        params: IdParams,
        response: {
          204: Type.Null({ description: 'Removed (or there was none)' }),
          ...errorResponses(400, 404, ...keyedErrors),
        },
      },
    },
    async (request, reply) => {
      await certificates.removeDefinitionDesign(request.issuerId(), request.actor(), request.params.id);
      return reply.status(204).send(null);
    },
  );

  app.get(
    '/api/v1/certificates/settings',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'getCertificateSettings',
        tags,
        summary: "The issuer's default certificate design and country",
        description:
          'The built-in design (version 0) until one is saved. It applies to every definition without a design of its own.',
        response: { 200: CertificateSettings, ...errorResponses(...keyedErrors) },
      },
    },
    async (request) => certificates.settings(request.issuerId()),
  );

  app.put(
    '/api/v1/certificates/settings',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'putCertificateSettings',
        tags,
        summary: 'Set the default certificate design of every definition without its own, and the country',
        description:
          'The country (ISO 3166-1 alpha-2) decides the paper of `size: auto` (US Letter in the Americas that use it, else A4) and, with the notification language, how dates are written.',
        body: CertificateSettingsBody,
        response: { 200: CertificateSettings, ...errorResponses(400, ...keyedErrors) },
      },
    },
    async (request) => certificates.saveSettings(request.issuerId(), request.actor(), request.body),
  );

  app.get(
    '/api/v1/credentials/:id/certificate.pdf',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'getCredentialCertificate',
        tags,
        summary: 'The certificate of a credential (PDF/A-3, tagged, with the signed OB 3.0 credential embedded)',
        description:
          "Shows the earner's full stored name, so it is served only to the issuer's staff. The embedded file `open-badges-credential.json` is the hosted Data Integrity credential byte for byte; the QR code opens the verification page. 410 once the credential is revoked or erased; 422 when it cannot be printed truly (no stored name, or a character no certificate font has).",
        params: IdParams,
        response: {
          200: {
            description: 'The certificate',
            content: { 'application/pdf': { schema: Type.String({ format: 'binary' }) } },
          },
          ...errorResponses(404, 410, 422, ...keyedErrors),
        },
      },
    },
    async (request, reply) => {
      const pdf = await certificates.pdf(request.issuerId(), request.params.id);
      return reply
        .header('content-type', 'application/pdf')
        .header('content-disposition', `attachment; filename="certificate-${request.params.id}.pdf"`)
        .header('cache-control', 'private, no-cache')
        .send(pdf);
    },
  );
};
