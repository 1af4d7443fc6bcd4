/**
 * The grouping corpus (test/grouping-corpus/): events as real SDKs send them (@sentry/node,
 * @sentry/browser, sentry-cli 2 and 3, and Debian's Python, Go and Ruby SDKs) and hostile payloads,
 * grouped the way the digest groups them. Each result must match its checked-in snapshot, and a
 * changed key needs a GROUPING_VERSION bump (test/grouping-corpus/corpus.ts says how to regenerate).
 * The facts below check that the grouping is right, not only stable.
 */
import { randomUUID } from 'node:crypto';
import {
  compare,
  CorpusPayload,
  explain,
  Grouping,
  groupingOf,
  loadPayloads,
  readSnapshots,
  SnapshotFile,
  writeSnapshots,
} from '../../test/grouping-corpus/corpus';
import { isRecord } from './event-normaliser';
import { GROUPING_VERSION } from './grouping';

const payloads = loadPayloads();
const byId = new Map(payloads.map((payload) => [`${payload.sdk}/${payload.name}`, payload]));
const groupings = new Map(
  payloads.map((payload) => [`${payload.sdk}/${payload.name}`, groupingOf(payload.payload)]),
);

function payloadOf(id: string): CorpusPayload {
  const payload = byId.get(id);
  if (!payload) throw new Error(`the corpus has no payload ${id}`);
  return payload;
}

function groupingFor(id: string): Grouping {
  payloadOf(id);
  return groupings.get(id) as Grouping;
}

const SDK_NAMES = ['browser', 'go', 'node', 'python', 'ruby', 'sentry-cli-2', 'sentry-cli-3'];
/** The SDKs whose programs run the same scenarios (a shop's errors, messages and fingerprints). */
const PROGRAM_SDKS = ['node', 'browser', 'python', 'go', 'ruby'];

describe('grouping corpus: snapshots', () => {
  it('holds payloads of every SDK and the hostile ones', () => {
    const counts = new Map<string, number>();
    for (const payload of payloads) counts.set(payload.sdk, (counts.get(payload.sdk) ?? 0) + 1);
    expect([...counts.keys()].sort()).toEqual([...SDK_NAMES, 'hostile'].sort());
    for (const count of counts.values()) expect(count).toBeGreaterThanOrEqual(8);
  });

  it('groups every payload as its snapshot records, at the GROUPING_VERSION recorded', () => {
    const comparison = compare(payloads, readSnapshots());
    if (process.env.UPDATE_GROUPING_SNAPSHOTS === '1' && comparison.differences.size > 0) {
      writeSnapshots(comparison);
      return;
    }
    const report = explain(comparison);
    if (report) throw new Error(report);
  });
});

describe('grouping corpus: the version gate', () => {
  const current = compare(payloads, readSnapshots()).computed;
  /** The current snapshots with one case of node changed by `change`. */
  function recordedWith(change: (file: SnapshotFile) => void): Map<string, SnapshotFile> {
    const recorded = new Map([...current].map(([sdk, file]) => [sdk, structuredClone(file)]));
    change(recorded.get('node') as SnapshotFile);
    return recorded;
  }

  it('refuses a changed key at the same GROUPING_VERSION, and says a bump is needed', () => {
    const recorded = recordedWith((file) => {
      file.cases['type-error'].key = `${GROUPING_VERSION}:${'0'.repeat(64)}`;
    });
    const comparison = compare(payloads, recorded);
    expect([...comparison.differences]).toEqual([['node/type-error', 'grouping changed']]);
    expect(explain(comparison)).toMatch(
      /Grouping changed for these payloads[^]*node\/type-error[^]*GROUPING_VERSION bump/,
    );
    expect(() => writeSnapshots(comparison)).toThrow(/Refusing to rewrite[^]*GROUPING_VERSION bump/);
  });

  it('refuses changed components at the same version too', () => {
    const recorded = recordedWith((file) => file.cases['message'].components.push('frame:extra:?'));
    const comparison = compare(payloads, recorded);
    expect([...comparison.differences.values()]).toEqual(['grouping changed']);
    expect(() => writeSnapshots(comparison)).toThrow(/Refusing/);
  });

  it('asks for regenerated snapshots, without refusing, after a version bump or a display change', () => {
    const bumped = compare(
      payloads,
      recordedWith((file) => {
        file.grouping_version = 'g0';
      }),
    );
    expect(new Set(bumped.differences.values())).toEqual(new Set(['grouping version changed']));
    const retitled = compare(
      payloads,
      recordedWith((file) => {
        file.cases['range-error'].culprit = 'elsewhere';
      }),
    );
    expect([...retitled.differences]).toEqual([['node/range-error', 'title, message or culprit changed']]);
    expect(explain(retitled)).toMatch(/npm run corpus:snapshots/);
  });
});

/**
 * Every SDK's payloads split by key into exactly these groups (the others alone): the same error
 * thrown twice from one code path, messages that differ only in numbers and ids, and different
 * errors under one custom fingerprint group together; any two other payloads do not.
 */
const GROUPED_TOGETHER: Record<string, string[][]> = {
  node: [
    ['type-error', 'type-error-again'],
    ['message', 'message-again'],
    ['custom-fingerprint', 'custom-fingerprint-other-error'],
  ],
  browser: [
    ['type-error', 'type-error-again'],
    ['message', 'message-again'],
    ['custom-fingerprint', 'custom-fingerprint-other-error'],
  ],
  python: [
    ['key-error', 'key-error-again'],
    ['message', 'message-again'],
    ['logging-message', 'logging-message-again'],
    ['custom-fingerprint', 'custom-fingerprint-other-error'],
  ],
  go: [
    ['index-out-of-range', 'index-out-of-range-again'],
    ['pkg-errors', 'pkg-errors-again'],
    ['message', 'message-again'],
    ['custom-fingerprint', 'custom-fingerprint-other-error'],
  ],
  ruby: [
    ['no-method-error', 'no-method-error-again'],
    ['message', 'message-again'],
    ['custom-fingerprint', 'custom-fingerprint-other-error'],
  ],
  'sentry-cli-3': [
    ['message', 'message-again'],
    ['message-params', 'message-params-again'],
    ['fingerprint', 'fingerprint-other-message'],
  ],
  'sentry-cli-2': [
    ['message', 'message-again'],
    ['message-params', 'message-params-again'],
    ['fingerprint', 'fingerprint-other-message'],
  ],
  hostile: [
    ['long-message', 'long-message-again'],
    ['deep-recursion', 'deep-recursion-again'],
    ['message-with-variables', 'message-with-variables-again'],
    ['logentry-params', 'logentry-params-again'],
    ['exception-values', 'exception-list', 'fingerprint-only-default'],
    ['bundle-hash', 'bundle-hash-again'],
    ['query-string', 'query-string-again'],
    ['v8-function-names', 'v8-function-names-again'],
  ],
};

function partitionByKey(sdk: string): string[][] {
  const groups = new Map<string, string[]>();
  for (const payload of payloads.filter((candidate) => candidate.sdk === sdk)) {
    const { key } = groupFor(payload);
    groups.set(key, [...(groups.get(key) ?? []), payload.name]);
  }
  return sorted([...groups.values()]);
}

function groupFor(payload: CorpusPayload): Grouping {
  return groupingFor(`${payload.sdk}/${payload.name}`);
}

function sorted(groups: string[][]): string[][] {
  return groups.map((group) => [...group].sort()).sort((a, b) => a[0].localeCompare(b[0]));
}

describe('grouping corpus: what groups together', () => {
  it.each(Object.keys(GROUPED_TOGETHER))('%s: exactly the expected payloads share a key', (sdk) => {
    const listed = GROUPED_TOGETHER[sdk].flat();
    for (const name of listed) payloadOf(`${sdk}/${name}`);
    const alone = payloads
      .filter((payload) => payload.sdk === sdk && !listed.includes(payload.name))
      .map((payload) => [payload.name]);
    expect(partitionByKey(sdk)).toEqual(sorted([...GROUPED_TOGETHER[sdk], ...alone]));
  });

  it('an error with a stack is grouped by its type and frames, not by its message', () => {
    for (const [sdk, name] of [
      ['node', 'type-error'],
      ['browser', 'type-error'],
      ['python', 'key-error'],
      ['go', 'index-out-of-range'],
      ['ruby', 'no-method-error'],
    ]) {
      const grouping = groupingFor(`${sdk}/${name}`);
      expect(grouping.components.length).toBeGreaterThan(2);
      expect(grouping.components.slice(1).every((component) => component.startsWith('frame:'))).toBe(true);
    }
  });

  it('a custom fingerprint wins over the error: only its parts are hashed, in every SDK', () => {
    const keys = new Set<string>();
    for (const sdk of PROGRAM_SDKS) {
      const fingerprinted = groupingFor(`${sdk}/custom-fingerprint`);
      const other = groupingFor(`${sdk}/custom-fingerprint-other-error`);
      expect(fingerprinted.components).toEqual(['fp:payment-gateway', 'fp:timeout']);
      expect(other.type).not.toBe(fingerprinted.type);
      keys.add(fingerprinted.key);
    }
    // Same fingerprint, same issue, whichever SDK sent it.
    expect(keys.size).toBe(1);
    expect(groupingFor('sentry-cli-3/fingerprint').components).toEqual(['fp:backup-failure']);
  });

  it('{{ default }} in a fingerprint stands for the components the event would have had', () => {
    const cases: [string, string][] = [
      ...PROGRAM_SDKS.map((sdk): [string, string] => [`${sdk}/fingerprint-default`, 'fp:tenant-eu']),
      ['sentry-cli-3/fingerprint-default', 'fp:nightly'],
      ['sentry-cli-2/fingerprint-default', 'fp:nightly'],
    ];
    for (const [id, extra] of cases) {
      const { fingerprint: _fingerprint, ...unfingerprinted } = payloadOf(id).payload;
      const defaults = groupingOf(unfingerprinted).components;
      expect(defaults[0]).toMatch(/^type:/);
      expect(groupingFor(id).components).toEqual([...defaults, extra]);
    }
    const { fingerprint: _fingerprint, ...plain } = payloadOf('hostile/fingerprint-only-default').payload;
    expect(groupingFor('hostile/fingerprint-only-default').key).toBe(groupingOf(plain).key);
  });

  it('messages are grouped by their text without numbers and ids, across SDKs', () => {
    const expected = 'message:Inventory sync took <num> ms for <num> items (job <uuid>)';
    const keys = new Set(
      ['node', 'python', 'go', 'ruby'].map((sdk) => {
        expect(groupingFor(`${sdk}/message`).components).toEqual(['type:Message', expected]);
        return groupingFor(`${sdk}/message`).key;
      }),
    );
    expect(keys.size).toBe(1);
    expect(groupingFor('python/logging-message').components).toEqual([
      'type:Message',
      'message:Order <num> failed after <num> retries',
    ]);
    expect(groupingFor('hostile/message-with-variables').components[1]).toBe(
      'message:User <email> (id <num>) from <ip> requested <url> at <date>: upstream <hex>, trace <hex>, ' +
        'request <uuid> failed after <num> s (code <num>)',
    );
  });

  it('chained exceptions are grouped by the one finally thrown', () => {
    for (const [id, type] of [
      ['node/error-with-cause', 'PaymentError'],
      ['browser/error-with-cause', 'PaymentError'],
      ['python/chained-cause', 'PaymentError'],
      ['python/chained-context', 'AttributeError'],
      ['ruby/chained-cause', 'Orders::PaymentError'],
      ['go/wrapped-error', '*fmt.wrapError'],
    ]) {
      expect(groupingFor(id)).toMatchObject({ type, components: expect.arrayContaining([`type:${type}`]) });
    }
  });

  it('both sentry-cli versions group every event alike', () => {
    for (const payload of payloads.filter((candidate) => candidate.sdk === 'sentry-cli-3')) {
      expect(groupingFor(`sentry-cli-2/${payload.name}`).key).toBe(groupFor(payload).key);
    }
  });
});

describe('grouping corpus: what must not matter', () => {
  it.each(payloads.map((payload) => [`${payload.sdk}/${payload.name}`, payload] as const))(
    '%s: volatile fields (ids, times, hosts, lines, paths) leave the key as it is',
    (_id, payload) => {
      const changed = groupingOf(
        withVolatileFieldsChanged(payload.payload),
        Date.parse('2031-06-01T00:00:00Z'),
      );
      const original = groupFor(payload);
      expect(changed.components).toEqual(original.components);
      expect(changed.key).toBe(original.key);
    },
  );
});

/**
 * A copy of `payload` as the same event would arrive another time, from another machine and build
 * folder: new ids and times, other host, release and context data, lines moved, files elsewhere.
 */
function withVolatileFieldsChanged(payload: Record<string, unknown>): Record<string, unknown> {
  const copy = structuredClone(payload);
  Object.assign(copy, {
    event_id: randomUUID().replace(/-/g, ''),
    timestamp: Date.parse('2031-05-31T23:59:00Z') / 1000,
    server_name: 'other-host-7',
    release: 'other@9.9.9',
    dist: '42',
    environment: 'staging',
    contexts: { os: { name: 'Windows' } },
    tags: { region: 'ap-south' },
    extra: { attempt: 3 },
    user: { id: 'someone-else' },
    breadcrumbs: [{ message: 'clicked', timestamp: 1 }],
    sdk: { name: 'sentry.other', version: '0.0.1' },
  });
  if (isRecord(copy.request)) copy.request.headers = { 'User-Agent': 'Other/1.0' };
  const exception = copy.exception;
  const values = Array.isArray(exception) ? exception : isRecord(exception) ? exception.values : [];
  const stacktraces = [
    copy.stacktrace,
    ...(Array.isArray(values) ? values : []).filter(isRecord).map((value) => value.stacktrace),
  ];
  for (const stacktrace of stacktraces) {
    if (!isRecord(stacktrace) || !Array.isArray(stacktrace.frames)) continue;
    for (const frame of stacktrace.frames.filter(isRecord)) moveFrame(frame);
  }
  return copy;
}

function moveFrame(frame: Record<string, unknown>): void {
  if (typeof frame.lineno === 'number') frame.lineno += 17;
  if (typeof frame.colno === 'number') frame.colno += 3;
  if ('context_line' in frame) frame.context_line = '  // moved';
  if (typeof frame.project_root === 'string') frame.project_root = '/home/other/shop';
  for (const field of ['filename', 'abs_path']) {
    const path = frame[field];
    // Another folder or origin; the file's own name stays.
    if (typeof path === 'string') frame[field] = path.replace(/^[^?#]*[/\\]/, '/home/other/build/');
  }
}
