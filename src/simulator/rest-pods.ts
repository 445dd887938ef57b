import { QueryParams } from './rest-params.js';
import { type HandlerInput, noContent, ok, problem, RequestError, type RestReply } from './rest-reply.js';
import { POD_ACTIONS, type PodAction } from './v2-types.js';

/** `/v2/pods`: the list, one Pod's actions and its deletion. */

export function podsReply({ world, query, t }: HandlerInput): RestReply {
  const params = new QueryParams(query);
  const includeClusterPods = params.boolean('includeClusterPods') ?? false;
  params.done();
  return ok({ pods: world.podsView(t, { includeClusterPods }) });
}

export function podActionReply({ world, id, body, t }: HandlerInput): RestReply {
  const action = actionOf(body);
  const result = world.podAction(id, action, t);
  if (!result.ok) return problem(result.status, result.detail);
  return result.pod === null ? noContent() : ok(result.pod);
}

/** DELETE is terminate: 204, 404 for an unknown Pod, 409 for a cluster member. */
export function podDeleteReply({ world, id, t }: HandlerInput): RestReply {
  const result = world.podAction(id, 'terminate', t);
  return result.ok ? noContent() : problem(result.status, result.detail);
}

/** `PodActionRequest`: `{ action }` and nothing else (additionalProperties: false). */
function actionOf(body: unknown): PodAction {
  if (body === undefined)
    throw new RequestError(400, 'request body is required: {"action": "start|stop|restart|terminate"}');
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    const got = body === null ? 'null' : Array.isArray(body) ? 'array' : typeof body;
    throw new RequestError(422, 'Request validation failed.', [`$: expected object, but got ${got}`]);
  }
  const errors: string[] = [];
  const extra = Object.keys(body).filter((key) => key !== 'action');
  if (extra.length > 0)
    errors.push(`$: additional properties ${extra.map((key) => `'${key}'`).join(', ')} not allowed`);
  const action = (body as { action?: unknown }).action;
  if (action === undefined) errors.push("$: missing property 'action'");
  else if (!POD_ACTIONS.includes(action as PodAction)) {
    errors.push(`$.action: value must be one of ${POD_ACTIONS.map((value) => `'${value}'`).join(', ')}`);
  }
  if (errors.length > 0) throw new RequestError(422, 'Request validation failed.', errors);
  return action as PodAction;
}
