import { useEffect, useMemo, useState } from 'preact/hooks';
import type { components } from '../../../client/index';
import { api, problem } from '../api';
import { ChartFigure } from '../chart';
import { Alert, Field, inputValue } from '../ui';

type Analytics = components['schemas']['IssuerAnalytics'];
type TimePoint = components['schemas']['TimePoint'];

const DAY_MS = 86_400_000;
const day = (date: Date) => date.toISOString().slice(0, 10);

/** The days of the window, so a day without events shows as 0 rather than missing. */
function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  for (let at = Date.parse(from); at <= Date.parse(to); at += DAY_MS) days.push(day(new Date(at)));
  return days;
}

const perDay = (days: string[], points: TimePoint[]) => {
  const counts = new Map(points.map((point) => [point.date.slice(0, 10), point.count]));
  return days.map((date) => counts.get(date) ?? 0);
};

const REGIONS = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });

/**
 * A verifier's country by name. ZZ is what the service records when it could not tell (no
 * country header, a private address), and any other code the browser has no name for is unknown too.
 */
function countryName(code: string): string {
  if (!/^[A-Z]{2}$/.test(code) || code === 'ZZ') return 'Unknown';
  return REGIONS.of(code) ?? 'Unknown';
}

/** The range the dashboard opens with: the last 30 UTC days, today included. */
function openingRange(): { from: string; to: string } {
  const today = new Date();
  return { from: day(new Date(today.getTime() - 29 * DAY_MS)), to: day(today) };
}

const fetchAnalytics = (from: string, to: string) => api.GET('/api/v1/analytics', { params: { query: { from, to } } });

type AnalyticsAnswer = ReturnType<typeof fetchAnalytics>;

/** The opening range's answer, requested before the page mounts; taken once. */
let early: { range: string; answer: AnalyticsAnswer } | null = null;

/**
 * Asks for the opening range's analytics at once, while the session is still being checked, so
 * that the slowest request of the first screen does not wait for the session's round trip and the
 * layout's first render. Without a valid session it answers 401 and is simply not used.
 */
export function requestDashboardEarly(): void {
  const { from, to } = openingRange();
  early = { range: `${from}/${to}`, answer: fetchAnalytics(from, to) };
}

/** The early answer for this range when there is one and it succeeded, otherwise a new request. */
function analyticsFor(from: string, to: string): AnalyticsAnswer {
  const taken = early;
  early = null;
  if (taken?.range !== `${from}/${to}`) return fetchAnalytics(from, to);
  return taken.answer.then((result) => (result.error ? fetchAnalytics(from, to) : result));
}

export function DashboardPage() {
  const [opening] = useState(openingRange);
  const [from, setFrom] = useState(opening.from);
  const [to, setTo] = useState(opening.to);
  const [data, setData] = useState<Analytics | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    analyticsFor(from, to).then((result) => {
      if (result.error) setError(problem(result.error));
      else {
        setError(null);
        setData(result.data);
      }
    });
  }, [from, to]);

  const days = useMemo(() => daysBetween(from, to), [from, to]);
  const daily = useMemo(
    () =>
      data
        ? [
            { label: 'Achieved', values: perDay(days, data.series.issuance) },
            { label: 'Verifications', values: perDay(days, data.series.verifies) },
            { label: 'Engagement', values: perDay(days, data.series.engagement) },
          ]
        : [],
    [data, days],
  );
  const range = `from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`;

  return (
    <>
      <h1>Dashboard</h1>
      <form class="panel inline" aria-label="Date range" onSubmit={(event) => event.preventDefault()}>
        <Field label="From" id="range-from">
          <input id="range-from" type="date" value={from} max={to} onChange={(e) => setFrom(inputValue(e))} />
        </Field>
        <Field label="To" id="range-to">
          <input id="range-to" type="date" value={to} min={from} onChange={(e) => setTo(inputValue(e))} />
        </Field>
        <a href={`/api/v1/analytics.csv?${range}`} download>
          Export analytics CSV
        </a>
        <a href={`/api/v1/reports/issuance.csv?${range}`} download>
          Export issuance CSV
        </a>
      </form>
      {error && <Alert>{error}</Alert>}
      {data && (
        <>
          <dl class="totals">
            {(
              [
                ['Achieved in range', data.totals.issuedInWindow],
                ['Valid', data.totals.valid],
                ['Revoked', data.totals.revoked],
                ['Verifications', data.totals.verifies],
                ['Shares', data.totals.shares],
              ] as const
            ).map(([label, value]) => (
              <div key={label}>
                <dt>{label}</dt>
                <dd data-total={label}>{value}</dd>
              </div>
            ))}
          </dl>
          <p class="hint">
            Credentials are counted by their date: the date achieved, as your import or system gave it (a roster's “Date
            Achieved”), not the day they were issued here. A term's roster imported today counts on its own dates.
          </p>
          <div class="charts">
            <ChartFigure
              title="Per day"
              type="line"
              labels={days}
              series={daily}
              empty="Nothing was issued, verified or shared in this range."
            />
            <ChartFigure
              title="Funnel"
              type="bar"
              labels={['Issued', 'Verified', 'Shared']}
              empty="No credentials issued in this range yet."
              series={[
                { label: 'Credentials', values: [data.funnel.issued, data.funnel.verified, data.funnel.shared] },
              ]}
            />
            <ChartFigure
              title="Verification channels"
              type="bar"
              labels={['API', 'Bulk', 'Page']}
              empty="No verifications in this range yet."
              series={[
                {
                  label: 'Verifications',
                  values: [data.verifiesByChannel.api, data.verifiesByChannel.bulk, data.verifiesByChannel.page],
                },
              ]}
            />
            <ChartFigure
              title="Countries"
              type="bar"
              labels={data.geo.map((row) => countryName(row.country))}
              empty="No verifications in this range yet, so no countries."
              series={[{ label: 'Verifications', values: data.geo.map((row) => row.count) }]}
            />
            <ChartFigure
              title="Per definition"
              type="bar"
              labels={data.byDefinition.map((row) => row.name)}
              empty="No definition was issued or verified in this range."
              series={[
                { label: 'Issued', values: data.byDefinition.map((row) => row.issued) },
                { label: 'Revoked', values: data.byDefinition.map((row) => row.revoked) },
                { label: 'Verifications', values: data.byDefinition.map((row) => row.verifies) },
              ]}
            />
            <ChartFigure
              title="Per pathway"
              type="bar"
              labels={data.byPathway.map((row) => row.name)}
              empty="No pathway activity in this range. Pathways are set up on the Pathways page."
              series={[
                { label: 'Issued', values: data.byPathway.map((row) => row.issued) },
                { label: 'Recipients', values: data.byPathway.map((row) => row.recipients) },
              ]}
            />
          </div>
        </>
      )}
    </>
  );
}
