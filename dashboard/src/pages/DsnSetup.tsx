import { useState } from 'preact/hooks';
import { useCan } from '../access';
import type { Project } from '../api';
import { CopyButton } from '../components';
import { TestEvent } from './TestEvent';

const SDKS = {
  node: {
    label: 'Node.js (@sentry/node)',
    install: 'npm install @sentry/node',
    code: (dsn: string, release: string) => `// Load this before anything else in your app's entry point.
const Sentry = require("@sentry/node");

Sentry.init({
  dsn: "${dsn}",
  // Which version runs, and where: for releases, regressions and release health.
  release: "${release}",
  environment: "production",
});

// Errors thrown and not caught are reported automatically; to report one yourself:
try {
  doSomething();
} catch (error) {
  Sentry.captureException(error);
}`,
  },
  browser: {
    label: 'Browser (@sentry/browser)',
    install: 'npm install @sentry/browser',
    code: (dsn: string, release: string) => `import * as Sentry from "@sentry/browser";

Sentry.init({
  dsn: "${dsn}",
  // Which version runs, and where: for releases, regressions and release health.
  release: "${release}",
  environment: "production",
});

// Unhandled errors and rejections are reported automatically; to report one yourself:
Sentry.captureException(new Error("Something went wrong"));`,
  },
} as const;

type Sdk = keyof typeof SDKS;

/** The row of tabs choosing which client's snippet shows. */
export function SnippetTabs<Key extends string>({
  label,
  options,
  chosen,
  onChoose,
}: {
  label: string;
  options: Record<Key, { label: string }>;
  chosen: Key;
  onChoose: (key: Key) => void;
}) {
  return (
    <div class="tabs small" role="tablist" aria-label={label}>
      {(Object.keys(options) as Key[]).map((key) => (
        <button
          key={key}
          type="button"
          role="tab"
          aria-selected={chosen === key}
          class={chosen === key ? 'tab active' : 'tab'}
          onClick={() => onChoose(key)}
        >
          {options[key].label}
        </button>
      ))}
    </div>
  );
}

/** A snippet to paste, with its copy button. */
export function CodeSnippet({ code }: { code: string }) {
  return (
    <div class="code-block">
      <pre>
        <code>{code}</code>
      </pre>
      <CopyButton text={code} label="Copy snippet" class="code-copy" />
    </div>
  );
}

export function DsnField({ project }: { project: Project }) {
  const id = `dsn-${project.id}`;
  return (
    <div class="dsn">
      <label for={id} class="dsn-label">
        DSN
      </label>
      <div class="dsn-row">
        <input id={id} class="mono" readOnly value={project.dsn} onFocus={(event) => event.currentTarget.select()} />
        <CopyButton text={project.dsn} label="Copy DSN" />
      </div>
    </div>
  );
}

/** `onTestEventStored`: the test event is stored, its issue listed: the page around may show it. */
export function DsnSetup({ project, onTestEventStored }: { project: Project; onTestEventStored?: () => void }) {
  const [sdk, setSdk] = useState<Sdk>('node');
  const canWrite = useCan()('project:write');
  const chosen = SDKS[sdk];
  const code = chosen.code(project.dsn, `${project.slug}@1.0.0`);
  return (
    <div class="setup">
      <DsnField project={project} />
      <SnippetTabs label="SDK" options={SDKS} chosen={sdk} onChoose={setSdk} />
      <div role="tabpanel">
        <p class="setup-step">
          1. Install: <code>{chosen.install}</code>
        </p>
        <p class="setup-step">2. Initialise the SDK with this project's DSN:</p>
        <CodeSnippet code={code} />
        {canWrite && <TestEvent projectId={project.id} onStored={onTestEventStored} />}
      </div>
    </div>
  );
}
