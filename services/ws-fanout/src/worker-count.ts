/**
 * How many fan-out worker processes a pod runs (WS_WORKERS; 0 = one per CPU the pod may use).
 *
 * Node 20's `os.availableParallelism()` (libuv 1.46) counts the CPUs the process may be scheduled on,
 * not the container's CPU limit: on a 64-core node a pod limited to 2 CPUs would fork 64 workers,
 * each with its own heap, and be throttled and OOM-killed. So the CFS quota of the process's cgroup
 * caps the count, rounded down (as Go's uber-go/automaxprocs does), at least 1.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

/** cgroup v2 CPU limit of the container (`<quota> <period>` or `max <period>`), as a container sees its own cgroup. */
export const CGROUP_V2_CPU_MAX = '/sys/fs/cgroup/cpu.max';
/** cgroup v1 CPU limit: quota (-1 = none) and period, µs. */
export const CGROUP_V1_CPU_QUOTA = '/sys/fs/cgroup/cpu/cpu.cfs_quota_us';
export const CGROUP_V1_CPU_PERIOD = '/sys/fs/cgroup/cpu/cpu.cfs_period_us';

/**
 * CPUs allowed by a cgroup v2 `cpu.max` text (`"200000 100000"` → 2, `"150000 100000"` → 1.5), or
 * undefined when unlimited (`"max 100000"`) or unreadable.
 */
export function parseCgroupV2CpuMax(text: string): number | undefined {
  const [quota, period] = text.trim().split(/\s+/);
  return cpusOf(Number(quota), Number(period));
}

/** CPUs allowed by cgroup v1 `cpu.cfs_quota_us` / `cpu.cfs_period_us` texts (quota -1 = unlimited → undefined). */
export function parseCgroupV1Quota(quotaText: string, periodText: string): number | undefined {
  return cpusOf(Number(quotaText.trim()), Number(periodText.trim()));
}

function cpusOf(quotaUs: number, periodUs: number): number | undefined {
  return Number.isFinite(quotaUs) && Number.isFinite(periodUs) && quotaUs > 0 && periodUs > 0 ? quotaUs / periodUs : undefined;
}

/**
 * The CPU limit of this process's container in CPUs (possibly fractional), read from cgroup v2 then
 * v1; undefined when there is none or the files are absent (not Linux, not in a container).
 */
export function containerCpuLimit(read: (path: string) => string = (path) => readFileSync(path, 'utf8')): number | undefined {
  const attempt = <T>(f: () => T): T | undefined => {
    try {
      return f();
    } catch {
      return undefined;
    }
  };
  return (
    attempt(() => parseCgroupV2CpuMax(read(CGROUP_V2_CPU_MAX))) ?? attempt(() => parseCgroupV1Quota(read(CGROUP_V1_CPU_QUOTA), read(CGROUP_V1_CPU_PERIOD)))
  );
}

/**
 * Worker processes to run.
 * @param configured WS_WORKERS: a positive count is used as given; 0 means "every CPU the pod may use".
 * @param cpus CPUs the process may run on (`os.availableParallelism()`).
 * @param cpuLimit the container's CPU limit in CPUs ({@link containerCpuLimit}), undefined when unlimited.
 * @returns `configured` when positive, else `min(cpus, floor(cpuLimit))`, at least 1 (1 = single-process mode).
 */
export function resolveWorkerCount(configured: number, cpus: number, cpuLimit: number | undefined): number {
  if (configured > 0) return configured;
  const limit = cpuLimit === undefined ? cpus : Math.min(cpus, Math.floor(cpuLimit));
  return Math.max(1, limit);
}

/** {@link resolveWorkerCount} for this process: WS_WORKERS, its CPUs and its container's CPU limit. */
export function workerCountHere(configured: number): number {
  return resolveWorkerCount(configured, availableParallelism(), configured > 0 ? undefined : containerCpuLimit());
}
