/**
 * The slice of RunPod's GraphQL schema that the daemon and the official clients query
 * (api-notes §5.2), as SDL. Input types accept exactly the fields RunPod's do, so a client
 * sending one RunPod rejects gets the same validation error here (api-notes §5.3).
 */
export const RUNPOD_SDL = /* GraphQL */ `
type Query {
  myself: User!
  pod(input: PodFilter!): Pod
  gpuTypes(input: GpuTypeFilter): [GpuType]
}

type Mutation {
  podStop(input: PodStopInput!): Pod
  podResume(input: PodResumeInput!): Pod
  podTerminate(input: PodTerminateInput!): Boolean
}

input PodFilter {
  podId: String!
}

input PodStopInput {
  podId: String!
  incrementVersion: Boolean
}

input PodResumeInput {
  podId: String!
  gpuCount: Int
}

input PodTerminateInput {
  podId: String!
}

input GpuTypeFilter {
  id: String
  ids: [String]
}

input GpuLowestPriceInput {
  gpuCount: Int
  secureCloud: Boolean
  minMemoryInGb: Int
  minVcpuCount: Int
  totalDisk: Int
  minDisk: Int
  dataCenterId: String
  minCudaVersion: String
  allowedCudaVersions: [String]
}

type User {
  id: String!
  email: String
  currentSpendPerHr: Float
  pods: [Pod]
}

type Pod {
  id: String
  name: String
  desiredStatus: String
  imageName: String
  dockerArgs: String
  ports: String
  podType: String
  machineId: String
  lastStatusChange: String
  volumeMountPath: String
  costPerHr: Float
  adjustedCostPerHr: Float
  memoryInGb: Float
  gpuCount: Int
  vcpuCount: Int
  containerDiskInGb: Int
  volumeInGb: Int
  uptimeSeconds: Int
  env: [String]
  runtime: PodRuntime
  machine: PodMachine
}

type PodRuntime {
  uptimeInSeconds: Int
  ports: [PodRuntimePorts]
  gpus: [PodRuntimeGpus]
  container: PodRuntimeContainer
}

type PodRuntimePorts {
  ip: String
  isIpPublic: Boolean
  privatePort: Int
  publicPort: Int
  type: String
}

type PodRuntimeGpus {
  id: String
  gpuUtilPercent: Int
  memoryUtilPercent: Int
}

type PodRuntimeContainer {
  cpuPercent: Int
  memoryPercent: Int
}

type PodMachine {
  gpuDisplayName: String
  location: String
  podHostId: String
}

type GpuType {
  id: String
  displayName: String
  manufacturer: String
  memoryInGb: Int
  maxGpuCount: Int
  secureCloud: Boolean
  communityCloud: Boolean
  securePrice: Float
  communityPrice: Float
  secureSpotPrice: Float
  communitySpotPrice: Float
  oneWeekPrice: Float
  oneMonthPrice: Float
  threeMonthPrice: Float
  lowestPrice(input: GpuLowestPriceInput): LowestPrice
}

type LowestPrice {
  gpuName: String
  gpuTypeId: String
  stockStatus: String
  uninterruptablePrice: Float
  minimumBidPrice: Float
  minMemory: Float
  minVcpu: Float
  availableGpuCounts: [Int]
}
`;
