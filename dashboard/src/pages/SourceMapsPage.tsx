import { useEffect, useState } from 'preact/hooks';
import { useCan } from '../access';
import { ArtifactBundle, call, client, errorMessage, Project } from '../api';
import { CopyButton, Empty, ErrorMessage, Loading, RelTime, useAsync, useTitle, ProjectLoadError } from '../components';
import { DataTable } from '../lists';
import { useCursorPages } from '../lists';
import { plural } from '../util';
import { ProjectHeader, useProject } from './ProjectHeader';

const TYPE_LABELS: Record<string, string> = {
  minified_source: 'minified',
  source_map: 'source map',
  source: 'source',
  indexed_ram_bundle: 'RAM bundle',
};

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

function uploadCommands(project: Project): string {
  return `export SENTRY_URL="${window.location.origin}"
export SENTRY_AUTH_TOKEN="<an API token from Settings → API tokens>"
export SENTRY_ORG="default"
export SENTRY_PROJECT="${project.slug}"

npx @sentry/cli sourcemaps inject ./dist
npx @sentry/cli sourcemaps upload ./dist`;
}

/** What sentry-cli and the bundler plugins uploaded for the project, by release, with deletion. */
export function SourceMapsPage({ projectId }: { projectId: number }) {
  const project = useProject(projectId);
  useTitle(project.data ? `${project.data.name} source maps` : 'Source maps');
  const [release, setRelease] = useState('');
  const releases = useAsync(
    () => call(client.GET('/api/projects/{projectId}/releases', { params: { path: { projectId }, query: { limit: 100 } } })),
    [projectId],
  );
  const uploads = useCursorPages(
    (cursor) =>
      call(client.GET('/api/projects/{projectId}/artifact-bundles', { params: { path: { projectId }, query: { release, cursor, limit: 20 } } })),
    true,
  );
  const { items: bundles, setItems: setBundles, next, loading, error, load } = uploads;
  useEffect(() => {
    void load(null);
  }, [projectId, release]);

  // Uploads name releases before any event does: those of the uploads shown are offered too.
  const [uploadReleases, setUploadReleases] = useState<string[]>([]);
  useEffect(() => {
    const named = bundles.map((bundle) => bundle.release).filter((version): version is string => version !== null);
    setUploadReleases((previous) => [...new Set([...previous, ...named])]);
  }, [bundles]);
  const releaseChoices = [...new Set([...uploadReleases, ...(releases.data?.data ?? []).map((row) => row.version)])];

  if (project.error) return <ProjectLoadError project={project} />;
  if (!project.data) return <Loading label="Loading project…" />;

  return (
    <>
      <ProjectHeader project={project.data} active="source-maps" />
      <section class="card" aria-labelledby="upload-title">
        <h2 id="upload-title">Uploading source maps</h2>
        <p class="muted small">
          Build with source maps, then let sentry-cli (2.x or 3.x) or a bundler plugin (<span class="mono">@sentry/vite-plugin</span>,{' '}
          <span class="mono">@sentry/esbuild-plugin</span>, …) inject debug ids and upload them here. Errors from that build then show the original
          files, functions and lines.
        </p>
        <div class="code-block">
          <pre>
            <code>{uploadCommands(project.data)}</code>
          </pre>
          <CopyButton text={uploadCommands(project.data)} label="Copy commands" class="code-copy" />
        </div>
      </section>

      <div class="toolbar">
        <label class="picker">
          <span>Release</span>
          <select name="release" value={release} onChange={(event) => setRelease(event.currentTarget.value)}>
            <option value="">All uploads</option>
            {releaseChoices.map((version) => (
              <option key={version} value={version}>
                {version}
              </option>
            ))}
          </select>
        </label>
      </div>

      <ErrorMessage error={error} onRetry={() => void load(null)} />
      {loading && bundles.length === 0 && <Loading label="Loading uploads…" />}
      {!loading && !error && bundles.length === 0 && (
        <Empty title={release ? `Nothing was uploaded for ${release}.` : 'No source maps uploaded yet.'}>Run the commands above after a build.</Empty>
      )}
      {bundles.map((bundle) => (
        <BundleCard
          key={bundle.id}
          projectId={projectId}
          bundle={bundle}
          onDeleted={() => setBundles((previous) => previous.filter((other) => other.id !== bundle.id))}
        />
      ))}
      {next && (
        <button type="button" class="btn btn-small" disabled={loading} onClick={() => void load(next)}>
          {loading ? 'Loading…' : 'Load older uploads'}
        </button>
      )}
    </>
  );
}

function BundleCard({ projectId, bundle, onDeleted }: { projectId: number; bundle: ArtifactBundle; onDeleted: () => void }) {
  const manage = useCan()('project:write');
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const remove = async () => {
    setBusy(true);
    setError(null);
    try {
      await call(
        client.DELETE('/api/projects/{projectId}/artifact-bundles/{bundleId}', {
          params: { path: { projectId, bundleId: bundle.id } },
        }),
      );
      onDeleted();
    } catch (failure) {
      setError(errorMessage(failure));
      setBusy(false);
    }
  };
  const title = bundle.release ? `${bundle.release}${bundle.dist ? ` (dist ${bundle.dist})` : ''}` : 'No release: matched by debug id';
  return (
    <section class="card bundle-card" aria-label={`Upload ${bundle.id}: ${title}`}>
      <div class="section-head">
        <div>
          <h3 class="mono">{title}</h3>
          <p class="muted small">
            Uploaded <RelTime value={bundle.created_at} /> · {plural(bundle.file_count, 'file')} · {formatBytes(bundle.size)} ·{' '}
            {bundle.last_used_at ? (
              <>
                last used <RelTime value={bundle.last_used_at} />
              </>
            ) : (
              'not used by an event yet'
            )}
          </p>
        </div>
        <div class="inline-actions">
          {manage && !confirming && (
            <button type="button" class="btn btn-small btn-danger" onClick={() => setConfirming(true)}>
              Delete
            </button>
          )}
          {confirming && (
            <>
              <span class="small">Delete this upload? Events already stored keep their resolved frames.</span>
              <button type="button" class="btn btn-small btn-danger" disabled={busy} onClick={() => void remove()}>
                {busy ? 'Deleting…' : 'Delete upload'}
              </button>
              <button type="button" class="btn btn-small" onClick={() => setConfirming(false)}>
                Cancel
              </button>
            </>
          )}
        </div>
      </div>
      <ErrorMessage error={error} />
      <DataTable columns={['File', 'Type', 'Debug ID', { label: 'Size', class: 'col-num' }]}>
        {bundle.files.map((file) => (
          <tr key={file.path}>
            <td class="mono" data-label="File">
              <span>{file.url}</span>
              {file.source_map && <div class="muted small">source map: {file.source_map}</div>}
            </td>
            <td data-label="Type">{TYPE_LABELS[file.type] ?? file.type}</td>
            <td class="mono small" data-label="Debug ID">
              {file.debug_id ?? '—'}
            </td>
            <td class="col-num" data-label="Size">
              {formatBytes(file.size)}
            </td>
          </tr>
        ))}
      </DataTable>
    </section>
  );
}
