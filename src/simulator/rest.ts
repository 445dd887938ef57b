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
      GET: ({ world, ids, t }) => found(world.podView(id0(ids), t), 'pod', ids),
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
      GET: ({ world, ids, t }) => found(world.clusterView(id0(ids), t), 'cluster', ids),
      PATCH: null,
      DELETE: null,
    },
  },
  {
    path: '/v2/clusters/{id}/pods',
    methods: {
      GET: ({ world, ids, t }) => {
        const pods = world.clusterPodsView(id0(ids), t);
        return found(pods && { pods }, 'cluster', ids);
      },
    },
  },
  { path: '/v2/serverless', methods: { GET: ({ world, t }) => ok({ endpoints: world.endpointsView(t) }), POST: null } },
  {
    path: '/v2/serverless/{id}',
    methods: {
      GET: ({ world, ids, t }) => found(world.endpointView(id0(ids), t), 'serverless endpoint', ids),
      PATCH: null,
      DELETE: null,
    },
  },
  {
    path: '/v2/serverless/{id}/workers',
    methods: { GET: ({ world, ids, t }) => found(world.workersView(id0(ids), t), 'serverless endpoint', ids) },
  },
  { path: '/v2/serverless/{id}/releases', methods: { GET: releasesReply } },
  { path: '/v2/serverless/{id}/workers/{workerId}/logs', methods: { GET: null } },
  { path: '/v2/templates', methods: { GET: () => ok({ templates: [] }), POST: null } },
  {
    path: '/v2/templates/{id}',
    methods: { GET: ({ ids }) => found(undefined, 'template', ids), PATCH: null, DELETE: null },
  },
  {
    path: '/v2/network-volumes',
    methods: { GET: ({ world, t }) => ok({ networkVolumes: world.volumesView(t) }), POST: null },
  },
  {
    path: '/v2/network-volumes/{id}',
    methods: {
      GET: ({ world, ids, t }) => found(world.volumeView(id0(ids), t), 'network volume', ids),
      PATCH: null,
      DELETE: null,
    },
  },
  { path: '/v2/registries', methods: { GET: () => ok({ registries: [] }), POST: null } },
  { path: '/v2/registries/delegations', methods: { GET: () => ok({ delegations: [] }), POST: null } },
  { path: '/v2/registries/delegations/{id}', methods: { DELETE: ({ ids }) => found(undefined, 'delegation', ids) } },
  { path: '/v2/registries/{id}', methods: { GET: ({ ids }) => found(undefined, 'registry', ids), DELETE: null } },
  { path: '/v2/catalog/gpus', methods: { GET: ({ world, query, t }) => listGpus(world, query, t) } },
  { path: '/v2/catalog/gpus/{id}', methods: { GET: ({ world, ids, query, t }) => getGpu(world, id0(ids), query, t) } },
  { path: '/v2/catalog/cpus', methods: { GET: ({ world, query }) => listCpus(world, query) } },
  { path: '/v2/catalog/cpus/{id}', methods: { GET: ({ world, ids, query }) => getCpu(world, id0(ids), query) } },
  { path: '/v2/catalog/datacenters', methods: { GET: ({ world, query, t }) => listDataCenters(world, query, t) } },
  {
    path: '/v2/catalog/datacenters/{id}',
    methods: { GET: ({ world, ids, query, t }) => getDataCenter(world, id0(ids), query, t) },
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
    { route, ids: [] as string[] },
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
    return handler({ world, ids: match.ids, query: req.query, body: req.body, t: nowMs });
  } catch (error) {
    if (error instanceof RequestError) return error.toReply();
    throw error;
  }
}

function matchRoute(path: string) {
  const literal = LITERAL.get(path);
  if (literal !== undefined) return { route: literal.route, ids: [] };
  return scan(path);
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

function id0(ids: string[]): string {
  return ids[0] as string;
}

function found(value: unknown, what: string, ids: string[]): RestReply {
  if (value === undefined) throw notFound(`${what} ${id0(ids)} not found`);
  return ok(value);
}

function releasesReply({ world, ids, t }: HandlerInput): RestReply {
  const workers = world.workersView(id0(ids), t);
  if (!workers) throw notFound(`serverless endpoint ${id0(ids)} not found`);
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
