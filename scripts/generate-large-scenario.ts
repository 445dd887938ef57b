/**
 * Writes config/scenarios/large.json: 2,000 Pods (200 of them in 25 clusters), 300 serverless
 * endpoints, 500 network volumes and 40 GPU types, with 30 days of history, for benchmarks.
 * Deterministic: the same seed always writes the same file.
 *
 *   npx tsx scripts/generate-large-scenario.ts [--seed N] [--out PATH]
 */
import { writeFileSync } from 'node:fs';
import { packagePath } from '../src/package-root.js';

const args = process.argv.slice(2);
const seed = Number(argValue('--seed') ?? 20261102);
const out = argValue('--out') ?? packagePath('config/scenarios/large.json');

function argValue(name: string): string | undefined {
  const index = args.indexOf(name);
  return index >= 0 ? args[index + 1] : undefined;
}

/** mulberry32: a tiny seeded PRNG, good enough to make varied but repeatable accounts. */
function prng(state: number): () => number {
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const random = prng(seed);
const int = (min: number, max: number) => min + Math.floor(random() * (max - min + 1));
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
const chance = (p: number) => random() < p;

// [id, name, memory GB, secure $/h, pool]
const GPUS: Array<[string, string, number, number, string | null]> = [
  ['NVIDIA B200', 'B200', 180, 5.99, 'BLACKWELL_180'],
  ['NVIDIA B300', 'B300', 288, 7.89, null],
  ['NVIDIA H200', 'H200 SXM', 141, 3.99, 'HOPPER_141'],
  ['NVIDIA H200 NVL', 'H200 NVL', 143, 3.39, null],
  ['NVIDIA H100 80GB HBM3', 'H100 SXM', 80, 2.99, 'HOPPER_80'],
  ['NVIDIA H100 PCIe', 'H100 PCIe', 80, 2.39, 'HOPPER_80'],
  ['NVIDIA H100 NVL', 'H100 NVL', 94, 2.79, null],
  ['NVIDIA A100-SXM4-80GB', 'A100 SXM', 80, 1.74, 'AMPERE_80'],
  ['NVIDIA A100 80GB PCIe', 'A100 PCIe', 80, 1.64, 'AMPERE_80'],
  ['NVIDIA A40', 'A40', 48, 0.44, 'AMPERE_48'],
  ['NVIDIA A30', 'A30', 24, 0.29, null],
  ['NVIDIA L40S', 'L40S', 48, 0.86, 'ADA_48_PRO'],
  ['NVIDIA L40', 'L40', 48, 0.99, 'ADA_48_PRO'],
  ['NVIDIA L4', 'L4', 24, 0.43, 'ADA_24'],
  ['NVIDIA RTX PRO 6000 Blackwell Server Edition', 'RTX PRO 6000', 96, 1.89, null],
  ['NVIDIA RTX 6000 Ada Generation', 'RTX 6000 Ada', 48, 0.77, 'ADA_48_PRO'],
  ['NVIDIA RTX 5000 Ada Generation', 'RTX 5000 Ada', 32, 0.61, null],
  ['NVIDIA RTX 4000 Ada Generation', 'RTX 4000 Ada', 20, 0.26, 'ADA_24'],
  ['NVIDIA RTX 2000 Ada Generation', 'RTX 2000 Ada', 16, 0.24, 'ADA_16'],
  ['NVIDIA RTX A6000', 'RTX A6000', 48, 0.49, 'AMPERE_48'],
  ['NVIDIA RTX A5000', 'RTX A5000', 24, 0.27, 'AMPERE_24'],
  ['NVIDIA RTX A4500', 'RTX A4500', 20, 0.25, null],
  ['NVIDIA RTX A4000', 'RTX A4000', 16, 0.25, 'AMPERE_16'],
  ['NVIDIA RTX A2000', 'RTX A2000', 6, 0.14, null],
  ['NVIDIA GeForce RTX 5090', 'RTX 5090', 32, 0.94, 'BLACKWELL_32'],
  ['NVIDIA GeForce RTX 4090', 'RTX 4090', 24, 0.69, 'ADA_24'],
  ['NVIDIA GeForce RTX 4080 SUPER', 'RTX 4080 SUPER', 16, 0.31, null],
  ['NVIDIA GeForce RTX 4080', 'RTX 4080', 16, 0.29, null],
  ['NVIDIA GeForce RTX 4070 Ti', 'RTX 4070 Ti', 12, 0.23, null],
  ['NVIDIA GeForce RTX 3090 Ti', 'RTX 3090 Ti', 24, 0.27, null],
  ['NVIDIA GeForce RTX 3090', 'RTX 3090', 24, 0.22, 'AMPERE_24'],
  ['NVIDIA GeForce RTX 3080 Ti', 'RTX 3080 Ti', 12, 0.18, null],
  ['NVIDIA GeForce RTX 3080', 'RTX 3080', 10, 0.17, null],
  ['NVIDIA GeForce RTX 3070', 'RTX 3070', 8, 0.13, null],
  ['Tesla V100-SXM2-32GB', 'V100 SXM2 32GB', 32, 0.39, null],
  ['Tesla V100-PCIE-16GB', 'V100 PCIe', 16, 0.29, null],
  ['Tesla T4', 'T4', 16, 0.19, null],
  ['AMD Instinct MI300X OAM', 'MI300X', 192, 2.49, null],
  ['AMD Instinct MI250X', 'MI250X', 128, 1.99, null],
  ['AMD Radeon PRO W7900', 'W7900', 48, 0.69, null],
];

const LEVELS = ['NONE', 'LOW', 'MEDIUM', 'HIGH'] as const;
const DATA_CENTERS = [
  ['US-KS-2', 'US Kansas 2'],
  ['US-TX-3', 'US Texas 3'],
  ['US-GA-1', 'US Georgia 1'],
  ['US-CA-2', 'US California 2'],
  ['CA-MTL-1', 'Canada Montreal 1'],
  ['EU-RO-1', 'Europe Romania 1'],
  ['EU-SE-1', 'Europe Sweden 1'],
  ['EUR-IS-1', 'Europe Iceland 1'],
  ['AP-JP-1', 'Asia Japan 1'],
  ['OC-AU-1', 'Oceania Australia 1'],
].map(([id, name]) => ({ id, name }));

const gpus = GPUS.map(([id, name, memory, secure, pool]) => {
  const gpu: Record<string, unknown> = {
    id,
    name,
    memory,
    price: { secure, community: round(secure * 0.8) },
    availability: chance(0.3)
      ? [0, 6, 12, 18].map((hour) => ({ at: `${hour}h`, value: pick(LEVELS) }))
      : pick(LEVELS.slice(1)),
    dataCenters: DATA_CENTERS.filter(() => chance(0.6)).map((dc) => dc.id),
  };
  if (pool) {
    gpu.pool = pool;
    gpu.price = { ...(gpu.price as object), serverless: round(secure * 1.5) };
  }
  return gpu;
});

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

type GpuRow = (typeof GPUS)[number];

function utilization(kind: string) {
  if (kind === 'train') {
    const busy = int(85, 99);
    const dipAt = int(0, 55);
    return [
      {
        at: '-30d',
        gpu: busy,
        gpuMemory: int(60, 95),
        memory: int(40, 80),
        cpu: int(20, 60),
        every: '1h',
        until: '2d',
      },
      {
        at: `-30d${dipAt}m`,
        gpu: 0,
        gpuMemory: int(60, 95),
        memory: int(40, 80),
        cpu: int(60, 95),
        every: '1h',
        until: '2d',
      },
    ];
  }
  if (kind === 'infer') {
    return [0, 7, 12, 18].map((hour) => ({
      at: `${hour}h`,
      gpu: int(5, 80),
      gpuMemory: int(50, 95),
      memory: int(20, 60),
      cpu: int(5, 40),
    }));
  }
  const entries: Array<Record<string, unknown>> = [
    { at: '-1d', gpu: 0, gpuMemory: int(0, 40), memory: int(5, 30), cpu: 1 },
  ];
  for (let hour = int(1, 6); hour < 24; hour += int(2, 6)) {
    entries.push({
      at: `${hour}h`,
      gpu: chance(0.5) ? int(20, 80) : 0,
      gpuMemory: int(0, 60),
      memory: int(5, 50),
      cpu: int(1, 30),
    });
  }
  if (chance(0.2)) entries.push({ at: `${int(1, 20)}h`, runtime: null }, { at: `${int(21, 23)}h`, gpu: 0 });
  return entries;
}

function pod(id: string, gpu: GpuRow, count: number, extra: Record<string, unknown> = {}) {
  const kind = pick(['train', 'infer', 'notebook'] as const);
  const status =
    extra.status ?? pick(['RUNNING', 'RUNNING', 'RUNNING', 'RUNNING', 'EXITED', 'EXITED', 'ERROR'] as const);
  const record: Record<string, unknown> = {
    id,
    name: `${kind}-${id}`,
    gpu: { id: gpu[0], count },
    cost: round(gpu[3] * count),
    status,
    dataCenterId: pick(DATA_CENTERS).id,
    utilization: utilization(kind),
    ...extra,
  };
  const startedHoursAgo = int(1, 30 * 24);
  if (status === 'RUNNING' && record.startedAt === undefined) record.startedAt = `-${startedHoursAgo}h`;
  if (status === 'EXITED') {
    record.startedAt = `-${startedHoursAgo}h`;
    record.stoppedAt = `-${int(0, startedHoursAgo)}h`;
  }
  if (status === 'ERROR') record.createdAt = `-${startedHoursAgo}h`;
  if (chance(0.6)) record.volumeGb = pick([20, 50, 100, 200, 500]);
  if (status === 'RUNNING' && chance(0.15))
    record.events = [{ at: `${int(1, 23)}h`, action: pick(['stop', 'restart', 'terminate']) }];
  if (status === 'EXITED' && chance(0.15)) record.events = [{ at: `${int(1, 23)}h`, action: 'start' }];
  return record;
}

const pods = Array.from({ length: 1800 }, (_, index) => {
  const gpu = pick(GPUS);
  return pod(`pod-${String(index).padStart(4, '0')}`, gpu, pick([1, 1, 1, 2, 4, 8]));
});

const clusters = Array.from({ length: 25 }, (_, index) => {
  const gpu = pick(GPUS.slice(0, 9));
  const id = `cluster-${String(index).padStart(2, '0')}`;
  const startedAt = `-${int(1, 20 * 24)}h`;
  return {
    id,
    name: `${pick(['pretrain', 'sweep', 'rl', 'eval'])}-${index}`,
    type: pick(['TRAINING', 'TRAINING', 'SLURM', 'RAY', 'APPLICATION']),
    pods: Array.from({ length: 8 }, (_, rank) => {
      const { events: _events, ...member } = pod(`${id}-node-${rank}`, gpu, 8, { status: 'RUNNING', startedAt });
      return member;
    }),
  };
});

const volumes = Array.from({ length: 500 }, (_, index) => ({
  id: `vol-${String(index).padStart(3, '0')}`,
  name: `volume-${index}`,
  size: pick([10, 50, 100, 250, 500, 1000, 2000, 4096]),
  dataCenter: pick(DATA_CENTERS).id,
  type: chance(0.2) ? 'HIGH_PERFORMANCE' : 'STANDARD',
  createdAt: `-${int(0, 90)}d`,
}));

const pools = [...new Set(GPUS.map((gpu) => gpu[4]).filter((pool): pool is string => pool !== null))];
const endpoints = Array.from({ length: 300 }, (_, index) => {
  const max = int(1, 10);
  const min = int(0, Math.min(2, max));
  return {
    id: `ep-${String(index).padStart(3, '0')}`,
    name: `endpoint-${index}`,
    gpu: { pools: [pick(pools)], count: pick([1, 1, 2]) },
    workers: { min, max },
    createdAt: '-30d',
    load: [
      { at: '-30d', running: 0, idle: min },
      ...[0, 6, 12, 18].map((hour) => {
        const running = int(0, max - min);
        return { at: `${hour}h`, running, idle: min };
      }),
    ],
  };
});

const scenario = {
  name: 'large',
  start: '2026-11-02T00:00:00Z',
  apiKey: 'sim-key',
  readOnlyKey: 'sim-ro',
  catalog: { gpus, dataCenters: DATA_CENTERS },
  pods,
  volumes,
  endpoints,
  clusters,
};

const text = `${JSON.stringify(scenario)}\n`;
writeFileSync(out, text);
process.stdout.write(`wrote ${out} (${(text.length / 1e6).toFixed(2)} MB, seed ${seed})\n`);
