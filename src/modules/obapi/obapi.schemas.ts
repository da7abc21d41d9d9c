import { Type } from '@sinclair/typebox';
import { StringEnum } from '../../core/schemas.js';

/** The 1EdTech status body every error of the API answers with (OB 3.0 §6, Imsx_StatusInfo). */
export const ImsxStatusInfo = Type.Object(
  {
    imsx_codeMajor: StringEnum(['failure', 'processing', 'success', 'unsupported'] as const),
    imsx_severity: StringEnum(['error', 'status', 'warning'] as const),
    imsx_description: Type.Optional(Type.String()),
    imsx_codeMinor: Type.Optional(
      Type.Object({
        imsx_codeMinorField: Type.Array(
          Type.Object({
            imsx_codeMinorFieldName: Type.String(),
            imsx_codeMinorFieldValue: StringEnum([
              'forbidden',
              'fullsuccess',
              'internal_server_error',
              'invalid_data',
              'invalid_query_parameter',
              'misdirected_request',
              'not_acceptable',
              'not_allowed',
              'not_found',
              'not_modified',
              'server_busy',
              'unauthorizedrequest',
              'unknown',
            ] as const),
          }),
        ),
      }),
    ),
  },
  { description: 'Imsx_StatusInfo' },
);

export const imsxErrors = (...statuses: number[]) =>
  Object.fromEntries(
    statuses.map((status) => [status, { ...ImsxStatusInfo, description: `Imsx_StatusInfo (${status})` }]),
  );

const AnyObject = Type.Object({}, { additionalProperties: true });

export const CredentialsQuery = Type.Object({
  limit: Type.Integer({
    minimum: 1,
    maximum: 200,
    default: 50,
    description: 'The maximum number of credentials per page.',
  }),
  offset: Type.Integer({
    minimum: 0,
    maximum: Number.MAX_SAFE_INTEGER,
    default: 0,
    description: 'The index of the first credential (zero indexed).',
  }),
  since: Type.Optional(Type.String({ format: 'date-time', description: 'Only credentials issued after this time.' })),
});

export const GetCredentialsResponse = Type.Object(
  {
    credential: Type.Array(AnyObject, { description: 'AchievementCredentials not signed as VC-JWT (Data Integrity).' }),
    compactJwsString: Type.Array(Type.String({ pattern: '^[a-zA-Z0-9_-]+\\.[a-zA-Z0-9_-]*\\.[a-zA-Z0-9_-]+$' }), {
      description: 'AchievementCredentials signed as VC-JWT.',
    }),
  },
  { description: 'GetOpenBadgeCredentialsResponse' },
);

export const CredentialObject = { ...AnyObject, description: 'An AchievementCredential' };
export const CompactJws = Type.String({
  pattern: '^[a-zA-Z0-9_-]+\\.[a-zA-Z0-9_-]*\\.[a-zA-Z0-9_-]+$',
  maxLength: 1024 * 1024,
});
export const Profile = { ...AnyObject, description: 'An OB 3.0 Profile' };
export const ServiceDescription = { ...AnyObject, description: 'The Service Description Document (OpenAPI 3.0)' };
