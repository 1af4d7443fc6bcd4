/** One bar of a BarChart: its height, what its tooltip and the screen-reader list say of it. */
export interface Bar {
  key: string;
  value: number;
  title: string;
  /** Added to the bar's class: its kind (a failed check, an error), coloured by the page's CSS. */
  kind?: string;
  /** Written as data-* attributes of the bar's column (tests and tools read them). */
  data?: Record<string, string | number>;
}

/**
 * Bars over time, oldest first, scaled to the highest: the chart of the events, the check-in
 * durations and the response times. `labels` are the first, middle and last tick under the bars.
 */
export function BarChart({
  bars,
  label,
  listLabel,
  labels,
  maxLabel,
  class: className,
}: {
  bars: Bar[];
  /** What the whole chart shows, for screen readers. */
  label: string;
  listLabel: string;
  labels: string[];
  /** The highest bar's value in words ("120 ms"), shown in the corner; none when all bars are zero. */
  maxLabel?: string;
  class?: string;
}) {
  const max = Math.max(0, ...bars.map((bar) => bar.value));
  const scale = Math.max(1, max);
  return (
    <>
      <div class={`chart-bars${bars.length > 40 ? ' dense' : ''}${className ? ` ${className}` : ''}`} role="img" aria-label={label}>
        {bars.map((bar) => {
          const data = Object.fromEntries(Object.entries(bar.data ?? {}).map(([name, value]) => [`data-${name}`, value]));
          return (
            <div key={bar.key} class="chart-col" title={bar.title} {...data}>
              <div
                class={bar.kind ? `chart-bar ${bar.kind}` : 'chart-bar'}
                style={{ height: bar.value <= 0 ? '0' : `max(2px, ${((bar.value / scale) * 100).toFixed(2)}%)` }}
              />
            </div>
          );
        })}
        {max > 0 && maxLabel && (
          <span class="chart-max" aria-hidden="true">
            max {maxLabel}
          </span>
        )}
      </div>
      {bars.length > 0 && labels.length > 0 && (
        <div class="chart-labels" aria-hidden="true">
          {labels.map((text, index) => (
            <span key={index}>{text}</span>
          ))}
        </div>
      )}
      <ul class="sr-only" aria-label={listLabel}>
        {bars.map((bar) => (
          <li key={bar.key}>{bar.title}</li>
        ))}
      </ul>
    </>
  );
}
