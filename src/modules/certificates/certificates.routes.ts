import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errorResponses, IdParams, keyedErrors, openErrors } from '../../core/schemas.js';
import { EARNER_LINK_PATH, TOKEN_PATTERN } from './certificates.links.js';
import {
  CertificateDesignBody,
  CertificateLinkSchema,
  CertificatePreviewBody,
  CertificateSettingsBody,
  CertificateSettingsSchema,
  DefinitionCertificateSchema,
} from './certificates.schemas.js';
import { MANIFEST_FILE, ZipBusyError } from './certificates.zip.js';

const tags = ['Certificates'];
const DefinitionCertificate = Type.Ref(DefinitionCertificateSchema);
const CertificateSettings = Type.Ref(CertificateSettingsSchema);
const CertificateLink = Type.Ref(CertificateLinkSchema);
/**
 * What one download through an earner's link costs, in open requests of its address, charged before
 * the token is read: a render is worth about this many cheap requests, so an address gets a handful
 * of certificates a minute under the open limit whatever it sends.
 */
const EARNER_DOWNLOAD_COST = 30;
/** A preview is drawn afresh as the designer types: it costs its user this many requests of their limit. */
const PREVIEW_COST = 5;
/**
 * What a batch's ZIP costs its caller, in requests of their limit, charged before it starts; its
 * renders are further bounded by the ZIP slots (one per issuer, two per process) and run one at a
 * time as the client reads.
 */
const ZIP_COST = 30;
const zipResponse = {
  description: 'The certificates, one PDF per credential, and the manifest',
  content: { 'application/zip': { schema: Type.String({ format: 'binary' }) } },
};
const pdfResponse = {
  description: 'The certificate',
  content: { 'application/pdf': { schema: Type.String({ format: 'binary' }) } },
};

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
          200: pdfResponse,
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

  app.post(
    '/api/v1/certificates/preview',
    {
      config: { auth: 'key', rateLimitCost: () => PREVIEW_COST },
      schema: {
        operationId: 'previewCertificate',
        tags,
        summary: 'A design drawn as a PDF with sample values, before it is saved (the console’s live preview)',
        description: `The body is a design as PUT /definitions/{id}/certificate takes it, and optionally the definition whose name to print; a sample earner, date and credential id fill the rest, and no credential is embedded. Nothing is stored. Costs ${PREVIEW_COST} requests of the caller's limit.`,
        body: CertificatePreviewBody,
        response: { 200: pdfResponse, ...errorResponses(400, 404, 422, ...keyedErrors) },
      },
    },
    async (request, reply) => {
      const pdf = await certificates.preview(request.issuerId(), request.body);
      return reply
        .header('content-type', 'application/pdf')
        .header('content-disposition', 'inline; filename="certificate-preview.pdf"')
        .header('cache-control', 'no-store')
        .send(pdf);
    },
  );

  app.get(
    '/api/v1/credentials/:id/certificate-link',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'getCredentialCertificateLink',
        tags,
        summary: "The earner's own certificate link of a credential (what the award email gives them)",
        description:
          'An unguessable link to the certificate, for the earner only: it shows their full name. The same link each time until it is revoked. `url` is null when certificates are off for the badge or no name is stored. 410 once the credential is revoked or erased (a reissued or renewed credential has a link of its own).',
        params: IdParams,
        response: { 200: CertificateLink, ...errorResponses(404, 410, ...keyedErrors) },
      },
    },
    async (request) => certificates.staffLink(request.issuerId(), request.params.id),
  );

  app.post(
    '/api/v1/credentials/:id/certificate-link/revoke',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'revokeCredentialCertificateLink',
        tags,
        summary: "Withdraw the earner's certificate link (it answers 410) and answer the new one",
        description:
          'For a link that reached the wrong person. Audited (`certificate_link.revoked`). The credential itself stays valid.',
        params: IdParams,
        response: { 200: CertificateLink, ...errorResponses(404, 410, ...keyedErrors) },
      },
    },
    async (request) => certificates.revokeLink(request.issuerId(), request.actor(), request.params.id),
  );

  app.get(
    `${EARNER_LINK_PATH}/:token`,
    {
      config: { rateLimitCost: () => EARNER_DOWNLOAD_COST },
      schema: {
        operationId: 'getEarnerCertificate',
        tags,
        summary: "The earner's certificate through their own link (PDF)",
        description: `Open, but the token is a capability: only the link handed to the earner (award email, wallet offer page) opens it. One download costs ${EARNER_DOWNLOAD_COST} requests of the address's open limit, charged before anything is read. 404 for a token that is not a link of this service or when certificates are off for the badge; 410 for a withdrawn link and for a revoked or erased credential; 422 when it cannot be printed truly.`,
        params: Type.Object({ token: Type.String({ pattern: TOKEN_PATTERN }) }),
        response: { 200: pdfResponse, ...errorResponses(400, 404, 410, 422, ...openErrors) },
      },
    },
    async (request, reply) => {
      const pdf = await certificates.pdfByLink(request.params.token);
      return reply
        .header('content-type', 'application/pdf')
        .header('content-disposition', 'inline; filename="certificate.pdf"')
        .header('cache-control', 'private, no-store')
        .header('x-robots-tag', 'noindex, nofollow')
        .send(pdf);
    },
  );

  app.get(
    '/api/v1/ingest/imports/:id/certificates.zip',
    {
      config: { auth: 'key', rateLimitCost: () => ZIP_COST },
      schema: {
        operationId: 'getImportCertificates',
        tags,
        summary: 'The certificates of the credentials an import batch issued, as one ZIP (streamed)',
        description: `One \`certificate-<credentialId>.pdf\` per credential the batch (a real CSV import or connector call) issued, as GET /credentials/{id}/certificate.pdf gives it, and last \`${MANIFEST_FILE}\`: one row per credential (file, credentialId, included yes/no, and why not: revoked, erased, certificates off for its badge, or unprintable). Credentials the batch found already issued belong to their own batch. Another issuer's or an unknown batch is 404; a dry run keeps no batch. Costs ${ZIP_COST} requests of the caller's limit; one ZIP at a time per issuer (and two per process): another answers 429 with Retry-After. Credentials issued before batches were recorded on them (migration 0145) are not found: their ZIP holds the manifest alone.`,
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) }),
        response: { 200: zipResponse, ...errorResponses(404, ...keyedErrors) },
      },
    },
    async (request, reply) => {
      try {
        const zip = await certificates.batchZip(request.issuerId(), request.params.id);
        return reply
          .header('content-type', 'application/zip')
          .header('content-disposition', `attachment; filename="certificates-${request.params.id}.zip"`)
          .header('cache-control', 'private, no-store')
          .send(zip);
      } catch (err) {
        if (err instanceof ZipBusyError) reply.header('retry-after', String(err.retryAfterSeconds));
        throw err;
      }
    },
  );
};
