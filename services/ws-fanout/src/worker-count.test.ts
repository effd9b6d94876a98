import { describe, expect, it } from 'vitest';
import {
  CGROUP_V1_CPU_PERIOD,
  CGROUP_V1_CPU_QUOTA,
  CGROUP_V2_CPU_MAX,
  containerCpuLimit,
  parseCgroupV1Quota,
  parseCgroupV2CpuMax,
  resolveWorkerCount,
} from './worker-count.js';

const files = (contents: Record<string, string>) => (path: string) => {
  const text = contents[path];
  if (text === undefined) throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
  return text;
};

describe('worker count', () => {
  it('when WS_WORKERS is positive, then it is used as given, whatever the CPUs', () => {
    expect(resolveWorkerCount(3, 64, 2)).toBe(3);
    expect(resolveWorkerCount(1, 8, undefined)).toBe(1);
  });

  it('when WS_WORKERS is 0 and the container has no CPU limit, then one worker per available CPU', () => {
    expect(resolveWorkerCount(0, 8, undefined)).toBe(8);
  });

  it('when WS_WORKERS is 0 and the container is limited, then the limit rounded down caps the count, at least 1', () => {
    expect(resolveWorkerCount(0, 64, 2)).toBe(2);
    expect(resolveWorkerCount(0, 64, 2.5)).toBe(2);
    expect(resolveWorkerCount(0, 64, 0.25)).toBe(1);
    expect(resolveWorkerCount(0, 2, 16)).toBe(2);
  });

  it('when cgroup files state a quota, then it is read as CPUs; "max", -1, garbage or missing files mean no limit', () => {
    expect(parseCgroupV2CpuMax('200000 100000\n')).toBe(2);
    expect(parseCgroupV2CpuMax('150000 100000')).toBe(1.5);
    expect(parseCgroupV2CpuMax('max 100000')).toBeUndefined();
    expect(parseCgroupV2CpuMax('')).toBeUndefined();
    expect(parseCgroupV1Quota('-1\n', '100000\n')).toBeUndefined();
    expect(parseCgroupV1Quota('50000', '100000')).toBe(0.5);
    expect(containerCpuLimit(files({ [CGROUP_V2_CPU_MAX]: '400000 100000' }))).toBe(4);
    expect(containerCpuLimit(files({ [CGROUP_V1_CPU_QUOTA]: '300000', [CGROUP_V1_CPU_PERIOD]: '100000' }))).toBe(3);
    expect(containerCpuLimit(files({ [CGROUP_V2_CPU_MAX]: 'max 100000', [CGROUP_V1_CPU_QUOTA]: '300000', [CGROUP_V1_CPU_PERIOD]: '100000' }))).toBe(3);
    expect(containerCpuLimit(files({}))).toBeUndefined();
  });
});
