import type { z } from 'zod';
import { AnswerMemo } from './answer-memo.js';
import {
  type BillingMetadataOf,
  type BillingRecordOf,
  type BillingRecordSink,
  consumeBillingText,
  parseBillingBody,
} from './billing-parse.js';
import { ApiError } from './errors.js';
import type { ApiRequest, HttpTransport, QueryValue } from './http.js';
import { type ParsedList, parseBody, parseItems } from './parse.js';
import { DecodedPodList, PodListReader } from './pod-list-text.js';
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
  ListPodsResponse,
  ListServerlessBillingResponse,
  NetworkVolume,
  Pod,
  type PodAction,
  type Product,
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
export interface BillingQuery {
  startTime?: string;
  endTime?: string;
  bucketSize?: BillingBucketSize;
  lastN?: number;
}

/** The v2 billing routes (`/billing/endpoints` is Public Endpoints, `/billing/serverless` Serverless). */
export type BillingRoutePath =
  | '/billing'
  | '/billing/pods'
  | '/billing/serverless'
  | '/billing/endpoints'
  | '/billing/network-volumes'
  | '/billing/clusters';

/** Where a streamed billing answer's records go, a batch (one body chunk's worth) at a time, checked. */
export type { BillingRecordSink } from './billing-parse.js';

/** Typed methods for the REST v2 routes the daemon reads (plus the Pod action). */
export class RestClient {
  /** Last `GET /pods` answer's Pods, reused where a record's text did not change (pod-list-text.ts). */
  private readonly podList = new PodListReader();
  /** The last answer of each other read, parsed: most polls get back the same bytes. */
  private readonly answers = new AnswerMemo();

  constructor(private readonly http: HttpTransport) {}

  /**
   * Pods are parsed one by one: a Pod the schema rejects lands in `rejected` (index, id when
   * readable, field paths) and the rest of the list is still usable, so one odd record does
   * not blind idle detection for every other Pod.
   */
  async listPods(options: { includeClusterPods?: boolean } = {}, call?: CallOptions): Promise<ParsedList<Pod>> {
    const query = { includeClusterPods: options.includeClusterPods };
    const request: ApiRequest = {
      target: 'rest',
      method: 'GET',
      route: '/pods',
      params: {},
      query,
      idempotent: true,
      priority: priorityOf('/pods'),
    };
    const parse = (text: string) => this.podList.decode(text);
    const response = await this.http.send({ ...request, parse, signal: call?.signal });
    if (response.body instanceof DecodedPodList) return response.body.list;
    return parseItems(Pod, 'pods', response.body, response.op);
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

  async listClusterPods(id: string, call?: CallOptions): Promise<Pod[]> {
    return (await this.get('/clusters/{id}/pods', { id }, {}, ListPodsResponse, call)).pods;
  }

  /** Serverless endpoints (`GET /serverless`). */
  async listEndpoints(call?: CallOptions): Promise<ParsedList<Endpoint>> {
    return this.list('/serverless', {}, 'endpoints', Endpoint, call);
  }

  async getEndpoint(id: string, call?: CallOptions): Promise<Endpoint> {
    return this.get('/serverless/{id}', { id }, {}, Endpoint, call);
  }

  async listEndpointWorkers(id: string, call?: CallOptions): Promise<ListEndpointWorkersResponse> {
    // Not kept: a worker list carries each worker's live state and never repeats its bytes, and at
    // `large` each of a cycle's ~200 lists, one endpoint after another, would be frozen and kept for nothing.
    return this.get('/serverless/{id}/workers', { id }, {}, ListEndpointWorkersResponse, call, false);
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
  async billing(query: BillingQuery = {}, call?: CallOptions): Promise<ListBillingResponse> {
    return this.billingRoute('/billing', query, {}, ListBillingResponse, call);
  }

  async billingPods(
    query: BillingQuery & { podId?: string } = {},
    call?: CallOptions,
  ): Promise<ListPodBillingResponse> {
    return this.billingRoute('/billing/pods', query, { podId: query.podId }, ListPodBillingResponse, call);
  }

  async billingServerless(
    query: BillingQuery & { serverlessId?: string } = {},
    call?: CallOptions,
  ): Promise<ListServerlessBillingResponse> {
    const filter = { serverlessId: query.serverlessId };
    return this.billingRoute('/billing/serverless', query, filter, ListServerlessBillingResponse, call);
  }

  /** Public Endpoint billing; serverless endpoint billing is `billingServerless`. */
  async billingEndpoints(query: BillingQuery = {}, call?: CallOptions): Promise<ListEndpointBillingResponse> {
    return this.billingRoute('/billing/endpoints', query, {}, ListEndpointBillingResponse, call);
  }

  async billingNetworkVolumes(
    query: BillingQuery & { networkVolumeId?: string } = {},
    call?: CallOptions,
  ): Promise<ListNetworkVolumeBillingResponse> {
    const filter = { networkVolumeId: query.networkVolumeId };
    return this.billingRoute('/billing/network-volumes', query, filter, ListNetworkVolumeBillingResponse, call);
  }

  async billingClusters(
    query: BillingQuery & { clusterId?: string } = {},
    call?: CallOptions,
  ): Promise<ListClusterBillingResponse> {
    const filter = { clusterId: query.clusterId };
    return this.billingRoute('/billing/clusters', query, filter, ListClusterBillingResponse, call);
  }

  /**
   * Reads a billing route without holding its answer: the records are decoded and checked as the
   * body arrives and handed to the sink a chunk's worth at a time, awaiting it (so a slow sink
   * slows the reading, not the memory); resolves with the answer's metadata once the body is
   * whole. `open` makes a fresh sink for each attempt: a retried request starts over. A malformed
   * or cut body is a contract error naming the route, the record or field, and the offset.
   */
  async streamBilling<S extends z.ZodType>(
    route: BillingRoutePath,
    query: BillingQuery & Record<string, string | number | undefined>,
    schema: S,
    open: () => BillingRecordSink<BillingRecordOf<S>>,
    call?: CallOptions,
  ): Promise<BillingMetadataOf<S>> {
    const { startTime, endTime, bucketSize, lastN, ...filter } = query;
    const request = billingRequest(route, { startTime, endTime, bucketSize, lastN }, filter as Record<string, string>);
    // The window in the op, so an error says which answer of a backfill it was.
    const label = startTime === undefined ? undefined : `${startTime}..${endTime}, ${bucketSize}`;
    return this.http.stream({ ...request, label, signal: call?.signal }, (text, op) =>
      consumeBillingText(schema, open(), text, op),
    );
  }

  private async billingRoute<S extends z.ZodType>(
    route: string,
    query: BillingQuery,
    filter: Record<string, string | undefined>,
    schema: S,
    call: CallOptions | undefined,
  ): Promise<z.output<S>> {
    const request = billingRequest(route, query, filter);
    const response = await this.http.send({ ...request, signal: call?.signal });
    return parseBillingBody(schema, response.body, response.op);
  }

  private async get<S extends z.ZodType>(
    route: string,
    params: Record<string, string>,
    query: Record<string, QueryValue>,
    schema: S,
    call: CallOptions | undefined,
    remember = true,
  ): Promise<z.output<S>> {
    return this.read(
      route,
      params,
      query,
      remember ? schema : undefined,
      (body, op) => parseBody(schema, body, op),
      call,
    );
  }

  /**
   * A list read item by item (parseItems): an item its schema rejects is named in `rejected` and
   * the others are still usable, as for `GET /pods`.
   */
  private async list<S extends z.ZodType>(
    route: string,
    query: Record<string, QueryValue>,
    key: string,
    item: S,
    call: CallOptions | undefined,
  ): Promise<ParsedList<z.output<S>>> {
    return this.read(route, {}, query, `${route} ${key}[]`, (body, op) => parseItems(item, key, body, op), call);
  }

  /** One GET, its answer kept under `memoKey` (AnswerMemo) unless that is undefined. */
  private async read<T>(
    route: string,
    params: Record<string, string>,
    query: Record<string, QueryValue>,
    memoKey: unknown,
    check: (body: unknown, op: string) => T,
    call: CallOptions | undefined,
  ): Promise<T> {
    const request: ApiRequest = {
      target: 'rest',
      method: 'GET',
      route,
      params,
      query,
      idempotent: true,
      priority: priorityOf(route),
    };
    if (memoKey === undefined) {
      const response = await this.http.send({ ...request, signal: call?.signal });
      return check(response.body, response.op);
    }
    const read = this.answers.read(memoKey);
    const response = await this.http.send({ ...request, parse: read.parse, signal: call?.signal });
    return read.value(response.body, (body) => check(body, response.op));
  }
}

/**
 * What idle detection and stops rest on (the Pod poll, a Pod's re-read, the stop) goes first;
 * billing, whose start-up backfill can fill every slot with slow answers, goes last.
 */
function priorityOf(route: string): RequestPriority {
  if (route === '/pods' || route.startsWith('/pods/')) return 'urgent';
  return route.startsWith('/billing') ? 'background' : 'normal';
}

function billingRequest(route: string, query: BillingQuery, filter: Record<string, string | undefined>): ApiRequest {
  const op = `GET ${route}`;
  if (query.lastN !== undefined && (query.startTime !== undefined || query.endTime !== undefined)) {
    throw new ApiError({ kind: 'client', op, message: 'lastN cannot be combined with startTime/endTime' });
  }
  if (query.lastN !== undefined && !(Number.isInteger(query.lastN) && query.lastN >= 1)) {
    throw new ApiError({ kind: 'client', op, message: `lastN must be an integer >= 1, got ${query.lastN}` });
  }
  const params = {
    startTime: query.startTime,
    endTime: query.endTime,
    bucketSize: query.bucketSize,
    lastN: query.lastN,
    ...filter,
  };
  return {
    target: 'rest',
    method: 'GET',
    route,
    params: {},
    query: params,
    idempotent: true,
    priority: priorityOf(route),
  };
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
