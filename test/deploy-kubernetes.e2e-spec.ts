import { loadAll, YAML11_SCHEMA } from 'js-yaml';
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describedVariables } from '../src/config/describe';
import { Environment, validateEnvironment } from '../src/config/environment';
import { QUERY_TIMEOUT_MS } from '../src/schema/data-source-options';
import { startTestApp } from './helpers/app';
import { configurationVariables as readConfigurationVariables } from './helpers/config-variables';
import { testDatabaseUrl, TEST_REDIS_URL } from './helpers/test-env';

/**
 * The Kubernetes manifests against the application itself: every variable they set is one the
 * service reads, every probe path answers in the role the pod runs, the commands exist, and the
 * Service, autoscaler and disruption budget select the pods they are meant for.
 */

const root = join(__dirname, '..');
const run = promisify(execFile);
const manifestDir = join(root, 'deploy', 'kubernetes');

type Labels = Record<string, string>;

interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Labels };
  spec?: unknown;
  data?: Record<string, unknown>;
  stringData?: Record<string, unknown>;
}

interface Probe {
  httpGet?: { path: string; port: string | number };
}

interface Container {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  env?: { name: string; value?: unknown; valueFrom?: unknown }[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string }; prefix?: string }[];
  ports?: { name?: string; containerPort: number }[];
  startupProbe?: Probe;
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  lifecycle?: { preStop?: { exec?: { command: string[] } } };
  resources?: { requests?: Record<string, string | number>; limits?: Record<string, string | number> };
  securityContext?: { runAsNonRoot?: boolean; runAsUser?: number };
}

interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  terminationGracePeriodSeconds?: number;
  securityContext?: { runAsNonRoot?: boolean; runAsUser?: number };
}

interface Workload extends KubeObject {
  spec: {
    replicas?: number;
    selector?: { matchLabels?: Labels };
    template: { metadata: { labels?: Labels }; spec: PodSpec };
  };
}

interface Selector {
  matchLabels?: Labels;
}

/** Parsed as Kubernetes parses YAML (1.1): an unquoted `on` or `010` is not a string there either. */
function parseYaml(file: string): unknown[] {
  return loadAll(readFileSync(file, 'utf8'), { schema: YAML11_SCHEMA }).filter((doc) => doc != null);
}

const manifestFiles = readdirSync(manifestDir)
  .filter((name) => /\.ya?ml$/.test(name))
  .sort();
const kustomization = manifestFiles.includes('kustomization.yaml')
  ? (parseYaml(join(manifestDir, 'kustomization.yaml'))[0] as {
      resources?: string[];
      images?: { name: string }[];
    })
  : undefined;
const objects = manifestFiles
  .filter((name) => name !== 'kustomization.yaml')
  .flatMap((name) => parseYaml(join(manifestDir, name)) as KubeObject[]);

const ofKind = <T extends KubeObject = KubeObject>(kind: string): T[] =>
  objects.filter((object) => object.kind === kind) as T[];
const workloads = objects.filter(
  (object) => (object.spec as Workload['spec'] | undefined)?.template?.spec?.containers !== undefined,
) as Workload[];
const deployments = ofKind<Workload>('Deployment');
const podContainers = (workload: Workload): Container[] => [
  ...(workload.spec.template.spec.initContainers ?? []),
  ...workload.spec.template.spec.containers,
];
const allContainers = workloads.flatMap((workload) =>
  podContainers(workload).map((container) => ({ workload, container })),
);

/** The variables of the configuration schema, read from its declaration (src/config). */
const configurationVariables = new Set(readConfigurationVariables());
/** Those the declaration marks as secrets (credentials). */
const secretVariables = new Set(
  describedVariables(Environment)
    .filter((variable) => variable.secret)
    .map((variable) => variable.name),
);

function named(kind: 'ConfigMap' | 'Secret', name: string): KubeObject {
  const found = ofKind(kind).find((object) => object.metadata.name === name);
  if (!found) throw new Error(`${kind} ${name} is referenced but not defined in deploy/kubernetes`);
  return found;
}

function secretValues(secret: KubeObject): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [key, value] of Object.entries(secret.stringData ?? {})) values[key] = String(value);
  for (const [key, value] of Object.entries(secret.data ?? {}))
    values[key] = Buffer.from(String(value), 'base64').toString('utf8');
  return values;
}

interface EnvironmentSource {
  name: string;
  source: string;
  value: unknown;
  secret: boolean;
}

/** Every variable a container gets, with where it comes from (one entry per place that sets it). */
function containerVariables(container: Container): EnvironmentSource[] {
  const variables: EnvironmentSource[] = [];
  for (const from of container.envFrom ?? []) {
    const prefix = from.prefix ?? '';
    if (from.configMapRef) {
      const map = named('ConfigMap', from.configMapRef.name);
      for (const [key, value] of Object.entries(map.data ?? {}))
        variables.push({
          name: prefix + key,
          source: `ConfigMap ${map.metadata.name}`,
          value,
          secret: false,
        });
    }
    if (from.secretRef) {
      const secret = named('Secret', from.secretRef.name);
      for (const [key, value] of Object.entries(secretValues(secret)))
        variables.push({ name: prefix + key, source: `Secret ${secret.metadata.name}`, value, secret: true });
    }
  }
  for (const entry of container.env ?? [])
    variables.push({
      name: entry.name,
      source: 'env',
      value: entry.value,
      secret: entry.valueFrom !== undefined,
    });
  return variables;
}

/** The non-secret environment of a container as the process sees it, over the image's own ENV. */
function plainEnvironment(container: Container): Record<string, string> {
  const environment: Record<string, string> = { ...imageEnvironment() };
  for (const variable of containerVariables(container))
    if (!variable.secret && variable.value !== undefined) environment[variable.name] = String(variable.value);
  return environment;
}

/** The runtime stage's ENV of the Dockerfile (PORT, HOST …). */
function imageEnvironment(): Record<string, string> {
  const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8').replace(/\\\n/g, ' ');
  const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
  const environment: Record<string, string> = {};
  for (const line of runtime.split('\n').filter((text) => /^ENV\s/.test(text)))
    for (const [, key, value] of line.matchAll(/([A-Z_][A-Z0-9_]*)=(\S+)/g)) environment[key] = value;
  return environment;
}

function imageEntryPoint(): string[] {
  const match = /^CMD (\[.*\])$/m.exec(readFileSync(join(root, 'Dockerfile'), 'utf8'));
  if (!match) throw new Error('the Dockerfile has no exec-form CMD');
  return JSON.parse(match[1]) as string[];
}

const roleOf = (container: Container): string => validateEnvironment(plainEnvironment(container)).APP_ROLE;

function matches(selector: Selector | undefined, labels: Labels | undefined): boolean {
  const wanted = Object.entries(selector?.matchLabels ?? {});
  return wanted.length > 0 && wanted.every(([key, value]) => labels?.[key] === value);
}

function probesOf(container: Container): [string, Probe][] {
  return (['startupProbe', 'livenessProbe', 'readinessProbe'] as const)
    .filter((kind) => container[kind] !== undefined)
    .map((kind) => [kind, container[kind] as Probe]);
}

function portNumber(container: Container, port: string | number): number | undefined {
  if (typeof port === 'number')
    return container.ports?.some((p) => p.containerPort === port) ? port : undefined;
  return container.ports?.find((p) => p.name === port)?.containerPort;
}

/** Kubernetes quantities: `500m`, `1`, `256Mi`, `1G` … as a plain number (cores, bytes). */
function quantity(value: string | number): number {
  const match = /^(\d+(?:\.\d+)?)(m|k|M|G|T|Ki|Mi|Gi|Ti)?$/.exec(String(value));
  if (!match) throw new Error(`not a quantity: ${value}`);
  const factors: Record<string, number> = {
    m: 1e-3,
    k: 1e3,
    M: 1e6,
    G: 1e9,
    T: 1e12,
    Ki: 2 ** 10,
    Mi: 2 ** 20,
    Gi: 2 ** 30,
    Ti: 2 ** 40,
  };
  return Number(match[1]) * (match[2] ? factors[match[2]] : 1);
}

/** `node [flags] dist/x.js [args]` → its flags, the script and the script's arguments. */
function nodeInvocation(container: Container): { flags: string[]; script: string; args: string[] } {
  const argv = [...(container.command ?? imageEntryPoint()), ...(container.args ?? [])];
  expect(argv[0]).toBe('node');
  const scriptIndex = argv.findIndex((arg, index) => index > 0 && !arg.startsWith('-'));
  expect(scriptIndex).toBeGreaterThan(0);
  return { flags: argv.slice(1, scriptIndex), script: argv[scriptIndex], args: argv.slice(scriptIndex + 1) };
}

/** The TypeScript source a compiled entry point of the image comes from (dist/x.js ← src/x.ts). */
function sourceOf(script: string): string {
  return join(root, script.replace(/^dist\//, 'src/').replace(/\.js$/, '.ts'));
}

const label = ({ workload, container }: { workload: Workload; container: Container }) =>
  `${workload.kind} ${workload.metadata.name}, container ${container.name}`;

describe('Kubernetes manifests (deploy/kubernetes)', () => {
  it('parse, and the kustomization lists every one of them', () => {
    expect(objects.length).toBeGreaterThan(0);
    for (const object of objects) {
      expect(object).toEqual(
        expect.objectContaining({
          apiVersion: expect.any(String),
          kind: expect.any(String),
          metadata: expect.objectContaining({ name: expect.any(String) }),
        }),
      );
    }
    expect(kustomization?.resources?.slice().sort()).toEqual(
      manifestFiles.filter((name) => name !== 'kustomization.yaml'),
    );
    // One image for every role, named once in the kustomization's `images`.
    const images = new Set(allContainers.map(({ container }) => container.image));
    expect([...images]).toHaveLength(1);
    expect(kustomization?.images?.map((image) => image.name)).toEqual([...images]);
  });

  it('run the api and the worker roles, and a Job', () => {
    const roles = deployments.flatMap((deployment) => deployment.spec.template.spec.containers.map(roleOf));
    expect(roles.slice().sort()).toEqual(['api', 'worker']);
    expect(ofKind('Job').length).toBeGreaterThan(0);
    for (const workload of deployments) expect(workload.spec.selector).toBeDefined();
    for (const workload of deployments)
      expect(matches(workload.spec.selector, workload.spec.template.metadata.labels)).toBe(true);
  });

  it('set only configuration variables, each in one place, with non-secret values that pass validation', () => {
    expect(configurationVariables.size).toBeGreaterThan(15);
    for (const entry of allContainers) {
      const variables = containerVariables(entry.container);
      expect(variables.length).toBeGreaterThan(0);
      const unknown = variables
        .filter((variable) => !configurationVariables.has(variable.name))
        .map(({ name, source }) => ({ name, source }));
      expect({ where: label(entry), unknown }).toEqual({ where: label(entry), unknown: [] });
      const sources = new Map<string, string[]>();
      for (const variable of variables)
        sources.set(variable.name, [...(sources.get(variable.name) ?? []), variable.source]);
      const repeated = [...sources].filter(([, places]) => places.length > 1);
      expect({ where: label(entry), repeated }).toEqual({ where: label(entry), repeated: [] });
      expect(() => validateEnvironment(plainEnvironment(entry.container))).not.toThrow();
    }
    // The same variable must not be set both in a ConfigMap and in a Secret, even for different pods.
    const configKeys = ofKind('ConfigMap').flatMap((map) => Object.keys(map.data ?? {}));
    const secretKeys = ofKind('Secret').flatMap((secret) => Object.keys(secretValues(secret)));
    expect(configKeys.filter((key) => secretKeys.includes(key))).toEqual([]);
    for (const key of [...configKeys, ...secretKeys]) expect(configurationVariables).toContain(key);
    // Kubernetes refuses a ConfigMap value that is not a string.
    for (const map of ofKind('ConfigMap'))
      for (const [key, value] of Object.entries(map.data ?? {}))
        expect({ key, type: typeof value }).toEqual({ key, type: 'string' });
  });

  it('ship the Secret as a template of placeholders, never real credentials', () => {
    const secrets = ofKind('Secret');
    expect(secrets.length).toBeGreaterThan(0);
    for (const secret of secrets) {
      const values = secretValues(secret);
      expect(Object.keys(values).length).toBeGreaterThan(0);
      for (const [key, value] of Object.entries(values))
        expect({ key, value }).toEqual({ key, value: expect.stringContaining('REPLACE-ME') });
    }
  });

  it('keep the variables declared secret in the Secret, and only those', () => {
    expect(secretVariables.size).toBeGreaterThan(0);
    const secretKeys = ofKind('Secret').flatMap((secret) => Object.keys(secretValues(secret)));
    expect(secretKeys.filter((key) => !secretVariables.has(key))).toEqual([]);
    const inPlainSight = [
      ...ofKind('ConfigMap').flatMap((map) => Object.keys(map.data ?? {})),
      ...allContainers.flatMap(({ container }) =>
        (container.env ?? []).filter((entry) => entry.value !== undefined).map((entry) => entry.name),
      ),
    ];
    expect(inPlainSight.filter((key) => secretVariables.has(key))).toEqual([]);
  });

  it('declare the port the server listens on (PORT), and probes and the Service use it', () => {
    for (const entry of allContainers) {
      if (entry.workload.kind !== 'Deployment') continue;
      const port = validateEnvironment(plainEnvironment(entry.container)).PORT;
      const declared = (entry.container.ports ?? []).map((p) => p.containerPort);
      expect({ where: label(entry), declared }).toEqual({ where: label(entry), declared: [port] });
      const probes = probesOf(entry.container);
      expect(probes.map(([kind]) => kind)).toEqual(
        expect.arrayContaining(['livenessProbe', 'readinessProbe']),
      );
      for (const [kind, probe] of probes) {
        expect({ where: label(entry), kind, path: probe.httpGet?.path }).toEqual({
          where: label(entry),
          kind,
          path: expect.stringMatching(/^\//),
        });
        expect(portNumber(entry.container, probe.httpGet!.port)).toBe(port);
      }
    }
    for (const service of ofKind('Service')) {
      const spec = service.spec as { selector: Labels; ports: { targetPort: string | number }[] };
      const selected = deployments.filter((deployment) =>
        matches({ matchLabels: spec.selector }, deployment.spec.template.metadata.labels),
      );
      expect(selected.length).toBeGreaterThan(0);
      for (const deployment of selected)
        for (const { targetPort } of spec.ports)
          for (const container of deployment.spec.template.spec.containers)
            expect(portNumber(container, targetPort)).toBe(
              validateEnvironment(plainEnvironment(container)).PORT,
            );
    }
  });

  it('probe paths that answer in the role each pod runs', async () => {
    const byRole = new Map<string, Set<string>>();
    for (const deployment of deployments)
      for (const container of deployment.spec.template.spec.containers) {
        const paths = byRole.get(roleOf(container)) ?? new Set<string>();
        for (const [, probe] of probesOf(container)) paths.add(probe.httpGet!.path);
        byRole.set(roleOf(container), paths);
      }
    expect([...byRole.keys()].sort()).toEqual(['api', 'worker']);
    for (const [role, paths] of byRole) {
      const t = await startTestApp({ APP_ROLE: role });
      try {
        for (const path of paths) {
          const response = await t.http().get(path);
          expect({ role, path, status: response.status }).toEqual({ role, path, status: 200 });
        }
      } finally {
        await t.close();
      }
    }
  });

  it('run the entry points of the image, and the Job runs the pending migrations and exits', async () => {
    // A container without a command runs the image's CMD.
    const imageScript = nodeInvocation({ name: 'image', image: '' }).script;
    for (const entry of allContainers) {
      const { flags, script } = nodeInvocation(entry.container);
      expect({ where: label(entry), source: existsSync(sourceOf(script)) }).toEqual({
        where: label(entry),
        source: true,
      });
      if (entry.workload.kind === 'Deployment') expect(script).toBe(imageScript);
      // Node accepts the flags (a misspelt one stops it before the service starts).
      if (flags.length > 0) await expect(run('node', [...flags, '-e', ''])).resolves.toBeDefined();
    }
    for (const job of ofKind<Workload>('Job'))
      for (const container of job.spec.template.spec.containers) {
        const { script, args } = nodeInvocation(container);
        const result = await run(
          'node',
          ['-r', 'ts-node/register/transpile-only', sourceOf(script), ...args],
          {
            cwd: root,
            timeout: 60_000,
            env: {
              ...process.env,
              ...plainEnvironment(container),
              DATABASE_URL: testDatabaseUrl(),
              REDIS_URL: TEST_REDIS_URL,
              REDIS_PREFIX: 'test-deploy-kubernetes',
              CREATE_SUPERUSER: '',
            },
          },
        );
        // global-setup migrated the test database already: the command finds nothing to do, and exits 0.
        expect(result.stdout.trim()).toBe('no pending migrations');
      }
  });

  it('point the Service, the autoscaler and the disruption budgets at the right pods', () => {
    const api = deployments.filter((deployment) =>
      deployment.spec.template.spec.containers.some((c) => roleOf(c) === 'api'),
    );
    expect(api).toHaveLength(1);
    const apiPods = api[0].spec.template.metadata.labels;
    const otherPods = workloads
      .filter((workload) => workload !== api[0])
      .map((workload) => workload.spec.template.metadata.labels);

    const services = ofKind('Service');
    expect(services.length).toBeGreaterThan(0);
    for (const service of services) {
      const selector = { matchLabels: (service.spec as { selector: Labels }).selector };
      expect(matches(selector, apiPods)).toBe(true);
      // A worker behind the Service would receive API traffic it does not serve.
      for (const labels of otherPods) expect(matches(selector, labels)).toBe(false);
    }

    const autoscalers = ofKind('HorizontalPodAutoscaler');
    expect(autoscalers.map((hpa) => hpa.apiVersion)).toEqual(['autoscaling/v2']);
    const hpa = autoscalers[0].spec as {
      scaleTargetRef: { apiVersion: string; kind: string; name: string };
      minReplicas: number;
      maxReplicas: number;
      metrics: { resource?: { name: string } }[];
    };
    expect(hpa.scaleTargetRef).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: api[0].metadata.name,
    });
    expect(hpa.maxReplicas).toBeGreaterThan(hpa.minReplicas);
    // Utilization is measured against the requests: every scaled container must request what is measured.
    expect(hpa.metrics.filter((metric) => metric.resource).length).toBeGreaterThan(0);
    for (const metric of hpa.metrics)
      if (metric.resource)
        for (const container of api[0].spec.template.spec.containers)
          expect(container.resources?.requests?.[metric.resource.name]).toBeDefined();

    const budgets = ofKind('PodDisruptionBudget');
    expect(budgets.length).toBeGreaterThan(0);
    expect(budgets.every((budget) => budget.apiVersion === 'policy/v1')).toBe(true);
    for (const budget of budgets) {
      const spec = budget.spec as { selector: Selector; minAvailable?: number };
      expect(
        workloads.some((workload) => matches(spec.selector, workload.spec.template.metadata.labels)),
      ).toBe(true);
    }
    const apiBudgets = budgets.filter((budget) =>
      matches((budget.spec as { selector: Selector }).selector, apiPods),
    );
    expect(apiBudgets).toHaveLength(1);
    // A budget that needs every replica up would block node drains for good.
    const minAvailable = (apiBudgets[0].spec as { minAvailable?: number }).minAvailable;
    if (minAvailable !== undefined)
      expect(minAvailable).toBeLessThan(Math.min(hpa.minReplicas, api[0].spec.replicas ?? 1));
  });

  it('request CPU and memory for every container, with the V8 heap below the memory limit', () => {
    for (const entry of allContainers) {
      const { requests, limits } = entry.container.resources ?? {};
      expect({
        where: label(entry),
        cpu: requests?.cpu !== undefined,
        memory: requests?.memory !== undefined,
      }).toEqual({
        where: label(entry),
        cpu: true,
        memory: true,
      });
      if (limits?.memory !== undefined && requests?.memory !== undefined)
        expect(quantity(limits.memory)).toBeGreaterThanOrEqual(quantity(requests.memory));
      const heap = nodeInvocation(entry.container)
        .flags.map((flag) => /^--max-old-space-size=(\d+)$/.exec(flag))
        .find((match) => match !== null);
      if (heap) {
        expect(limits?.memory).toBeDefined();
        expect(Number(heap[1]) * 2 ** 20).toBeLessThan(quantity(limits!.memory!));
      }
    }
  });

  it("run as the image's non-root user, and give pods time to finish their work on SIGTERM", () => {
    // The Dockerfile's USER is a name: the kubelet can only enforce runAsNonRoot with a numeric uid.
    const user = /^USER (\S+)$/m.exec(readFileSync(join(root, 'Dockerfile'), 'utf8'))?.[1];
    expect(user).toBeDefined();
    for (const entry of allContainers) {
      const pod = entry.workload.spec.template.spec.securityContext ?? {};
      const own = entry.container.securityContext ?? {};
      expect({ where: label(entry), runAsNonRoot: own.runAsNonRoot ?? pod.runAsNonRoot }).toEqual({
        where: label(entry),
        runAsNonRoot: true,
      });
      if (!/^\d+$/.test(user!)) expect(own.runAsUser ?? pod.runAsUser).toBeGreaterThan(0);
    }
    for (const deployment of deployments)
      for (const container of deployment.spec.template.spec.containers) {
        const config = validateEnvironment(plainEnvironment(container));
        const grace = deployment.spec.template.spec.terminationGracePeriodSeconds ?? 30;
        const preStop = container.lifecycle?.preStop?.exec?.command ?? [];
        const pause = preStop[0] === 'sleep' ? Number(preStop[1]) : 0;
        // HTTP: a request that has begun may take REQUEST_TIMEOUT_SECONDS to arrive.
        if (config.APP_ROLE !== 'worker')
          expect(grace).toBeGreaterThanOrEqual(pause + config.REQUEST_TIMEOUT_SECONDS);
        // Workers: a batch's query may take the query timeout before it fails and is retried.
        if (config.APP_ROLE !== 'api') expect(grace).toBeGreaterThan(pause + QUERY_TIMEOUT_MS / 1000);
      }
  });
});

describe('docker-compose.yml', () => {
  it("sets only configuration variables on the service's containers, with defaults that pass validation", () => {
    const [compose] = parseYaml(join(root, 'docker-compose.yml')) as {
      services: Record<
        string,
        {
          build?: unknown;
          image?: string;
          environment?: Record<string, unknown> | string[];
          ports?: string[];
        }
      >;
    }[];
    const own = Object.entries(compose.services).filter(
      ([, service]) => service.build !== undefined || service.image?.startsWith('error-tracker'),
    );
    expect(own.length).toBeGreaterThan(0);
    for (const [name, service] of own) {
      const entries = Array.isArray(service.environment)
        ? service.environment.map((line) => line.split(/=(.*)/s).slice(0, 2) as [string, string])
        : Object.entries(service.environment ?? {});
      const unknown = entries.map(([key]) => key).filter((key) => !configurationVariables.has(key));
      expect({ service: name, unknown }).toEqual({ service: name, unknown: [] });
      // Compose substitutes ${VAR:-default} from the shell; without one the default applies.
      const resolved = Object.fromEntries(
        entries.map(([key, value]) => [
          key,
          String(value ?? '').replace(
            /\$\{[A-Z_][A-Z0-9_]*(?::?-([^}]*))?\}/g,
            (_, fallback?: string) => fallback ?? '',
          ),
        ]),
      );
      expect(() => validateEnvironment(resolved)).not.toThrow();
      // "host:container" mappings reach the port the server listens on.
      const port = validateEnvironment({ ...imageEnvironment(), ...resolved }).PORT;
      for (const mapping of service.ports ?? []) expect(Number(String(mapping).split(':').pop())).toBe(port);
    }
  });
});
