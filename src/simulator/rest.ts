import { BILLING_ROUTES, billingReply } from './rest-billing.js';
import { getCpu, getDataCenter, getGpu, listCpus, listDataCenters, listGpus } from './rest-catalog.js';
import { QueryParams } from './rest-params.js';
import { podActionReply, podDeleteReply, podsReply } from './rest-pods.js';
import { type HandlerInput, notFound, ok, problem, RequestError, type RestReply } from './rest-reply.js';
import type { World } from './world.js';

export type { RestReply } from './rest-reply.js';

export interface RestRequest {
  method: string;
  /** The request path without query, e.g. `/v2/pods/abc` (percent-encoding allowed). */
  path: string;
  query: URLSearchParams;
  /** The parsed JSON body, or undefined when there was none. */
  body: unknown;
}

type Handler = (input: HandlerInput) => RestReply;

/**
 * Every path of the v2 document with the methods it declares. A method the document declares
 * but the simulator does not play (creating and editing resources, log streams) is a 501.
 * Literal paths come before parametrised ones that could shadow them.
 */
const ROUTES: Array<{ path: string; methods: Record<string, Handler | null> }> = [
  { path: '/v2/account/ssh-keys', methods: { GET: () => ok({ keys: [] }), PUT: null } },
  { path: '/v2/pods', methods: { GET: podsReply, POST: null } },
  {
    path: '/v2/pods/{id}',
    methods: {
      GET: ({ world, id, t }) => found(world.podView(id, t), `pod ${id}`),
      PATCH: null,
      DELETE: podDeleteReply,
    },
  },
  { path: '/v2/pods/{id}/logs', methods: { GET: null } },
  { path: '/v2/pods/{id}/action', methods: { POST: podActionReply } },
  { path: '/v2/clusters', methods: { GET: ({ world, t }) => ok({ clusters: world.clustersView(t) }), POST: null } },
  {
    path: '/v2/clusters/{id}',
    methods: {
      GET: ({ world, id, t }) => found(world.clusterView(id, t), `cluster ${id}`),
      PATCH: null,
      DELETE: null,
    },
  },
  {
    path: '/v2/clusters/{id}/pods',
    methods: {
      GET: ({ world, id, t }) => {
        const pods = world.clusterPodsView(id, t);
        return found(pods && { pods }, `cluster ${id}`);
      },
    },
  },
  { path: '/v2/serverless', methods: { GET: ({ world, t }) => ok({ endpoints: world.endpointsView(t) }), POST: null } },
  {
    path: '/v2/serverless/{id}',
    methods: {
      GET: ({ world, id, t }) => found(world.endpointView(id, t), `serverless endpoint ${id}`),
      PATCH: null,
      DELETE: null,
    },
  },
  {
    path: '/v2/serverless/{id}/workers',
    methods: { GET: ({ world, id, t }) => found(world.workersView(id, t), `serverless endpoint ${id}`) },
  },
  { path: '/v2/serverless/{id}/releases', methods: { GET: releasesReply } },
  { path: '/v2/serverless/{id}/workers/{workerId}/logs', methods: { GET: null } },
  { path: '/v2/templates', methods: { GET: () => ok({ templates: [] }), POST: null } },
  {
    path: '/v2/templates/{id}',
    methods: { GET: ({ id }) => found(undefined, `template ${id}`), PATCH: null, DELETE: null },
  },
  {
    path: '/v2/network-volumes',
    methods: { GET: ({ world, t }) => ok({ networkVolumes: world.volumesView(t) }), POST: null },
  },
  {
    path: '/v2/network-volumes/{id}',
    methods: {
      GET: ({ world, id, t }) => found(world.volumeView(id, t), `network volume ${id}`),
      PATCH: null,
      DELETE: null,
    },
  },
  { path: '/v2/registries', methods: { GET: () => ok({ registries: [] }), POST: null } },
  { path: '/v2/registries/delegations', methods: { GET: () => ok({ delegations: [] }), POST: null } },
  { path: '/v2/registries/delegations/{id}', methods: { DELETE: ({ id }) => found(undefined, `delegation ${id}`) } },
  { path: '/v2/registries/{id}', methods: { GET: ({ id }) => found(undefined, `registry ${id}`), DELETE: null } },
  { path: '/v2/catalog/gpus', methods: { GET: ({ world, query, t }) => listGpus(world, query, t) } },
  { path: '/v2/catalog/gpus/{id}', methods: { GET: ({ world, id, query, t }) => getGpu(world, id, query, t) } },
  { path: '/v2/catalog/cpus', methods: { GET: ({ world, query }) => listCpus(world, query) } },
  { path: '/v2/catalog/cpus/{id}', methods: { GET: ({ world, id, query }) => getCpu(world, id, query) } },
  { path: '/v2/catalog/datacenters', methods: { GET: ({ world, query, t }) => listDataCenters(world, query, t) } },
  {
    path: '/v2/catalog/datacenters/{id}',
    methods: { GET: ({ world, id, query, t }) => getDataCenter(world, id, query, t) },
  },
  { path: '/v2/catalog/templates', methods: { GET: catalogTemplatesReply } },
  ...Object.entries(BILLING_ROUTES).map(([path, route]) => ({
    path,
    methods: { GET: ({ world, query, t }: HandlerInput) => billingReply(world, route, query, t) } as Record<
      string,
      Handler
    >,
  })),
];

const COMPILED = ROUTES.map((route) => ({ ...route, segments: route.path.split('/') }));

/**
 * Paths without a parameter, by their text, each only where scanning the table in order finds
 * that very route for it (no earlier parametrised route shadows it): almost every request a
 * collector makes is one of these, and is then found without walking the table.
 */
const LITERAL = new Map(
  COMPILED.filter((route) => !route.path.includes('{') && scan(route.path)?.route === route).map((route) => [
    route.path,
    route,
  ]),
);

/** Answers one v2 request from the world at `nowMs`; pure apart from the world's state. */
export function handleRest(world: World, req: RestRequest, nowMs: number): RestReply {
  const match = matchRoute(req.path);
  if (!match) return problem(404, `no such path: ${req.path}`);
  const method = req.method.toUpperCase();
  if (!(method in match.route.methods)) {
    const allow = Object.keys(match.route.methods).join(', ');
    return problem(405, 'The requested method is not allowed for this path.', { allow });
  }
  const handler = match.route.methods[method];
  if (!handler) return problem(501, `the simulator does not implement ${method} ${match.route.path}`);
  try {
    return handler({ world, id: match.ids[0] ?? '', query: req.query, body: req.body, t: nowMs });
  } catch (error) {
    if (error instanceof RequestError) return error.toReply();
    throw error;
  }
}

function matchRoute(path: string) {
  const literal = LITERAL.get(path);
  return literal ? { route: literal, ids: [] } : scan(path);
}

function scan(path: string) {
  const segments = path.split('/');
  for (const route of COMPILED) {
    if (route.segments.length !== segments.length) continue;
    const ids: string[] = [];
    const matches = route.segments.every((pattern, index) => {
      const segment = segments[index] as string;
      if (!pattern.startsWith('{')) return pattern === segment;
      if (segment === '') return false;
      ids.push(decode(segment));
      return true;
    });
    if (matches) return { route, ids };
  }
  return undefined;
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function found(value: unknown, what: string): RestReply {
  if (value === undefined) throw notFound(`${what} not found`);
  return ok(value);
}

function releasesReply({ world, id, t }: HandlerInput): RestReply {
  const workers = world.workersView(id, t);
  if (!workers) throw notFound(`serverless endpoint ${id} not found`);
  const total = workers.summary.total;
  return ok({
    endpointVersion: workers.endpointVersion,
    rollout: { inProgress: false, workersOnLatest: total, workersTotal: total, percentOnLatest: 100 },
    releases: [],
  });
}

function catalogTemplatesReply({ query }: HandlerInput): RestReply {
  const params = new QueryParams(query);
  params.oneOf('source', ['official', 'verified', 'community'] as const);
  params.done();
  return ok({ templates: [] });
}
