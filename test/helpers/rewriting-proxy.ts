import { afterEach } from 'vitest';
import { custom, type ScriptedServer, startScriptedServer } from './scripted-server.js';

/**
 * A real HTTP server in front of the simulator that rewrites the JSON answer of one path (an
 * answer the simulator would not give), closed after each test.
 */
export function useRewritingProxy(): (
  upstream: string,
  path: string,
  rewrite: (answer: unknown) => unknown,
) => Promise<ScriptedServer> {
  const proxies: ScriptedServer[] = [];
  afterEach(async () => {
    for (const proxy of proxies.splice(0)) await proxy.close();
  });
  return async (upstream, path, rewrite) => {
    const origin = new URL(upstream).origin;
    const proxy = await startScriptedServer(
      custom(async (request, response) => {
        const answer = await fetch(`${origin}${request.url}`, {
          headers: { authorization: String(request.headers.authorization ?? '') },
        });
        const body = await answer.text();
        const rewritten = request.path === path && answer.ok ? JSON.stringify(rewrite(JSON.parse(body))) : body;
        response.writeHead(answer.status, {
          'content-type': answer.headers.get('content-type') ?? 'application/json',
        });
        response.end(rewritten);
      }),
    );
    proxies.push(proxy);
    return proxy;
  };
}
