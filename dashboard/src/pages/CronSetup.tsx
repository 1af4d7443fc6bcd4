import { useState } from 'preact/hooks';
import type { CronSchedule as Schedule, Project } from '../api';
import { checkInUrl } from '../monitor-words';
import { CodeSnippet, DsnField, SnippetTabs } from './DsnSetup';

/** What a snippet needs to know of the monitor: its slug and, when it exists, its settings. */
export interface CronSetupMonitor {
  slug: string;
  schedule: Schedule;
  timezone: string;
  checkin_margin: number;
  max_runtime: number;
}

function jsSchedule(schedule: Schedule): string {
  return schedule.type === 'crontab'
    ? `{ type: "crontab", value: ${JSON.stringify(String(schedule.value))} }`
    : `{ type: "interval", value: ${Number(schedule.value)}, unit: "${schedule.unit ?? 'minute'}" }`;
}

function pySchedule(schedule: Schedule): string {
  return schedule.type === 'crontab'
    ? `{"type": "crontab", "value": ${JSON.stringify(String(schedule.value))}}`
    : `{"type": "interval", "value": ${Number(schedule.value)}, "unit": "${schedule.unit ?? 'minute'}"}`;
}

const CLIENTS = {
  node: {
    label: 'Node.js',
    install: 'npm install @sentry/node',
    code: (dsn: string, m: CronSetupMonitor) => `const Sentry = require("@sentry/node");

Sentry.init({ dsn: "${dsn}" });

// Reports the run as in progress, then as ok, or as error if it throws.
// The config creates the monitor, or updates it, on the first check-in.
await Sentry.withMonitor(
  "${m.slug}",
  async () => {
    await runTheJob();
  },
  {
    schedule: ${jsSchedule(m.schedule)},
    timezone: "${m.timezone}",
    checkinMargin: ${m.checkin_margin}, // minutes
    maxRuntime: ${m.max_runtime}, // minutes
  },
);`,
  },
  python: {
    label: 'Python',
    install: 'pip install sentry-sdk',
    code: (dsn: string, m: CronSetupMonitor) => `import sentry_sdk

sentry_sdk.init(dsn="${dsn}")

monitor_config = {
    "schedule": ${pySchedule(m.schedule)},
    "timezone": "${m.timezone}",
    "checkin_margin": ${m.checkin_margin},  # minutes
    "max_runtime": ${m.max_runtime},  # minutes
}

@sentry_sdk.monitor(monitor_slug="${m.slug}", monitor_config=monitor_config)
def run_the_job():
    ...`,
  },
  curl: {
    label: 'curl',
    install: null,
    code: (dsn: string, m: CronSetupMonitor) => `CHECK_IN_URL="${checkInUrl(dsn, m.slug)}"
CHECK_IN_ID="$(cat /proc/sys/kernel/random/uuid 2>/dev/null || uuidgen)"

# The run starts:
curl -fsS "$CHECK_IN_URL?check_in_id=$CHECK_IN_ID&status=in_progress"

./run-the-job.sh

# It ended well (status=error when it failed):
curl -fsS "$CHECK_IN_URL?check_in_id=$CHECK_IN_ID&status=ok"`,
  },
  cli: {
    label: 'sentry-cli',
    install: 'npm install @sentry/cli',
    code: (dsn: string, m: CronSetupMonitor) => `export SENTRY_DSN="${dsn}"

# Runs the command and reports it: in progress, then ok or error by its exit code.
sentry-cli monitors run${m.schedule.type === 'crontab' ? ` --schedule "${String(m.schedule.value)}"` : ''} \\
  --check-in-margin ${m.checkin_margin} --max-runtime ${m.max_runtime} --timezone "${m.timezone}" \\
  ${m.slug} -- ./run-the-job.sh`,
  },
} as const;

type Client = keyof typeof CLIENTS;

/** How to send check-ins for a monitor, from each client, with the project's DSN filled in. */
export function CronSetup({ project, monitor }: { project: Project; monitor: CronSetupMonitor }) {
  const [client, setClient] = useState<Client>('node');
  const chosen = CLIENTS[client];
  const code = chosen.code(project.dsn, monitor);
  return (
    <div class="setup">
      <DsnField project={project} />
      <SnippetTabs label="Client" options={CLIENTS} chosen={client} onChoose={setClient} />
      <div role="tabpanel" aria-label={chosen.label}>
        {chosen.install && (
          <p class="setup-step">
            Install: <code>{chosen.install}</code>
          </p>
        )}
        <CodeSnippet code={code} />
      </div>
    </div>
  );
}
