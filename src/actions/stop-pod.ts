import type { ApiClient } from '../api/index.js';

export type StopOutcome =
  | { kind: 'dry_run' }
  | { kind: 'stopped'; status: string | null }
  | { kind: 'failed'; error: string };

/**
 * The only code in podwarden that changes a Pod: `POST /pods/{id}/action {"action":"stop"}`.
 * Never terminate, never delete: a stopped Pod keeps its volume and can be started again. In dry
 * run no request is sent at all. Errors are returned, not thrown, so the caller records them.
 */
export async function stopPod(
  api: ApiClient | undefined,
  podId: string,
  options: { dryRun: boolean; signal?: AbortSignal },
): Promise<StopOutcome> {
  if (options.dryRun) return { kind: 'dry_run' };
  if (!api) return { kind: 'failed', error: `stop pod ${podId}: no API client for its account` };
  try {
    const pod = await api.rest.podAction(podId, 'stop', { signal: options.signal });
    return { kind: 'stopped', status: pod?.status ?? null };
  } catch (error) {
    return { kind: 'failed', error: error instanceof Error ? error.message : String(error) };
  }
}
