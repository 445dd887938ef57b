/* The normalized scenario's shapes, as its normalizer builds them, in one place for readers. */
export type { Catalog, Report, ScenarioCpuType, ScenarioDataCenter, ScenarioGpuType } from './scenario-catalog.js';
export type { Scenario, ScenarioCluster, ScenarioFault, ScenarioVolume } from './scenario-normalize.js';
export type { ScenarioEndpoint, ScenarioPod, Utilization, WorkerLoad } from './scenario-resources.js';
export type { Timeline } from './timeline.js';
