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
const ROUTES: Record<string, Record<string, Handler | null>> = {
  '/v2/account/ssh-keys': { GET: () => ok({ keys: [] }), PUT: null },
  '/v2/pods': { GET: podsReply, POST: null },
  '/v2/pods/{id}': { GET: one('pod', (world, id, t) => world.podView(id, t)), PATCH: null, DELETE: podDeleteReply },
  '/v2/pods/{id}/logs': { GET: null },
  '/v2/pods/{id}/action': { POST: podActionReply },
  '/v2/clusters': { GET: ({ world, t }) => ok({ clusters: world.clustersView(t) }), POST: null },
  '/v2/clusters/{id}': { GET: listed('cluster', 'clustersView'), PATCH: null, DELETE: null },
  '/v2/clusters/{id}/pods': {
    GET: one('cluster', (world, id, t) => {
      const pods = world.clusterPodsView(id, t);
      return pods && { pods };
    }),
  },
  '/v2/serverless': { GET: ({ world, t }) => ok({ endpoints: world.endpointsView(t) }), POST: null },
  '/v2/serverless/{id}': { GET: listed('serverless endpoint', 'endpointsView'), PATCH: null, DELETE: null },
  '/v2/serverless/{id}/workers': { GET: one('serverless endpoint', (world, id, t) => world.workersView(id, t)) },
  '/v2/serverless/{id}/releases': { GET: releasesReply },
  '/v2/serverless/{id}/workers/{workerId}/logs': { GET: null },
  '/v2/templates': { GET: () => ok({ templates: [] }), POST: null },
  '/v2/templates/{id}': { GET: one('template', () => undefined), PATCH: null, DELETE: null },
  '/v2/network-volumes': { GET: ({ world, t }) => ok({ networkVolumes: world.volumesView(t) }), POST: null },
  '/v2/network-volumes/{id}': { GET: listed('network volume', 'volumesView'), PATCH: null, DELETE: null },
  '/v2/registries': { GET: () => ok({ registries: [] }), POST: null },
  '/v2/registries/delegations': { GET: () => ok({ delegations: [] }), POST: null },
  '/v2/registries/delegations/{id}': { DELETE: one('delegation', () => undefined) },
  '/v2/registries/{id}': { GET: one('registry', () => undefined), DELETE: null },
  '/v2/catalog/gpus': { GET: listGpus },
  '/v2/catalog/gpus/{id}': { GET: getGpu },
  '/v2/catalog/cpus': { GET: listCpus },
  '/v2/catalog/cpus/{id}': { GET: getCpu },
  '/v2/catalog/datacenters': { GET: listDataCenters },
  '/v2/catalog/datacenters/{id}': { GET: getDataCenter },
  '/v2/catalog/templates': { GET: catalogTemplatesReply },
  ...Object.fromEntries(
    Object.entries(BILLING_ROUTES).map(([path, route]) => [
      path,
      { GET: ({ world, query, t }: HandlerInput) => billingReply(world, route, query, t) },
    ]),
  ),
};

const COMPILED = Object.entries(ROUTES).map(([path, methods]) => ({ path, methods, segments: path.split('/') }));

/** Paths without a parameter that no earlier parametrised route shadows, found without walking the table. */
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

/** A GET of one resource of the world by its id, or a 404 naming it. */
function one(what: string, view: (world: World, id: string, t: number) => unknown): Handler {
  return ({ world, id, t }) => {
    const value = view(world, id, t);
    if (value === undefined) throw notFound(`${what} ${id} not found`);
    return ok(value);
  };
}

/** A GET of one item of a list view of the world, found by its id. */
function listed(what: string, view: 'clustersView' | 'endpointsView' | 'volumesView'): Handler {
  return one(what, (world, id, t) => world[view](t).find((item) => item.id === id));
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
