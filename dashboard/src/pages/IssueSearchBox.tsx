import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { call, client, ProjectTag } from '../api';
import { quoteValue, replaceTerm, splitTerm, termAt } from '../search-query';

interface Suggestion {
  /** What replaces the term under the caret. */
  insert: string;
  label: string;
  detail?: string;
}

/** Keys with a meaning of their own (see docs/api.md, "Searching issues"), in the order offered. */
/** Keys whose values are the project's releases. */
const RELEASE_KEYS = ['release', 'first_release', 'resolved_in'];

const KEYS: { key: string; detail: string; values?: { value: string; detail?: string }[] }[] = [
  {
    key: 'is',
    detail: 'state',
    values: [
      { value: 'unresolved', detail: 'open' },
      { value: 'resolved' },
      { value: 'muted' },
      { value: 'assigned', detail: 'to anyone' },
      { value: 'unassigned', detail: 'to nobody' },
    ],
  },
  {
    key: 'assigned',
    detail: 'me, an e-mail, or #team',
    values: [{ value: 'me', detail: 'assigned to you' }],
  },
  {
    key: 'level',
    detail: 'fatal, error, warning, info, debug',
    values: ['fatal', 'error', 'warning', 'info', 'debug'].map((value) => ({ value })),
  },
  { key: 'environment', detail: 'where events were sent from' },
  { key: 'release', detail: 'a version events were sent from' },
  { key: 'first_release', detail: 'the version an issue was first seen in' },
  { key: 'resolved_in', detail: 'the version an issue was resolved in' },
  { key: 'user.id', detail: 'an affected user' },
  { key: 'user.email', detail: 'an affected user' },
  {
    key: 'first_seen',
    detail: 'e.g. -24h, -7d, >2026-01-01',
    values: [
      { value: '-1h', detail: 'within the last hour' },
      { value: '-24h', detail: 'within the last day' },
      { value: '-7d', detail: 'within the last week' },
      { value: '-30d', detail: 'within the last 30 days' },
    ],
  },
  {
    key: 'last_seen',
    detail: 'e.g. -1h, <-7d',
    values: [
      { value: '-1h', detail: 'within the last hour' },
      { value: '-24h', detail: 'within the last day' },
      { value: '<-7d', detail: 'not for a week' },
    ],
  },
  {
    key: 'times_seen',
    detail: 'events, e.g. >100',
    values: [{ value: '>10' }, { value: '>100' }, { value: '>1000' }],
  },
  { key: 'users', detail: 'users affected, e.g. >10', values: [{ value: '>1' }, { value: '>10' }, { value: '>100' }] },
];

const MAX_SUGGESTIONS = 12;

/** What the project's events make searchable, loaded once when the box is first used. */
interface Vocabulary {
  tags: ProjectTag[];
  environments: string[];
  releases: string[];
}

function useVocabulary(projectId: number, wanted: boolean): Vocabulary | undefined {
  const [vocabulary, setVocabulary] = useState<Vocabulary | undefined>(undefined);
  useEffect(() => setVocabulary(undefined), [projectId]);
  useEffect(() => {
    if (!wanted || vocabulary) return;
    let current = true;
    // Suggestions are a convenience: one that cannot be loaded leaves its list empty.
    void Promise.all([
      call(client.GET('/api/projects/{id}/tags', { params: { path: { id: projectId } } })).catch(() => ({ data: [] })),
      call(client.GET('/api/projects/{id}/environments', { params: { path: { id: projectId } } })).catch(() => ({
        data: [],
      })),
      call(
        client.GET('/api/projects/{projectId}/releases', { params: { path: { projectId }, query: { limit: 100 } } }),
      ).catch(() => ({ data: [] })),
    ]).then(([tags, environments, releases]) => {
      if (!current) return;
      setVocabulary({
        tags: tags.data,
        environments: environments.data.map((environment) => environment.name),
        releases: releases.data.map((release) => release.version),
      });
    });
    return () => {
      current = false;
    };
  }, [projectId, wanted, vocabulary]);
  return vocabulary;
}

/** Values of a tag key starting with `prefix`, asked of the server as the user types (debounced). */
function useTagValues(projectId: number, key: string | null, prefix: string): string[] | undefined {
  const [values, setValues] = useState<string[] | undefined>(undefined);
  useEffect(() => {
    setValues(undefined);
    if (!key) return;
    let current = true;
    const timer = window.setTimeout(() => {
      call(client.GET('/api/projects/{id}/tags/{key}', { params: { path: { id: projectId, key }, query: { query: prefix } } })).then(
          (answer) => current && setValues(answer.data.map((row) => row.value)),
          () => current && setValues([]),
        );
    }, 150);
    return () => {
      current = false;
      window.clearTimeout(timer);
    };
  }, [projectId, key, prefix]);
  return values;
}

function startsWith(text: string, prefix: string): boolean {
  return text.toLowerCase().startsWith(prefix.toLowerCase());
}

/**
 * The issue search box: the query language with suggestions of keys and, after `key:`, of the
 * values the project's events have (from the rollups). Enter searches; arrows and Enter pick a
 * suggestion; Escape closes the list.
 */
export function IssueSearchBox({ projectId, value, onSearch }: { projectId: number; value: string; onSearch: (query: string) => void }) {
  const [text, setText] = useState(value);
  const [caret, setCaret] = useState(value.length);
  const [open, setOpen] = useState(false);
  const [used, setUsed] = useState(false);
  const [highlight, setHighlight] = useState(-1);
  const input = useRef<HTMLInputElement>(null);
  const pendingCaret = useRef<number | null>(null);
  useEffect(() => setText(value), [value]);

  const vocabulary = useVocabulary(projectId, used);
  const term = termAt(text, caret);
  const parts = splitTerm(term.text);
  const builtIn = parts ? KEYS.find((key) => key.key === parts.key) : undefined;
  const releaseKey = parts !== null && RELEASE_KEYS.includes(parts.key);
  const askServer = parts && !builtIn?.values && parts.key !== 'environment' && !releaseKey ? parts.key : null;
  const serverValues = useTagValues(projectId, open ? askServer : null, parts?.value ?? '');

  const suggestions = useMemo((): Suggestion[] => {
    if (parts) {
      const negation = parts.negated ? '!' : '';
      const candidates: { value: string; detail?: string }[] =
        builtIn?.values ??
        (parts.key === 'environment'
          ? (vocabulary?.environments ?? []).map((name) => ({ value: name }))
          : releaseKey
            ? (vocabulary?.releases ?? []).map((version) => ({ value: version }))
            : (serverValues ?? []).map((name) => ({ value: name })));
      return candidates
        .filter((candidate) => startsWith(candidate.value, parts.value))
        .slice(0, MAX_SUGGESTIONS)
        .map((candidate) => ({
          insert: `${negation}${parts.key}:${quoteValue(candidate.value)}`,
          label: `${parts.key}:${candidate.value}`,
          detail: candidate.detail,
        }));
    }
    const typed = term.text.replace(/^!/, '');
    const negation = term.text.startsWith('!') ? '!' : '';
    if (typed.startsWith('"')) return [];
    const keys = [
      ...KEYS.map((key) => ({ key: key.key, detail: key.detail })),
      ...(vocabulary?.tags ?? [])
        .filter((tag) => !KEYS.some((key) => key.key === tag.key) && tag.key !== 'user')
        .map((tag) => ({ key: tag.key, detail: `tag, ${tag.total.toLocaleString()} events` })),
    ];
    return keys
      .filter((key) => startsWith(key.key, typed) && key.key !== typed)
      .slice(0, MAX_SUGGESTIONS)
      .map((key) => ({ insert: `${negation}${key.key}:`, label: `${key.key}:`, detail: key.detail }));
  }, [text, caret, vocabulary, serverValues]);

  useEffect(() => setHighlight(-1), [text, caret]);
  useEffect(() => {
    if (pendingCaret.current === null || !input.current) return;
    input.current.setSelectionRange(pendingCaret.current, pendingCaret.current);
    pendingCaret.current = null;
  });

  const choose = (suggestion: Suggestion) => {
    const next = replaceTerm(text, term, suggestion.insert);
    setText(next.query);
    setCaret(next.caret);
    pendingCaret.current = next.caret;
    setOpen(true);
    input.current?.focus();
  };

  const submit = () => {
    setOpen(false);
    onSearch(text.trim());
  };

  const showList = open && suggestions.length > 0;
  const optionId = (index: number) => `issue-search-option-${index}`;

  return (
    <form
      class="search-box"
      role="search"
      onSubmit={(event) => {
        event.preventDefault();
        submit();
      }}
    >
      <label for="issue-search" class="sr-only">
        Search issues
      </label>
      <input
        id="issue-search"
        ref={input}
        type="search"
        class="search-input mono"
        role="combobox"
        list={undefined}
        aria-autocomplete="list"
        aria-expanded={showList}
        aria-controls="issue-search-suggestions"
        aria-activedescendant={showList && highlight >= 0 ? optionId(highlight) : undefined}
        autocomplete="off"
        spellcheck={false}
        placeholder="is:unresolved level:error environment:production TypeError"
        value={text}
        onFocus={() => {
          setUsed(true);
          setOpen(true);
        }}
        onBlur={() => window.setTimeout(() => setOpen(false), 150)}
        onInput={(event) => {
          setText(event.currentTarget.value);
          setCaret(event.currentTarget.selectionStart ?? event.currentTarget.value.length);
          setOpen(true);
        }}
        onKeyUp={(event) => setCaret(event.currentTarget.selectionStart ?? text.length)}
        onClick={(event) => setCaret(event.currentTarget.selectionStart ?? text.length)}
        onKeyDown={(event) => {
          if (event.key === 'ArrowDown' && suggestions.length) {
            event.preventDefault();
            setOpen(true);
            setHighlight((highlight + 1) % suggestions.length);
          } else if (event.key === 'ArrowUp' && suggestions.length) {
            event.preventDefault();
            setHighlight(highlight <= 0 ? suggestions.length - 1 : highlight - 1);
          } else if (event.key === 'Enter' && showList && highlight >= 0) {
            event.preventDefault();
            choose(suggestions[highlight]);
          } else if (event.key === 'Escape') {
            setOpen(false);
          }
        }}
      />
      <button type="submit" class="btn btn-small">
        Search
      </button>
      {showList && (
        <ul id="issue-search-suggestions" class="suggestions" role="listbox" aria-label="Suggestions">
          {suggestions.map((suggestion, index) => (
            <li
              key={suggestion.insert}
              id={optionId(index)}
              role="option"
              aria-selected={index === highlight}
              class={index === highlight ? 'suggestion active' : 'suggestion'}
              onMouseDown={(event) => {
                event.preventDefault();
                choose(suggestion);
              }}
            >
              <span class="mono">{suggestion.label}</span>
              {suggestion.detail && <span class="muted small">{suggestion.detail}</span>}
            </li>
          ))}
        </ul>
      )}
    </form>
  );
}
