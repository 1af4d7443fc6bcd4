import { useEffect, useState } from 'preact/hooks';
import { call, client, errorMessage } from '../api';
import { FormFeedback, Loading } from '../components';
import type { components } from '../api-schema';
import { useSubmit } from '../actions';

type Filters = components['schemas']['InboundFiltersView'];
type Reason = Filters['filtered'][number]['reason'];
type Browser = Filters['legacy_browsers'][number];

const lines = (text: string): string[] =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');

const BROWSER_LABELS: Record<string, string> = {
  ie_pre_9: 'Internet Explorer 8 and older',
  ie9: 'Internet Explorer 9',
  ie10: 'Internet Explorer 10',
  ie11: 'Internet Explorer 11',
  safari_pre_6: 'Safari 5 and older',
  opera_pre_15: 'Opera 14 and older',
  opera_mini_pre_8: 'Opera Mini 7 and older',
  android_pre_4: 'Android browser 3 and older',
  edge_pre_79: 'Edge 18 and older (EdgeHTML)',
};

/** How many events a filter dropped, from the outcomes: "12 in 24 h · 340 in 30 d". */
function Dropped({ filters, reason }: { filters: Filters; reason: Reason }) {
  const count = filters.filtered.find((entry) => entry.reason === reason);
  if (!count) return null;
  return (
    <small class="filter-count" data-reason={reason}>
      {count.last_24h.toLocaleString()} filtered in 24 h · {count.last_30d.toLocaleString()} in 30 d
    </small>
  );
}

/** Inbound filters: events ingest answers and drops before they are queued. */
export function InboundFiltersForm({ projectId }: { projectId: number }) {
  const [filters, setFilters] = useState<Filters | null>(null);
  const [extensions, setExtensions] = useState(false);
  const [localhost, setLocalhost] = useState(false);
  const [crawlers, setCrawlers] = useState(false);
  const [browsers, setBrowsers] = useState<Browser[]>([]);
  const [releases, setReleases] = useState('');
  const [messages, setMessages] = useState('');
  const [ips, setIps] = useState('');
  const { busy, error, setError, run } = useSubmit();
  const [notice, setNotice] = useState<string | null>(null);

  const show = (loaded: Filters) => {
    setFilters(loaded);
    setExtensions(loaded.browser_extensions);
    setLocalhost(loaded.localhost);
    setCrawlers(loaded.web_crawlers);
    setBrowsers(loaded.legacy_browsers);
    setReleases(loaded.releases.join('\n'));
    setMessages(loaded.error_messages.join('\n'));
    setIps(loaded.client_ips.join('\n'));
  };

  useEffect(() => {
    call(client.GET('/api/projects/{id}/inbound-filters', { params: { path: { id: projectId } } })).then(
      show,
      (failure: unknown) => setError(errorMessage(failure)),
    );
  }, [projectId]);

  const toggleBrowser = (name: Browser, on: boolean) =>
    setBrowsers((current) =>
      on ? [...current.filter((each) => each !== name), name] : current.filter((each) => each !== name),
    );

  const save = async (event: Event) => {
    event.preventDefault();
    setNotice(null);
    await run(async () => {
      const updated = await call(
        client.PATCH('/api/projects/{id}/inbound-filters', {
          params: { path: { id: projectId } },
          body: {
            browser_extensions: extensions,
            localhost,
            web_crawlers: crawlers,
            legacy_browsers: browsers,
            releases: lines(releases),
            error_messages: lines(messages),
            client_ips: lines(ips),
          },
        }),
      );
      show(updated);
      setNotice('Saved. Matching events are dropped from now on and counted on the Usage tab.');
    });
  };

  const check = (
    name: string,
    label: string,
    hint: string,
    on: boolean,
    set: (on: boolean) => void,
    reason: Reason,
  ) => (
    <label class="check">
      <input
        type="checkbox"
        name={name}
        checked={on}
        onChange={(event) => set(event.currentTarget.checked)}
      />
      <span>
        {label}
        <small class="hint">{hint}</small>
        {filters && <Dropped filters={filters} reason={reason} />}
      </span>
    </label>
  );

  return (
    <form
      id="inbound-filters"
      class="card data-protection inbound-filters"
      onSubmit={(event) => void save(event)}
      aria-labelledby="inbound-filters-title"
    >
      <h2 id="inbound-filters-title">Inbound filters</h2>
      {!filters && !error ? (
        <Loading label="Loading inbound filters…" />
      ) : (
        <>
          <p class="small muted">
            Filtered events are answered like any other, never stored, and counted on the Usage tab.
          </p>
          {check(
            'browser-extensions',
            'Errors caused by browser extensions',
            'Thrown from an extension (chrome-extension://, moz-extension://, …) or known to come from one.',
            extensions,
            setExtensions,
            'browser_extensions',
          )}
          {check(
            'localhost',
            'Events from localhost',
            'The page was on localhost or 127.0.0.1, or the user’s IP is a loopback address.',
            localhost,
            setLocalhost,
            'localhost',
          )}
          {check(
            'web-crawlers',
            'Web crawlers',
            'Googlebot, Bingbot, other search, social and monitoring bots, by their User-Agent.',
            crawlers,
            setCrawlers,
            'web_crawlers',
          )}
          <fieldset class="legacy-browsers">
            <legend>
              Legacy browsers
              {filters && <Dropped filters={filters} reason="legacy_browsers" />}
            </legend>
            <div class="browser-choices">
              {(filters?.legacy_browser_choices ?? []).map((name) => (
                <label class="check" key={name}>
                  <input
                    type="checkbox"
                    name={`legacy-${name}`}
                    checked={browsers.includes(name)}
                    onChange={(event) => toggleBrowser(name, event.currentTarget.checked)}
                  />
                  <span>{BROWSER_LABELS[name] ?? name}</span>
                </label>
              ))}
            </div>
          </fieldset>
          <div class="field-pair">
            <label class="field">
              <span>Releases</span>
              <textarea
                name="releases"
                rows={3}
                spellcheck={false}
                placeholder={'*-beta*\nweb@1.0.*'}
                value={releases}
                onInput={(event) => setReleases(event.currentTarget.value)}
              />
              <small class="hint">
                One glob per line (* any text, ? one character), in the release’s case.
              </small>
              {filters && <Dropped filters={filters} reason="release_version" />}
            </label>
            <label class="field">
              <span>Error messages</span>
              <textarea
                name="error-messages"
                rows={3}
                spellcheck={false}
                placeholder={'*ResizeObserver loop*\nChunkLoadError: *'}
                value={messages}
                onInput={(event) => setMessages(event.currentTarget.value)}
              />
              <small class="hint">
                One glob per line, any case, against “Type: message” and log messages.
              </small>
              {filters && <Dropped filters={filters} reason="error_message" />}
            </label>
          </div>
          <label class="field">
            <span>Client IP addresses</span>
            <textarea
              name="client-ips"
              rows={3}
              spellcheck={false}
              placeholder={'203.0.113.7\n10.0.0.0/8\n2001:db8::/32'}
              value={ips}
              onInput={(event) => setIps(event.currentTarget.value)}
            />
            <small class="hint">One address or CIDR range per line: the address that sent the event.</small>
            {filters && <Dropped filters={filters} reason="ip_address" />}
          </label>
          <div class="form-actions">
            <button type="submit" class="btn btn-primary" disabled={busy || !filters}>
              {busy ? 'Saving…' : 'Save inbound filters'}
            </button>
          </div>
        </>
      )}
      <FormFeedback error={error} notice={notice} />
    </form>
  );
}
