import { cpuRecord, dataCenterRecord, type GpuAvailabilityQuery, gpuRecord, offeredDataCenters } from './catalog.js';
import { QueryParams } from './rest-params.js';
import { badRequest, type HandlerInput, notFound, ok, type RestReply } from './rest-reply.js';
import { COMPLIANCE, DATA_CENTER_REGIONS, VOLUME_TYPES } from './v2-types.js';

/** `/v2/catalog/*`: GPU and CPU types and data centers, availability only when asked for. */

const GPU_FILTERS = ['product', 'count', 'cloud', 'countryCodes', 'cudaVersions', 'minCudaVersion'];

export function listGpus({ world, query, t }: HandlerInput): RestReply {
  const availability = gpuQuery(query);
  const { catalog } = world.scenario;
  return ok({
    gpus: catalog.gpus
      // With countryCodes the list keeps only GPU types deployable in those countries.
      .filter(
        (gpu) => !availability?.countryCodes || offeredDataCenters(gpu, catalog, availability.countryCodes).length > 0,
      )
      .map((gpu) => gpuRecord(gpu, catalog, world.availabilityOf(gpu, t), availability)),
  });
}

export function getGpu({ world, id, query, t }: HandlerInput): RestReply {
  const availability = gpuQuery(query);
  const gpu = world.scenario.catalog.gpus.find((candidate) => candidate.id === id);
  if (!gpu) throw notFound(`gpu type ${id} not found`);
  return ok(gpuRecord(gpu, world.scenario.catalog, world.availabilityOf(gpu, t), availability));
}

function gpuQuery(query: URLSearchParams): GpuAvailabilityQuery | undefined {
  const params = new QueryParams(query);
  const include = params.list('include', ['AVAILABILITY'] as const, 1);
  const products = params.list('product', ['POD', 'CLUSTER', 'SERVERLESS'] as const);
  const count = params.integer('count', 1);
  const cloud = params.oneOf('cloud', ['SECURE', 'COMMUNITY'] as const);
  const countryCodes = params.list('countryCodes', /^[A-Z]{2}$/);
  const cudaVersions = params.list('cudaVersions', /^\d+\.\d+$/);
  const minCudaVersion = params.pattern('minCudaVersion', /^\d+(\.\d+)?$/);
  params.done();
  if (!include) return refuseFilters(params, GPU_FILTERS, undefined);
  if (!products) throw badRequest('product is required with include=AVAILABILITY (POD, CLUSTER or SERVERLESS)');
  if (cudaVersions && minCudaVersion) throw badRequest('cudaVersions and minCudaVersion are mutually exclusive');
  return { products, count: count ?? 1, cloud: cloud ?? 'SECURE', countryCodes, cudaVersions, minCudaVersion };
}

export function listCpus({ world, query }: HandlerInput): RestReply {
  const { withAvailability, vcpuCount } = cpuQuery(query);
  const { catalog } = world.scenario;
  return ok({ cpus: catalog.cpus.map((cpu) => cpuRecord(cpu, catalog, vcpuCount, withAvailability)) });
}

export function getCpu({ world, id, query }: HandlerInput): RestReply {
  const { withAvailability, vcpuCount } = cpuQuery(query);
  const cpu = world.scenario.catalog.cpus.find((candidate) => candidate.id === id);
  if (!cpu) throw notFound(`cpu type ${id} not found`);
  return ok(cpuRecord(cpu, world.scenario.catalog, vcpuCount, withAvailability));
}

function cpuQuery(query: URLSearchParams): { withAvailability: boolean; vcpuCount?: number } {
  const params = new QueryParams(query);
  const include = params.list('include', ['AVAILABILITY'] as const, 1);
  const products = params.list('product', ['POD', 'SERVERLESS'] as const);
  const vcpuCount = params.integer('vcpuCount', 2);
  params.done();
  if (!include) return refuseFilters(params, ['product', 'vcpuCount'], { withAvailability: false });
  if (!products) throw badRequest('product is required with include=AVAILABILITY (POD or SERVERLESS)');
  if (vcpuCount !== undefined && (vcpuCount & (vcpuCount - 1)) !== 0) {
    throw badRequest(`vcpuCount must be a power of two, got ${vcpuCount}`);
  }
  return vcpuCount === undefined ? { withAvailability: true } : { withAvailability: true, vcpuCount };
}

/** Without include=AVAILABILITY the filters mean nothing: a request that sends one is refused. */
function refuseFilters<T>(params: QueryParams, filters: string[], answer: T): T {
  const stray = filters.filter((name) => params.has(name));
  if (stray.length > 0) throw badRequest(`${stray.join(', ')}: valid only with include=AVAILABILITY`);
  return answer;
}

export function listDataCenters({ world, query, t }: HandlerInput): RestReply {
  const params = new QueryParams(query);
  const include = dataCenterInclude(params);
  const regions = params.list('regions', DATA_CENTER_REGIONS);
  const volumeTypes = params.list('networkVolumeTypes', VOLUME_TYPES);
  const compliance = params.list('compliance', COMPLIANCE);
  const globalNetwork = params.boolean('globalNetwork');
  params.done();
  const { catalog } = world.scenario;
  return ok({
    dataCenters: catalog.dataCenters
      .filter((dc) => !regions || regions.includes(dc.region as (typeof DATA_CENTER_REGIONS)[number]))
      .filter((dc) => !volumeTypes || volumeTypes.every((type) => dc.networkVolumeTypes.includes(type)))
      .filter((dc) => !compliance || compliance.every((item) => dc.compliance.includes(item)))
      .filter((dc) => globalNetwork === undefined || dc.globalNetwork === globalNetwork)
      .map((dc) => dataCenterRecord(dc, catalog, (gpu) => world.availabilityOf(gpu, t), include)),
  });
}

export function getDataCenter({ world, id, query, t }: HandlerInput): RestReply {
  const params = new QueryParams(query);
  const include = dataCenterInclude(params);
  params.done();
  const { catalog } = world.scenario;
  const dc = catalog.dataCenters.find((candidate) => candidate.id === id);
  if (!dc) throw notFound(`data center ${id} not found`);
  return ok(dataCenterRecord(dc, catalog, (gpu) => world.availabilityOf(gpu, t), include));
}

function dataCenterInclude(params: QueryParams) {
  const include = params.list('include', ['GPU_AVAILABILITY', 'CPU_AVAILABILITY'] as const) ?? [];
  return { gpu: include.includes('GPU_AVAILABILITY'), cpu: include.includes('CPU_AVAILABILITY') };
}
