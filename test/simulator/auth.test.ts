import { afterEach, describe, expect, it } from 'vitest';
import { KEY, READ_ONLY_KEY, startTestSim, type TestSim } from './harness.js';

let t: TestSim;
afterEach(async () => {
  await t?.sim.close();
});

const stop = { method: 'POST', body: JSON.stringify({ action: 'stop' }) };

describe('simulator auth (REST v2)', () => {
  it('answers 401 "missing bearer token" without an Authorization header', async () => {
    t = await startTestSim();
    const res = await t.call('/v2/pods', { key: null });
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(await res.json()).toEqual({ title: 'Unauthorized', status: 401, detail: 'missing bearer token' });
  });

  it('answers 401 to a key it does not know, and to a non-Bearer scheme', async () => {
    t = await startTestSim();
    const unknown = await t.call('/v2/pods', { key: 'not-a-key' });
    expect(unknown.status).toBe(401);
    expect(((await unknown.json()) as { detail: string }).detail).toBe('invalid bearer token');
    const basic = await t.call('/v2/pods', { key: null, headers: { Authorization: `Basic ${KEY}` } });
    expect(basic.status).toBe(401);
    expect(((await basic.json()) as { detail: string }).detail).toBe('missing bearer token');
  });

  it('lets the read-only key read but answers 403 to its actions, leaving the Pod alone', async () => {
    t = await startTestSim();
    const list = await t.call('/v2/pods', { key: READ_ONLY_KEY });
    expect(list.status).toBe(200);
    const refused = await t.call('/v2/pods/pod-train-1/action', { ...stop, key: READ_ONLY_KEY });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({ title: 'Forbidden', status: 403, detail: 'access denied' });
    const deleted = await t.call('/v2/pods/pod-train-1', { method: 'DELETE', key: READ_ONLY_KEY });
    expect(deleted.status).toBe(403);
    const pod = (await (await t.call('/v2/pods/pod-train-1')).json()) as { status: string };
    expect(pod.status).toBe('RUNNING');
  });

  it('lets the full key act', async () => {
    t = await startTestSim();
    const res = await t.call('/v2/pods/pod-train-1/action', stop);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { status: string }).status).toBe('EXITED');
  });

  it('answers 400 problem+json to a body that is not JSON', async () => {
    t = await startTestSim();
    const res = await t.call('/v2/pods/pod-train-1/action', { method: 'POST', body: '{"action": stop' });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    const body = (await res.json()) as { title: string; detail: string };
    expect(body.title).toBe('Bad Request');
    expect(body.detail).toMatch(/^request body is not valid JSON/);
  });

  it('answers 404 outside /v2 and /graphql', async () => {
    t = await startTestSim();
    const res = await t.call('/v1/pods');
    expect(res.status).toBe(404);
  });
});

describe('simulator auth (GraphQL)', () => {
  const query = '{ myself { pods { id } } }';

  it('accepts the key as the api_key query parameter or as a Bearer token', async () => {
    t = await startTestSim();
    const byParam = await t.call(`/graphql?api_key=${KEY}`, {
      method: 'POST',
      body: JSON.stringify({ query }),
      key: null,
    });
    expect(byParam.status).toBe(200);
    const byBearer = await t.graphql(query);
    expect(byBearer.status).toBe(200);
  });

  it('answers 401 without a key and with an unknown one', async () => {
    t = await startTestSim();
    const none = await t.graphql(query, undefined, null);
    expect(none.status).toBe(401);
    expect(((await none.json()) as { errors: Array<{ message: string }> }).errors[0]?.message).toBe(
      'missing bearer token',
    );
    const unknown = await t.call('/graphql?api_key=nope', {
      method: 'POST',
      body: JSON.stringify({ query }),
      key: null,
    });
    expect(unknown.status).toBe(401);
  });

  it('lets the read-only key query but not mutate', async () => {
    t = await startTestSim();
    expect((await t.graphql(query, undefined, READ_ONLY_KEY)).status).toBe(200);
    const res = await t.graphql('mutation { podStop(input: {podId: "pod-train-1"}) { id } }', undefined, READ_ONLY_KEY);
    expect(res.status).toBe(403);
    expect(((await res.json()) as { errors: Array<{ extensions: { code: string } }> }).errors[0]?.extensions.code).toBe(
      'FORBIDDEN',
    );
  });
});
