import { sentence } from '../util';
import { Frame, ProcessingError, str } from './EventFields';

/** The file a processing error is about, as people read it: its name, without the host. */
function fileName(url: string | undefined): string {
  if (!url) return 'a file';
  return url.replace(/^[a-z]+:\/\/[^/]+/i, '').replace(/^~/, '') || url;
}

/** Why a file's frames stayed minified, in a sentence. */
function processingSentence(error: ProcessingError): string {
  const file = fileName(error.url);
  switch (error.type) {
    case 'js_no_source_map':
      return `No source map was found for ${file}, so its frames show the minified code. Upload the source maps of this release (or build with debug ids) to see the original code.`;
    case 'js_invalid_source_map':
      return `The source map of ${file} could not be read, so its frames show the minified code.`;
    case 'js_invalid_source_map_location':
      return `The source map of ${file} does not match it (it may be the map of another build), so some of its frames show the minified code.`;
    default:
      return error.detail ? sentence(error.detail) : 'Some frames could not be processed and are shown as the SDK sent them.';
  }
}

/**
 * The processing errors worth showing: not those about a file whose frames all have their source
 * lines anyway (the SDK sent them, or another map served), nor any when every frame has one.
 */
export function shownProcessingErrors(errors: ProcessingError[], frames: Frame[]): ProcessingError[] {
  const hasSource = (frame: Frame) => typeof frame.context_line === 'string' && frame.context_line !== '';
  if (frames.length > 0 && frames.every(hasSource)) return [];
  return errors.filter((error) => {
    const own = frames.filter((frame) => error.url && (frame.abs_path === error.url || frame.filename === error.url));
    return !(own.length > 0 && own.every(hasSource));
  });
}

/** Why some frames show minified code, with a way to the project's source maps. */
export function ProcessingErrors({ errors, projectId }: { errors: ProcessingError[]; projectId: number | null }) {
  if (errors.length === 0) return null;
  return (
    <section class="event-section processing-errors" aria-labelledby="ev-processing">
      <h3 id="ev-processing">Source code not shown</h3>
      <ul>
        {errors.map((error, index) => (
          <li key={index}>
            {processingSentence(error)}
            {(str(error.detail) || str(error.url)) && (
              <details class="processing-detail">
                <summary class="small">Technical details</summary>
                <p class="mono small break-anywhere">
                  {str(error.type) ?? 'error'}: {str(error.detail) ?? ''}
                  {str(error.url) ? ` (${str(error.url)})` : ''}
                </p>
              </details>
            )}
          </li>
        ))}
      </ul>
      {projectId !== null && (
        <p class="small">
          <a href={`/projects/${projectId}/source-maps`}>See this project's source maps</a>
        </p>
      )}
    </section>
  );
}
