import type { components } from '../api-schema';
import { Empty } from '../components';
import { categoryWords, OUTCOME_WORDS, reasonWords } from '../outcome-words';

type Outcomes = components['schemas']['OutcomesView'];
type CategoryUsage = Outcomes['categories'][number];

function bucketName(start: string, interval: Outcomes['interval']): string {
  const date = new Date(start);
  return interval === '1h'
    ? date.toLocaleTimeString(undefined, { hour: 'numeric', minute: '2-digit' })
    : date.toLocaleDateString(undefined, { timeZone: 'UTC', month: 'short', day: 'numeric' });
}

function share(part: number, whole: number): string {
  if (whole === 0) return '–';
  const percent = (part / whole) * 100;
  return `${percent > 0 && percent < 0.1 ? '<0.1' : percent.toFixed(percent < 10 ? 1 : 0)} %`;
}

/** The errors' category, which the server always answers first. */
function errorsOf(data: Outcomes): CategoryUsage {
  return data.categories.find((usage) => usage.category === 'error') ?? { category: 'error', accepted: 0, dropped: 0, series: [] };
}

/**
 * Errors accepted against errors dropped, with a chart of both: the one category this server
 * stores. Other categories never mix into these figures (an SDK's discarded spans are no errors).
 */
export function ErrorUsage({ data }: { data: Outcomes }) {
  const errors = errorsOf(data);
  const accepted = errors.accepted ?? 0;
  const total = accepted + errors.dropped;
  const max = Math.max(1, ...errors.series.map((bucket) => (bucket.accepted ?? 0) + bucket.dropped));
  const per = data.interval === '1h' ? 'per hour' : 'per UTC day';
  const others = data.categories.filter((usage) => usage.category !== 'error' && usage.dropped > 0);
  return (
    <>
      <h3 class="usage-category-title">Errors</h3>
      <dl class="usage-figures">
        <div class="usage-figure accepted">
          <dt>Accepted</dt>
          <dd>
            <strong>{accepted.toLocaleString()}</strong> <span class="muted small">{share(accepted, total)}</span>
          </dd>
        </div>
        <div class="usage-figure dropped">
          <dt>Dropped</dt>
          <dd>
            <strong>{errors.dropped.toLocaleString()}</strong> <span class="muted small">{share(errors.dropped, total)}</span>
          </dd>
        </div>
      </dl>
      <figure class="chart usage-chart">
        <figcaption class="usage-legend small">
          <span class="key accepted" aria-hidden="true" /> accepted <span class="key dropped" aria-hidden="true" /> dropped
          <span class="muted"> · errors {per}</span>
        </figcaption>
        <div
          class={errors.series.length > 40 ? 'chart-bars dense' : 'chart-bars'}
          role="img"
          aria-label={`${accepted.toLocaleString()} errors accepted and ${errors.dropped.toLocaleString()} dropped, ${per}`}
        >
          {errors.series.map((bucket) => {
            const kept = bucket.accepted ?? 0;
            return (
              <div
                key={bucket.start}
                class="chart-col usage-col"
                title={`${bucketName(bucket.start, data.interval)}: ${kept.toLocaleString()} accepted, ${bucket.dropped.toLocaleString()} dropped`}
                data-accepted={kept}
                data-dropped={bucket.dropped}
              >
                <div class="usage-bar dropped" style={{ height: `${((bucket.dropped / max) * 100).toFixed(2)}%` }} />
                <div class="usage-bar accepted" style={{ height: `${((kept / max) * 100).toFixed(2)}%` }} />
              </div>
            );
          })}
        </div>
        {errors.series.length > 0 && (
          <div class="chart-labels" aria-hidden="true">
            <span>{bucketName(errors.series[0].start, data.interval)}</span>
            <span>{data.interval === '1h' ? 'now' : 'today'}</span>
          </div>
        )}
      </figure>
      {others.length > 0 && (
        <p class="usage-others small">
          <span class="muted">Other data dropped, counted apart:</span>{' '}
          {others.map((usage, index) => (
            <span key={usage.category}>
              {index > 0 && ' · '}
              <a href={`#usage-${usage.category}`}>{categoryWords(usage.category)}</a> {usage.dropped.toLocaleString()}
            </span>
          ))}
        </p>
      )}
    </>
  );
}

/** What was dropped, and why, one card per category: errors first, then the others by quantity. */
export function DropReasons({ data }: { data: Outcomes }) {
  const shown = data.categories.filter((usage) => usage.category === 'error' || usage.dropped > 0);
  return (
    <>
      {shown.map((usage) => {
        const rows = data.totals.filter((row) => row.outcome !== 'accepted' && row.category === usage.category);
        const id = `usage-${usage.category}`;
        return (
          <section key={usage.category} class="card usage-reasons" id={id} aria-labelledby={`${id}-title`}>
            <h2 id={`${id}-title`}>
              {categoryWords(usage.category)} dropped, by reason
              <span class="muted count-note"> · {usage.dropped.toLocaleString()}</span>
            </h2>
            {rows.length === 0 ? (
              <Empty title="Nothing dropped">Every error the SDKs sent in this period was accepted.</Empty>
            ) : (
              <table class="usage-table">
                <thead>
                  <tr>
                    <th>Outcome</th>
                    <th>Reason</th>
                    <th class="num">Quantity</th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((row) => (
                    <tr key={`${row.outcome}:${row.reason}`}>
                      <td>{OUTCOME_WORDS[row.outcome]}</td>
                      <td title={row.reason ?? undefined} data-reason={row.reason ?? ''}>
                        {reasonWords(row.outcome, row.reason)}
                      </td>
                      <td class="num">{row.quantity.toLocaleString()}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </section>
        );
      })}
    </>
  );
}
