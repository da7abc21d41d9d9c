import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
} from 'chart.js';
import { useEffect, useRef } from 'preact/hooks';

// Only what the dashboard draws, so the bundle carries nothing else of Chart.js.
Chart.register(
  BarController,
  BarElement,
  CategoryScale,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
  Legend,
);

const COLOURS = ['#1d4ed8', '#0f766e', '#b45309', '#7c3aed', '#be123c'];

export interface Series {
  label: string;
  values: number[];
}

/**
 * A chart with its numbers beside it: the canvas is a picture (aria-hidden), the table under
 * "Show the numbers" is what assistive technology and tests read. Without a single non-zero value
 * it says `empty` instead of drawing empty axes.
 */
export function ChartFigure({
  title,
  type,
  labels,
  series,
  empty,
}: {
  title: string;
  type: 'bar' | 'line';
  labels: string[];
  series: Series[];
  empty: string;
}) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const blank = series.every((item) => item.values.every((value) => value === 0));
  useEffect(() => {
    if (!canvas.current || blank) return;
    const chart = new Chart(canvas.current, {
      type,
      data: {
        labels,
        datasets: series.map((item, index) => ({
          label: item.label,
          data: item.values,
          backgroundColor: COLOURS[index % COLOURS.length],
          borderColor: COLOURS[index % COLOURS.length],
        })),
      },
      options: {
        animation: false,
        maintainAspectRatio: false,
        scales: { y: { beginAtZero: true, ticks: { precision: 0 } } },
        plugins: { legend: { display: series.length > 1 } },
      },
    });
    return () => chart.destroy();
  }, [type, labels, series, blank]);
  const slug = title.toLowerCase().replace(/[^a-z0-9]+/g, '-');
  if (blank) {
    return (
      <figure class="chart panel" aria-labelledby={`chart-${slug}`}>
        <figcaption id={`chart-${slug}`}>{title}</figcaption>
        <p class="empty">{empty}</p>
      </figure>
    );
  }
  return (
    <figure class="chart panel" aria-labelledby={`chart-${slug}`}>
      <figcaption id={`chart-${slug}`}>{title}</figcaption>
      <div class="chart-box">
        <canvas ref={canvas} role="img" aria-label={`${title} chart; the numbers are in the table below.`} />
      </div>
      <details>
        <summary>Show the numbers</summary>
        <div class="table-wrap">
          <table data-chart={slug}>
            <thead>
              <tr>
                <th scope="col">{type === 'line' ? 'Day' : 'Item'}</th>
                {series.map((item) => (
                  <th key={item.label} scope="col">
                    {item.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {labels.map((label, row) => (
                <tr key={`${row}:${label}`}>
                  <th scope="row">{label}</th>
                  {series.map((item) => (
                    <td key={item.label}>{item.values[row] ?? 0}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}
