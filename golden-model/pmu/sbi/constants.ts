/**
 * The numbers of the SBI interface the firmware model answers: extension and function ids, error
 * codes, event types and codes, flag bits (SBI specification, PMU extension chapter and the base,
 * timer, IPI and RFENCE chapters), and the component-free identity values the base extension
 * reports (docs/pmu-sbi.md, "Identity").
 */

export const SbiError = {
  SUCCESS: 0n,
  FAILED: -1n,
  NOT_SUPPORTED: -2n,
  INVALID_PARAM: -3n,
  DENIED: -4n,
  INVALID_ADDRESS: -5n,
  ALREADY_AVAILABLE: -6n,
  ALREADY_STARTED: -7n,
  ALREADY_STOPPED: -8n,
  NO_SHMEM: -9n,
} as const;

export type SbiErrorName = keyof typeof SbiError;

/** The name of an error value, or undefined for a value the spec does not define. */
export function sbiErrorName(e: bigint): SbiErrorName | undefined {
  return (Object.keys(SbiError) as SbiErrorName[]).find((k) => SbiError[k] === e);
}

export const Eid = {
  base: 0x10n,
  time: 0x54494d45n,
  ipi: 0x735049n,
  rfence: 0x52464e43n,
  pmu: 0x504d55n,
} as const;

/** Function names per extension, index = function id. */
export const FUNCTIONS: Record<keyof typeof Eid, readonly string[]> = {
  base: ['get_spec_version', 'get_impl_id', 'get_impl_version', 'probe_extension', 'get_mvendorid', 'get_marchid', 'get_mimpid'],
  time: ['set_timer'],
  ipi: ['send_ipi'],
  rfence: ['remote_fence_i', 'remote_sfence_vma', 'remote_sfence_vma_asid', 'remote_hfence_gvma_vmid', 'remote_hfence_gvma', 'remote_hfence_vvma_asid', 'remote_hfence_vvma'],
  pmu: ['num_counters', 'counter_get_info', 'counter_config_matching', 'counter_start', 'counter_stop', 'counter_fw_read', 'counter_fw_read_hi', 'snapshot_set_shmem', 'event_get_info'],
};

export const PmuFid = {
  num_counters: 0,
  counter_get_info: 1,
  counter_config_matching: 2,
  counter_start: 3,
  counter_stop: 4,
  counter_fw_read: 5,
  counter_fw_read_hi: 6,
  snapshot_set_shmem: 7,
  event_get_info: 8,
} as const;

/** event_idx[19:16]. */
export const EventType = { hw: 0, cache: 1, raw: 2, rawV2: 3, fw: 15 } as const;

/** The raw event indices (type 2 and 3 with code 0). */
export const RAW_IDX = 0x20000;
export const RAW_V2_IDX = 0x30000;

/** General hardware event codes 0..10 (SBI_PMU_HW_NO_EVENT .. SBI_PMU_HW_REF_CPU_CYCLES). */
export const HW_GENERAL_MAX = 11;
export const HW_CPU_CYCLES = 1;
export const HW_INSTRUCTIONS = 2;
/** Cache events: cache_id < 7, op_id < 3, result_id < 2. */
export const CACHE_ID_MAX = 7;
export const CACHE_OP_MAX = 3;
export const CACHE_RESULT_MAX = 2;

/** The firmware events of the spec's table, code = index. */
export const FW_EVENTS = [
  'MISALIGNED_LOAD',
  'MISALIGNED_STORE',
  'ACCESS_LOAD',
  'ACCESS_STORE',
  'ILLEGAL_INSN',
  'SET_TIMER',
  'IPI_SENT',
  'IPI_RECEIVED',
  'FENCE_I_SENT',
  'FENCE_I_RECEIVED',
  'SFENCE_VMA_SENT',
  'SFENCE_VMA_RECEIVED',
  'SFENCE_VMA_ASID_SENT',
  'SFENCE_VMA_ASID_RECEIVED',
  'HFENCE_GVMA_SENT',
  'HFENCE_GVMA_RECEIVED',
  'HFENCE_GVMA_VMID_SENT',
  'HFENCE_GVMA_VMID_RECEIVED',
  'HFENCE_VVMA_SENT',
  'HFENCE_VVMA_RECEIVED',
  'HFENCE_VVMA_ASID_SENT',
  'HFENCE_VVMA_ASID_RECEIVED',
] as const;
export type FwEventName = (typeof FW_EVENTS)[number];
/** Codes 22..255 are reserved, 256..65534 implementation specific, 65535 SBI_PMU_FW_PLATFORM. */
export const FW_MAX = FW_EVENTS.length;
export const FW_RESERVED_MAX = 255;
export const FW_PLATFORM = 0xffff;

/** The code of a firmware event name (with or without the SBI_PMU_FW_ prefix), or undefined. */
export function fwEventCode(name: string): number | undefined {
  const n = name.toUpperCase().replace(/^SBI_PMU_FW_/, '');
  const i = (FW_EVENTS as readonly string[]).indexOf(n);
  return i < 0 ? undefined : i;
}

export const CfgFlag = {
  SKIP_MATCH: 1n << 0n,
  CLEAR_VALUE: 1n << 1n,
  AUTO_START: 1n << 2n,
  SET_VUINH: 1n << 3n,
  SET_VSINH: 1n << 4n,
  SET_UINH: 1n << 5n,
  SET_SINH: 1n << 6n,
  SET_MINH: 1n << 7n,
} as const;
export const START_SET_INIT_VALUE = 1n;
export const START_INIT_SNAPSHOT = 2n;
export const STOP_RESET = 1n;
export const STOP_TAKE_SNAPSHOT = 2n;

/** mhpmevent bits of Sscofpmf (and of mcyclecfg/minstretcfg with Smcntrpmf, without OF). */
export const MHPMEVENT_OF = 1n << 63n;
export const MHPMEVENT_MINH = 1n << 62n;
export const MHPMEVENT_SINH = 1n << 61n;
export const MHPMEVENT_UINH = 1n << 60n;
export const MHPMEVENT_VSINH = 1n << 59n;
export const MHPMEVENT_VUINH = 1n << 58n;
export const MHPMEVENT_SSCOF_MASK = 0xffn << 56n;

/**
 * What the base extension reports. The SBI version and OpenSBI version are those of the release
 * the model follows (OpenSBI 1.9 implements SBI 3.0); the machine ids are those QEMU's virt
 * machine gives its generic harts (0: not implemented), as no component describes a vendor.
 */
export interface SbiIdentity {
  specVersion: bigint;
  implId: bigint;
  implVersion: bigint;
  mvendorid: bigint;
  marchid: bigint;
  mimpid: bigint;
}

export const OPENSBI_1_9_IDENTITY: SbiIdentity = {
  specVersion: (3n << 24n) | 0n,
  implId: 1n,
  implVersion: (1n << 16n) | 9n,
  mvendorid: 0n,
  marchid: 0n,
  mimpid: 0n,
};
