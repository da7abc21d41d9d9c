import { type Static, Type } from '@sinclair/typebox';
import { DateTime, Nullable } from '../../core/schemas.js';

const Count = Type.Integer({ minimum: 0 });

const Bound = (edge: 'from' | 'to') =>
  Type.Union([Type.String({ format: 'date-time' }), Type.String({ format: 'date' })], {
    description:
      edge === 'from'
        ? 'Window start, inclusive: a date-time, or a date meaning midnight UTC.'
        : 'Window end, exclusive: a date-time, or a date meaning the end of that UTC day (the day is included).',
  });

export const WindowQuery = Type.Object({ from: Type.Optional(Bound('from')), to: Type.Optional(Bound('to')) });

const Channels = Type.Object({ api: Count, bulk: Count, page: Count });

const StatusCounts = { issued: Count, valid: Count, expired: Count, revoked: Count };

export const ReportDefinitionBreakdown = Type.Object(
  {
    definitionId: Type.String(),
    name: Type.String(),
    slug: Type.String(),
    ...StatusCounts,
    verifies: Count,
  },
  {
    $id: 'ReportDefinitionBreakdown',
    description: 'issued/valid/expired/revoked: all time, by status now; verifies: in the window.',
  },
);

export const IssuanceReportSchema = Type.Object(
  {
    issuerId: Type.String(),
    window: Type.Object({ from: Nullable(DateTime), to: Nullable(DateTime) }, { description: 'from <= t < to' }),
    totals: Type.Object({
      ...StatusCounts,
      issuedInWindow: Count,
      verifies: Count,
      imports: Type.Object({ batches: Count, issued: Count, skipped: Count, errored: Count }),
    }),
    verifiesByChannel: Channels,
    byDefinition: Type.Array(Type.Ref(ReportDefinitionBreakdown)),
    generatedAt: DateTime,
  },
  { $id: 'IssuanceReport' },
);

export const TimePoint = Type.Object(
  { date: Type.String({ format: 'date', description: 'UTC day' }), count: Count },
  { $id: 'TimePoint' },
);

const Series = Type.Array(Type.Ref(TimePoint), { description: 'One point per UTC day of the window, zeros included.' });

export const AnalyticsDefinitionBreakdown = Type.Object(
  {
    definitionId: Type.String(),
    name: Type.String(),
    slug: Type.String(),
    ...StatusCounts,
    verifies: Count,
    shares: Count,
  },
  {
    $id: 'AnalyticsDefinitionBreakdown',
    description: 'issued/valid/expired/revoked: all time, by status now; verifies and shares: in the window.',
  },
);

export const IssuerAnalyticsSchema = Type.Object(
  {
    issuerId: Type.String(),
    window: Type.Object({ from: DateTime, to: DateTime }, { description: 'from <= t < to' }),
    totals: Type.Object({ ...StatusCounts, issuedInWindow: Count, verifies: Count, shares: Count }),
    verifiesByChannel: Channels,
    engagementByAction: Type.Object({
      total: Count,
      linkedin: Count,
      wallet_apple: Count,
      wallet_google: Count,
      share_link: Count,
    }),
    funnel: Type.Object({
      issued: Type.Integer({ minimum: 0, description: 'Credentials issued in the window' }),
      verified: Type.Integer({ minimum: 0, description: 'Distinct credentials verified in the window' }),
      shared: Type.Integer({
        minimum: 0,
        description: 'Distinct credentials shared or added to a wallet in the window',
      }),
    }),
    series: Type.Object({ issuance: Series, verifies: Series, engagement: Series }),
    byDefinition: Type.Array(Type.Ref(AnalyticsDefinitionBreakdown)),
    byPathway: Type.Array(
      Type.Object({
        pathwayId: Type.String(),
        name: Type.String(),
        slug: Type.String(),
        stages: Count,
        issued: Type.Integer({ minimum: 0, description: 'Credentials ever issued for its stage definitions' }),
        recipients: Type.Integer({ minimum: 0, description: 'Distinct recipients holding at least one of them' }),
      }),
    ),
    geo: Type.Array(Type.Object({ country: Type.String(), count: Count }), {
      description: 'Verifications in the window by country (ZZ: unknown), most first.',
    }),
    generatedAt: DateTime,
  },
  { $id: 'IssuerAnalytics' },
);

export type WindowQueryInput = Static<typeof WindowQuery>;
export type IssuanceReport = Static<typeof IssuanceReportSchema>;
export type IssuerAnalytics = Static<typeof IssuerAnalyticsSchema>;

export const ENGAGEMENT_ACTIONS = ['linkedin', 'wallet_apple', 'wallet_google', 'share_link'] as const;
export const VERIFICATION_CHANNELS = ['api', 'bulk', 'page'] as const;

export const reportSchemas = [
  ReportDefinitionBreakdown,
  IssuanceReportSchema,
  TimePoint,
  AnalyticsDefinitionBreakdown,
  IssuerAnalyticsSchema,
];
