import { useState } from 'preact/hooks';
import type { EventItem } from '../api';
import { toDate } from '../util';

const RANGES = {
  '24h': { label: 'Last 24 hours', buckets: 24, size: 3600_000 },
  '14d': { label: 'Last 14 days', buckets: 14, size: 86400_000 },
} as const;
type Range = keyof typeof RANGES;

/** Histogram of the loaded events' timestamps (computed here: the API has no stats endpoint). */
export function EventChart({ events, total, complete }: { events: EventItem[]; total: number; complete: boolean }) {
  const [range, setRange] = useState<Range>('14d');
  const { buckets, size, label } = RANGES[range];
  const now = Date.now();
  // Buckets end at the next full hour / day boundary (local time for days), so bars line up with the clock.
  const end = new Date(now);
  if (range === '24h') end.setMinutes(60, 0, 0);
  else end.setHours(24, 0, 0, 0);
  const endMs = end.getTime();
  const startMs = endMs - buckets * size;
  const counts = new Array<number>(buckets).fill(0);
  for (const event of events) {
    const at = toDate(event.timestamp)?.getTime();
    if (at === undefined || at < startMs || at >= endMs) continue;
    counts[Math.floor((at - startMs) / size)]++;
  }
  const max = Math.max(1, ...counts);
  const width = 560;
  const height = 90;
  const gap = 3;
  const barWidth = width / buckets - gap;
  const inRange = counts.reduce((sum, n) => sum + n, 0);
  const bucketLabel = (index: number) => {
    const from = new Date(startMs + index * size);
    return range === '24h'
      ? from.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' })
      : from.toLocaleDateString(undefined, { month: 'short', day: 'numeric' });
  };

  return (
    <figure class="chart">
      <div class="chart-head">
        <figcaption>
          <strong>{inRange}</strong> {inRange === 1 ? 'event' : 'events'} · {label.toLowerCase()}
          {!complete && (
            <span class="muted small"> (from the {events.length} most recent of {total} events)</span>
          )}
        </figcaption>
        <div class="segmented small" role="group" aria-label="Chart range">
          {(Object.keys(RANGES) as Range[]).map((key) => (
            <button key={key} type="button" class={range === key ? 'seg active' : 'seg'} aria-pressed={range === key} onClick={() => setRange(key)}>
              {key}
            </button>
          ))}
        </div>
      </div>
      <svg viewBox={`0 0 ${width} ${height + 18}`} class="chart-svg" role="img" aria-label={`Events per ${range === '24h' ? 'hour' : 'day'}, ${label.toLowerCase()}`}>
        <line x1="0" x2={width} y1={height + 0.5} y2={height + 0.5} class="chart-axis" />
        {counts.map((count, index) => {
          const barHeight = count === 0 ? 0 : Math.max(2, (count / max) * (height - 4));
          return (
            <g key={index}>
              <title>{`${bucketLabel(index)}: ${count} ${count === 1 ? 'event' : 'events'}`}</title>
              <rect x={index * (width / buckets) + gap / 2} y={0} width={barWidth} height={height} class="chart-hit" />
              <rect x={index * (width / buckets) + gap / 2} y={height - barHeight} width={barWidth} height={barHeight} rx="2" class="chart-bar" />
            </g>
          );
        })}
        <text x="0" y={height + 14} class="chart-label">
          {bucketLabel(0)}
        </text>
        <text x={width} y={height + 14} class="chart-label" text-anchor="end">
          {range === '24h' ? 'now' : 'today'}
        </text>
        <text x={width} y="10" class="chart-label" text-anchor="end">
          max {max}
        </text>
      </svg>
    </figure>
  );
}
