import { useState } from 'preact/hooks';
import { Badge, KeyValue } from '../components';
import { isRecord } from '../util';
import { ExceptionValue, Frame, str } from './EventFields';

/** One exception of the event: its type and value, whether it was handled, and its frames. */
export function ExceptionBlock({ exception, newestFirst, minified }: { exception: ExceptionValue; newestFirst: boolean; minified: boolean }) {
  const mechanism = isRecord(exception.mechanism) ? exception.mechanism : undefined;
  const shown = minified && isRecord(exception.raw_stacktrace) ? exception.raw_stacktrace : exception.stacktrace;
  const frames = Array.isArray(shown?.frames) ? shown!.frames! : [];
  return (
    <div class="exception">
      <div class="exception-head">
        <strong class="exception-type">{exception.type ?? 'Error'}</strong>
        {exception.module && <span class="muted small mono"> ({exception.module})</span>}
        {mechanism && (
          <span class="mechanism">
            <Badge kind={mechanism.handled === false ? 'failed' : 'neutral'}>
              {mechanism.handled === false ? 'unhandled' : mechanism.handled === true ? 'handled' : 'mechanism'}
            </Badge>
            {str(mechanism.type) && <span class="muted small"> {str(mechanism.type)}</span>}
          </span>
        )}
      </div>
      {exception.value && (
        <pre class="exception-value" dir="auto">
          {exception.value}
        </pre>
      )}
      {frames.length > 0 ? <StackTrace frames={frames} newestFirst={newestFirst} /> : <p class="muted small">No stack trace.</p>}
    </div>
  );
}

type Group = { kind: 'app'; frame: Frame; index: number } | { kind: 'library'; frames: { frame: Frame; index: number }[] };

export function StackTrace({ frames, newestFirst }: { frames: Frame[]; newestFirst: boolean }) {
  const valid = frames.filter(isRecord) as Frame[];
  const ordered = valid.map((frame, index) => ({ frame, index }));
  if (newestFirst) ordered.reverse();
  // When nothing is marked in-app (older SDKs), every frame is shown: there is nothing to collapse to.
  const anyInApp = valid.some((frame) => frame.in_app === true);
  const groups: Group[] = [];
  for (const item of ordered) {
    if (!anyInApp || item.frame.in_app === true) {
      groups.push({ kind: 'app', ...item });
      continue;
    }
    const last = groups[groups.length - 1];
    if (last && last.kind === 'library') last.frames.push(item);
    else groups.push({ kind: 'library', frames: [item] });
  }
  // The frame where it failed (the newest in-app one) starts expanded.
  const crashing = [...valid.keys()].reverse().find((i) => !anyInApp || valid[i].in_app === true);

  return (
    <div class="stacktrace">
      <p class="stack-order muted small">{newestFirst ? 'Most recent call first' : 'Most recent call last'}</p>
      <ol class="frames">
        {groups.map((group, groupIndex) =>
          group.kind === 'app' ? (
            <FrameRow key={`f${group.index}`} frame={group.frame} initiallyOpen={group.index === crashing} />
          ) : (
            <LibraryFrames key={`g${groupIndex}`} frames={group.frames} />
          ),
        )}
      </ol>
    </div>
  );
}

function LibraryFrames({ frames }: { frames: { frame: Frame; index: number }[] }) {
  const [open, setOpen] = useState(false);
  return (
    <li class="library-group">
      <button type="button" class="btn btn-tiny library-toggle" aria-expanded={open} onClick={() => setOpen(!open)}>
        {open ? 'Hide' : 'Show'} {frames.length} library {frames.length === 1 ? 'frame' : 'frames'}
      </button>
      {open && (
        <ol class="frames nested">
          {frames.map(({ frame, index }) => (
            <FrameRow key={index} frame={frame} initiallyOpen={false} />
          ))}
        </ol>
      )}
    </li>
  );
}

function FrameRow({ frame, initiallyOpen }: { frame: Frame; initiallyOpen: boolean }) {
  const pre = Array.isArray(frame.pre_context) ? frame.pre_context : [];
  const post = Array.isArray(frame.post_context) ? frame.post_context : [];
  const hasContext = typeof frame.context_line === 'string' || pre.length > 0 || post.length > 0;
  const hasVars = isRecord(frame.vars) && Object.keys(frame.vars).length > 0;
  const expandable = hasContext || hasVars;
  const [open, setOpen] = useState(initiallyOpen && expandable);
  const file = frame.filename ?? frame.abs_path ?? frame.module ?? '<unknown>';
  const location = typeof frame.lineno === 'number' ? `:${frame.lineno}${typeof frame.colno === 'number' ? `:${frame.colno}` : ''}` : '';
  const inApp = frame.in_app === true;

  const head = (
    <>
      <span class="frame-file mono">
        {file}
        <span class="frame-line">{location}</span>
      </span>
      {frame.function && (
        <span class="frame-fn">
          {' in '}
          <span class="mono">{frame.function}</span>
        </span>
      )}
      {inApp && <span class="badge badge-app">in app</span>}
    </>
  );

  return (
    <li class={`frame ${inApp ? 'frame-app' : 'frame-lib'}`}>
      {expandable ? (
        <button type="button" class="frame-head" aria-expanded={open} onClick={() => setOpen(!open)}>
          <span class="chevron" aria-hidden="true">{open ? '▾' : '▸'}</span>
          {head}
        </button>
      ) : (
        <div class="frame-head static">
          <span class="chevron" aria-hidden="true" />
          {head}
        </div>
      )}
      {open && hasContext && (
        <div class="context" role="region" aria-label={`Source around ${file}${location}`}>
          <table>
            <tbody>
              {pre.map((line, i) => (
                <SourceLine key={`pre${i}`} number={lineNumber(frame.lineno, i - pre.length)} text={line} />
              ))}
              {typeof frame.context_line === 'string' && <SourceLine number={frame.lineno} text={frame.context_line} current />}
              {post.map((line, i) => (
                <SourceLine key={`post${i}`} number={lineNumber(frame.lineno, i + 1)} text={line} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      {open && hasVars && (
        <details class="frame-vars">
          <summary>Local variables</summary>
          <KeyValue data={frame.vars} />
        </details>
      )}
    </li>
  );
}

function lineNumber(lineno: number | undefined, offset: number): number | undefined {
  return typeof lineno === 'number' ? lineno + offset : undefined;
}

function SourceLine({ number, text, current }: { number?: number; text: string; current?: boolean }) {
  return (
    <tr class={current ? 'current' : undefined} aria-current={current ? 'true' : undefined}>
      <td class="lineno">{number ?? ''}</td>
      <td class="code">
        <pre>{text === '' ? ' ' : text}</pre>
      </td>
    </tr>
  );
}
