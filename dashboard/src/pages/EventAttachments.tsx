import { call, client } from '../api';
import { ErrorMessage, useAsync } from '../components';

/** Bytes as people read them: 812 B, 14.2 KB, 3.1 MB (powers of 1024, as file managers show). */
export function fileSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}

/**
 * The files the SDK attached to the event. Each is a download (the server sends it as an
 * attachment, never to be shown in the page); nothing is shown while there are none.
 */
export function EventAttachments({ projectId, eventId }: { projectId: number; eventId: string }) {
  const files = useAsync(
    () => call(client.GET('/api/projects/{projectId}/events/{eventId}/attachments', { params: { path: { projectId, eventId } } })),
    [projectId, eventId],
  );
  if (files.error) return <ErrorMessage error={files.error} status={files.status} onRetry={files.reload} />;
  const list = files.data?.data ?? [];
  if (list.length === 0) return null;
  return (
    <section class="event-section" aria-labelledby="ev-attachments">
      <h3 id="ev-attachments">{`Attachments (${list.length})`}</h3>
      <ul class="attachment-list">
        {list.map((file) => (
          <li key={file.id} class="attachment">
            <div class="attachment-what">
              <span class="attachment-name mono">{file.name}</span>
              <span class="attachment-meta muted small">
                {file.attachment_type} · {file.content_type} · {fileSize(file.size)}
              </span>
            </div>
            <a class="btn btn-tiny" href={file.download_url} download={file.name} aria-label={`Download ${file.name}`}>
              Download
            </a>
          </li>
        ))}
      </ul>
    </section>
  );
}
