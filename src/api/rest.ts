import type { z } from 'zod';
import { ApiError } from './errors.js';
import type { ApiRequest, HttpTransport, QueryValue } from './http.js';
import { type IdOf, type ParsedList, parseBody, parseEach, parseItems } from './parse.js';
import {
  type BillingBucketSize,
  type Cloud,
  Cluster,
  type CpuProduct,
  CpuType,
  DataCenter,
  Endpoint,
  GpuType,
  ListBillingResponse,
  ListClusterBillingResponse,
  ListEndpointBillingResponse,
  ListEndpointWorkersResponse,
  ListNetworkVolumeBillingResponse,
  ListPodBillingResponse,
  ListServerlessBillingResponse,
  NetworkVolume,
  Pod,
  type PodAction,
  type Product,
  Worker,
  type WorkerSummary,
} from './schemas.js';
import type { RequestPriority } from './semaphore.js';

/** Per-call options: the caller's abort signal (a collector's run timeout or shutdown). */
export interface CallOptions {
  signal?: AbortSignal;
}

/**
 * Availability is opt-in; `product` is required with it and rejected without it (the v2
 * document: "Required with include=AVAILABILITY, and valid only with it"), as are count and cloud.
 */
export type GpuTypeQuery =
  | { includeAvailability: false }
  | { includeAvailability?: true; products: Product[]; count?: number; cloud?: Cloud };

export type CpuTypeQuery =
  | { includeAvailability: false }
  | { includeAvailability?: true; products: CpuProduct[]; vcpuCount?: number };

export interface DataCenterQuery {
  includeGpuAvailability?: boolean;
  includeCpuAvailability?: boolean;
}

/** A billing window: either startTime/endTime (RFC 3339) or lastN buckets, never both. */
export type BillingQuery = {
  startTime?: string;
  endTime?: string;
  bucketSize?: BillingBucketSize;
  lastN?: number;
};

/** What a billing route's schema is made of: its records and the metadata beside them. */
export interface BillingSchema {
  shape: { records: { element: z.ZodType }; metadata: z.ZodType };
}

/**
 * A billing answer: its records read one by one (a record the schema rejects is named in
 * `rejected`, the others kept), and its metadata checked whole.
 */
export interface BillingList<S extends BillingSchema> {
  records: ParsedList<z.output<S['shape']['records']['element']>>;
  metadata: z.output<S['shape']['metadata']>;
}

/** Typed methods for the REST v2 routes the daemon reads (plus the Pod action). */
export class RestClient {
  constructor(private readonly http: HttpTransport) {}

  /** Read item by item (list), so one odd Pod does not blind idle detection for every other. */
  async listPods(options: { includeClusterPods?: boolean } = {}, call?: CallOptions): Promise<ParsedList<Pod>> {
    return this.list('/pods', { includeClusterPods: options.includeClusterPods }, 'pods', Pod, call);
  }

  async getPod(id: string, call?: CallOptions): Promise<Pod> {
    return this.get('/pods/{id}', { id }, {}, Pod, call);
  }

  /** start/stop/restart answer 200 with the Pod; terminate answers 204 (null). Never retried on 5xx. */
  async podAction(id: string, action: PodAction, call?: CallOptions): Promise<Pod | null> {
    const response = await this.http.send({
      target: 'rest',
      method: 'POST',
      route: '/pods/{id}/action',
      params: { id },
      priority: priorityOf('/pods/{id}/action'),
      body: { action },
      idempotent: false,
      label: `${id}, ${action}`,
      signal: call?.signal,
    });
    return response.body === undefined ? null : parseBody(Pod, response.body, response.op);
  }

  async listClusters(call?: CallOptions): Promise<ParsedList<Cluster>> {
    return this.list('/clusters', {}, 'clusters', Cluster, call);
  }

  async getCluster(id: string, call?: CallOptions): Promise<Cluster> {
    return this.get('/clusters/{id}', { id }, {}, Cluster, call);
  }

  async listClusterPods(id: string, call?: CallOptions): Promise<ParsedList<Pod>> {
    return this.list('/clusters/{id}/pods', {}, 'pods', Pod, call, { id });
  }

  /** Serverless endpoints (`GET /serverless`). */
  async listEndpoints(call?: CallOptions): Promise<ParsedList<Endpoint>> {
    return this.list('/serverless', {}, 'endpoints', Endpoint, call);
  }

  async getEndpoint(id: string, call?: CallOptions): Promise<Endpoint> {
    return this.get('/serverless/{id}', { id }, {}, Endpoint, call);
  }

  /** An endpoint's workers, item by item, and the summary the API counted (`endpointVersion` null when absent). */
  async listEndpointWorkers(
    id: string,
    call?: CallOptions,
  ): Promise<{ workers: ParsedList<Worker>; summary: WorkerSummary; endpointVersion: number | null }> {
    const answer = await this.get('/serverless/{id}/workers', { id }, {}, ListEndpointWorkersResponse, call);
    const workers = parseEach(Worker, 'workers', answer.workers);
    return { workers, summary: answer.summary, endpointVersion: answer.endpointVersion ?? null };
  }

  async listNetworkVolumes(call?: CallOptions): Promise<ParsedList<NetworkVolume>> {
    return this.list('/network-volumes', {}, 'networkVolumes', NetworkVolume, call);
  }

  async listGpuTypes(query: GpuTypeQuery, call?: CallOptions): Promise<ParsedList<GpuType>> {
    const params = gpuQuery('GET /catalog/gpus', query);
    return this.list('/catalog/gpus', params, 'gpus', GpuType, call);
  }

  async getGpuType(id: string, query: GpuTypeQuery, call?: CallOptions): Promise<GpuType> {
    return this.get('/catalog/gpus/{id}', { id }, gpuQuery(`GET /catalog/gpus/{id} (${id})`, query), GpuType, call);
  }

  async listCpuTypes(query: CpuTypeQuery, call?: CallOptions): Promise<ParsedList<CpuType>> {
    const params =
      query.includeAvailability === false
        ? {}
        : {
            include: ['AVAILABILITY'],
            product: requireProducts('GET /catalog/cpus', query.products),
            vcpuCount: query.vcpuCount,
          };
    return this.list('/catalog/cpus', params, 'cpus', CpuType, call);
  }

  async listDataCenters(query: DataCenterQuery = {}, call?: CallOptions): Promise<ParsedList<DataCenter>> {
    const include = [
      ...(query.includeGpuAvailability ? ['GPU_AVAILABILITY'] : []),
      ...(query.includeCpuAvailability ? ['CPU_AVAILABILITY'] : []),
    ];
    const params = { include: include.length > 0 ? include : undefined };
    return this.list('/catalog/datacenters', params, 'dataCenters', DataCenter, call);
  }

  /** Account-wide spend per bucket (`GET /billing`). */
  async billing(query: BillingQuery = {}, call?: CallOptions) {
    return this.billingRoute('/billing', query, ListBillingResponse, call);
  }

  async billingPods(query: BillingQuery & { podId?: string } = {}, call?: CallOptions) {
    return this.billingRoute('/billing/pods', query, ListPodBillingResponse, call);
  }

  async billingServerless(query: BillingQuery & { serverlessId?: string } = {}, call?: CallOptions) {
    return this.billingRoute('/billing/serverless', query, ListServerlessBillingResponse, call);
  }

  /** Public Endpoint billing; serverless endpoint billing is `billingServerless`. */
  async billingEndpoints(query: BillingQuery = {}, call?: CallOptions) {
    return this.billingRoute('/billing/endpoints', query, ListEndpointBillingResponse, call);
  }

  async billingNetworkVolumes(query: BillingQuery & { networkVolumeId?: string } = {}, call?: CallOptions) {
    return this.billingRoute('/billing/network-volumes', query, ListNetworkVolumeBillingResponse, call);
  }

  async billingClusters(query: BillingQuery & { clusterId?: string } = {}, call?: CallOptions) {
    return this.billingRoute('/billing/clusters', query, ListClusterBillingResponse, call);
  }

  /**
   * One window of a billing route, read whole: the caller keeps windows small enough that no
   * answer is large (billing.ts). The window goes in the op, so an error says which answer it was.
   */
  private async billingRoute<S extends BillingSchema>(
    route: string,
    query: BillingQuery & Record<string, QueryValue>,
    schema: S,
    call: CallOptions | undefined,
  ): Promise<BillingList<S>> {
    const request = billingRequest(route, query);
    const { startTime, endTime, bucketSize } = query;
    const label = startTime === undefined ? undefined : `${startTime}..${endTime}, ${bucketSize}`;
    const response = await this.http.send({ ...request, label, signal: call?.signal });
    const { records, metadata } = schema.shape;
    // The envelope first, so a body without a records array is a contract error, as for every list.
    const parsed = parseItems(records.element, 'records', response.body, response.op, billingIdOf);
    const meta = (response.body as { metadata?: unknown }).metadata;
    return {
      records: parsed as BillingList<S>['records'],
      metadata: parseBody(metadata, meta, response.op, ['metadata']) as BillingList<S>['metadata'],
    };
  }

  private async get<S extends z.ZodType>(
    route: string,
    params: Record<string, string>,
    query: Record<string, QueryValue>,
    schema: S,
    call: CallOptions | undefined,
  ): Promise<z.output<S>> {
    const response = await this.http.send({ ...getRequest(route, params, query), signal: call?.signal });
    return parseBody(schema, response.body, response.op);
  }

  /** A list read item by item (parseItems): a rejected item is named, the others stay usable. */
  private async list<S extends z.ZodType>(
    route: string,
    query: Record<string, QueryValue>,
    key: string,
    item: S,
    call: CallOptions | undefined,
    params: Record<string, string> = {},
  ): Promise<ParsedList<z.output<S>>> {
    const response = await this.http.send({ ...getRequest(route, params, query), signal: call?.signal });
    return parseItems(item, key, response.body, response.op);
  }
}

function getRequest(route: string, params: Record<string, string>, query: Record<string, QueryValue>): ApiRequest {
  return { target: 'rest', method: 'GET', route, params, query, idempotent: true, priority: priorityOf(route) };
}

/** A billing record's id: the resource it bills (the account-wide routes have none). */
const billingIdOf: IdOf = (raw) =>
  [raw.podId, raw.serverlessId, raw.networkVolumeId, raw.clusterId].find((id) => typeof id === 'string');

/**
 * What idle detection and stops rest on (the Pod poll, a Pod's re-read, the stop) goes first;
 * billing, whose start-up backfill can fill every slot with slow answers, goes last.
 */
function priorityOf(route: string): RequestPriority {
  if (route === '/pods' || route.startsWith('/pods/')) return 'urgent';
  return route.startsWith('/billing') ? 'background' : 'normal';
}

/** The query's resource filter (podId, ...) goes after the window, as the document lists it. */
function billingRequest(route: string, query: BillingQuery & Record<string, QueryValue>): ApiRequest {
  const op = `GET ${route}`;
  if (query.lastN !== undefined && (query.startTime !== undefined || query.endTime !== undefined)) {
    throw new ApiError({ kind: 'client', op, message: 'lastN cannot be combined with startTime/endTime' });
  }
  if (query.lastN !== undefined && !(Number.isInteger(query.lastN) && query.lastN >= 1)) {
    throw new ApiError({ kind: 'client', op, message: `lastN must be an integer >= 1, got ${query.lastN}` });
  }
  const { startTime, endTime, bucketSize, lastN, ...filter } = query;
  return getRequest(route, {}, { startTime, endTime, bucketSize, lastN, ...filter });
}

function gpuQuery(op: string, query: GpuTypeQuery): Record<string, QueryValue> {
  if (query.includeAvailability === false) return {};
  return {
    include: ['AVAILABILITY'],
    product: requireProducts(op, query.products),
    count: query.count,
    cloud: query.cloud,
  };
}

function requireProducts<P extends string>(op: string, products: P[]): P[] {
  if (products.length === 0) {
    throw new ApiError({ kind: 'client', op, message: 'include=AVAILABILITY needs at least one product' });
  }
  return products;
}
