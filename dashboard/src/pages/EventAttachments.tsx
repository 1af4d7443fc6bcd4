import { useState } from 'preact/hooks';
import { call, client } from '../api';
import { attachmentTypeWords, MAX_TEXT_PREVIEW_BYTES, previewKind, PreviewKind, textPreview } from '../attachment-words';
import { ErrorMessage, useAsync } from '../components';
import type { components } from '../api-schema';

type Attachment = components['schemas']['AttachmentView'];

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

/** The first bytes of a download, without reading the rest of a large file. */
async function readHead(url: string, limit: number): Promise<Uint8Array> {
  const response = await fetch(url, { credentials: 'same-origin' });
  if (!response.ok || !response.body) throw new Error(`The file could not be read (HTTP ${response.status}).`);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  while (length < limit) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    length += value.length;
  }
  await reader.cancel().catch(() => undefined);
  const head = new Uint8Array(Math.min(length, limit));
  let offset = 0;
  for (const chunk of chunks) {
    const part = chunk.subarray(0, head.length - offset);
    head.set(part, offset);
    offset += part.length;
  }
  return head;
}

function TextPreview({ file }: { file: Attachment }) {
  const read = useAsync(async () => {
    const head = await readHead(file.download_url, MAX_TEXT_PREVIEW_BYTES);
    return textPreview(head, file.size);
  }, [file.download_url]);
  if (read.error) return <ErrorMessage error={read.error} onRetry={read.reload} />;
  if (read.loading || read.data === undefined) return <p class="muted small">Reading…</p>;
  if (read.data === null) return <p class="muted small">This file is not text: download it to open it.</p>;
  return (
    <>
      <pre class="attachment-text" tabIndex={0} aria-label={`Contents of ${file.name}`}>
        {read.data.text}
      </pre>
      {read.data.cut && (
        <p class="muted small">{`The first ${fileSize(MAX_TEXT_PREVIEW_BYTES)} of ${fileSize(file.size)}: download the file for the rest.`}</p>
      )}
    </>
  );
}

function Preview({ file, kind }: { file: Attachment; kind: Exclude<PreviewKind, null> }) {
  return (
    <div class="attachment-preview">
      {kind === 'image' ? (
        <img class="attachment-image" src={file.download_url} alt={file.name} loading="lazy" />
      ) : (
        <TextPreview file={file} />
      )}
    </div>
  );
}

function AttachmentRow({ file }: { file: Attachment }) {
  const kind = previewKind(file);
  const [open, setOpen] = useState(false);
  return (
    <li class="attachment">
      <div class="attachment-row">
        <div class="attachment-what">
          <span class="attachment-name mono">{file.name}</span>
          <span class="attachment-meta muted small">
            {attachmentTypeWords(file.attachment_type)} · {file.content_type} · {fileSize(file.size)}
          </span>
        </div>
        <div class="attachment-actions">
          {kind && (
            <button
              type="button"
              class="btn btn-tiny"
              aria-expanded={open}
              aria-label={`${open ? 'Hide' : 'Preview'} ${file.name}`}
              onClick={() => setOpen(!open)}
            >
              {open ? 'Hide' : 'Preview'}
            </button>
          )}
          <a class="btn btn-tiny" href={file.download_url} download={file.name} aria-label={`Download ${file.name}`}>
            Download
          </a>
        </div>
      </div>
      {kind && open && <Preview file={file} kind={kind} />}
    </li>
  );
}

/**
 * The files the SDK attached to the event. Raster images and text can be shown in the page (see
 * attachment-words.ts for why only those); everything is a download, which the server sends as an
 * attachment, never to be rendered. Nothing is shown while there are none.
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
    <section class="event-section" id="attachments" aria-labelledby="ev-attachments">
      <h3 id="ev-attachments">{`Attachments (${list.length})`}</h3>
      <ul class="attachment-list">
        {list.map((file) => (
          <AttachmentRow key={file.id} file={file} />
        ))}
      </ul>
    </section>
  );
}
