/**
 * Random SBI PMU call scripts (golden-model/pmu/sbi/script.ts steps) for the co-simulation cases:
 * the S-mode kernel's side of the firmware layer, drawn from a seed. The calls mix legal and illegal
 * arguments so that every answer of the spec's error tables can come back: counter indices and masks
 * inside and beyond the counters, events of every type (hardware, cache, raw, firmware, and invalid
 * codes), the flags of each call, shared memory that is mapped, unaligned, outside memory or the
 * "disable" value, firmware events and S-mode reads between the calls, and retirement so counters move.
 */
import { Rng } from '../../golden-model/common/rng.ts';
import { hpmCounters, type PmuConfig } from '../../golden-model/pmu/config.ts';
import { CACHE_ID_MAX, CACHE_OP_MAX, CACHE_RESULT_MAX, Eid, EventType, FW_EVENTS, HW_GENERAL_MAX, PmuFid, RAW_IDX } from '../../golden-model/pmu/sbi/constants.ts';
import type { ScriptStep } from '../../golden-model/pmu/sbi/script.ts';

/** Where the script maps its supervisor memory: a 4 KiB-aligned page for snapshots and event lists. */
const SHMEM = 0x8020_0000n;
const SHMEM_SIZE = 8192;

/** Relative weights of the script's steps. */
const WEIGHTS: Readonly<Record<keyof typeof PmuFid | 'lifecycle' | 'fw-event' | 'retire' | 'read', number>> = {
  num_counters: 1,
  counter_get_info: 3,
  counter_config_matching: 6,
  counter_start: 5,
  counter_stop: 5,
  counter_fw_read: 3,
  counter_fw_read_hi: 2,
  snapshot_set_shmem: 2,
  event_get_info: 2,
  lifecycle: 4,
  'fw-event': 3,
  retire: 4,
  read: 2,
};

/** A random event_idx: mostly legal ones of every type, some with a reserved type or code. */
function eventIdx(rng: Rng): bigint {
  const code = (type: number, c: number): bigint => BigInt((type << 16) | c);
  switch (rng.int(0, 5)) {
    case 0:
      return code(EventType.hw, rng.int(1, HW_GENERAL_MAX + 1)); // HW_GENERAL_MAX: just beyond the table
    case 1:
      return code(EventType.cache, (rng.int(0, CACHE_ID_MAX) << 3) | (rng.int(0, CACHE_OP_MAX) << 1) | rng.int(0, CACHE_RESULT_MAX - 1));
    case 2:
      return BigInt(RAW_IDX);
    case 3:
      return code(EventType.fw, rng.int(0, FW_EVENTS.length + 2));
    case 4:
      return code(rng.int(4, 14), rng.int(0, 3)); // a reserved event type
    default:
      return code(EventType.hw, rng.int(1, 3)); // cycles, instructions, cache references: the common asks
  }
}

/**
 * A random script of about `calls` steps for configuration `c`: first the shared memory is mapped
 * (so snapshot and event_get_info calls can succeed), then the random steps.
 */
export function randomSbiScript(c: PmuConfig, seed: number, calls: number): ScriptStep[] {
  const rng = new Rng(seed ^ 0x5b1);
  const xmask = (1n << BigInt(c.xlen)) - 1n;
  // Counter indices: the hardware counters up to the highest implemented one, then the firmware
  // counters (the numbering of the SBI spec's counter_get_info), and a few beyond.
  const hpm = hpmCounters(c);
  const hardware = hpm.length > 0 ? Math.max(...hpm) + 1 : 3;
  const counters = hardware + c.firmwareCounters;
  /** A counter index; half the time one of the firmware counters (fw_read answers only for those). */
  const index = (): bigint => BigInt(c.firmwareCounters > 0 && rng.chance(0.5) ? hardware + rng.int(0, c.firmwareCounters - 1) : rng.int(0, counters + 1));
  const steps: ScriptStep[] = [{ kind: 'map', base: SHMEM, size: SHMEM_SIZE, line: 1 }];
  const readable = ['cycle', 'instret', ...hpm.map((n) => `hpmcounter${n}`)];
  const kinds = Object.keys(WEIGHTS) as (keyof typeof WEIGHTS)[];
  const weights = kinds.map((k) => WEIGHTS[k]);
  /** A counter base and mask: a few counters from a base, now and then beyond the counters. */
  const range = (): [bigint, bigint] => [index(), BigInt(rng.chance(0.1) ? 0 : rng.int(1, 0xf))];
  const ecall = (fn: keyof typeof PmuFid, args: bigint[]): void => {
    steps.push({ kind: 'ecall', name: `pmu.${fn}`, eid: Eid.pmu, fid: PmuFid[fn], args, line: steps.length + 1 });
  };
  for (let i = 0; i < calls; i++) {
    const kind = kinds[rng.weighted(weights)]!;
    const line = steps.length + 1;
    switch (kind) {
      case 'lifecycle': {
        // One counter through a kernel's usual sequence: configure it alone for a general hardware
        // event (cycles and instructions go to their fixed counters) or a firmware event, start it
        // (now and then twice), let it count, read it, stop it (now and then twice).
        const b = index();
        const firmware = b >= BigInt(hardware);
        const fw = rng.pick(FW_EVENTS);
        ecall('counter_config_matching', [b, 1n, 0n, firmware ? BigInt((EventType.fw << 16) | FW_EVENTS.indexOf(fw)) : BigInt(rng.int(1, HW_GENERAL_MAX - 1)), 0n]);
        for (let n = rng.chance(0.3) ? 2 : 1; n > 0; n--) ecall('counter_start', [b, 1n, BigInt(rng.int(0, 1)), BigInt(rng.u32())]);
        steps.push(firmware ? { kind: 'fw-event', event: fw, line: steps.length + 1 } : { kind: 'retire', count: rng.int(1, 32), line: steps.length + 1 });
        if (firmware) ecall(rng.chance(0.7) ? 'counter_fw_read' : 'counter_fw_read_hi', [b]);
        for (let n = rng.chance(0.3) ? 2 : 1; n > 0; n--) ecall('counter_stop', [b, 1n, BigInt(rng.int(0, 1))]);
        break;
      }
      case 'fw-event':
        steps.push({ kind: 'fw-event', event: rng.pick(FW_EVENTS), line });
        break;
      case 'retire':
        steps.push({ kind: 'retire', count: rng.int(1, 64), line });
        break;
      case 'read':
        steps.push({ kind: 'read', csr: rng.pick(readable), line });
        break;
      case 'num_counters':
        ecall(kind, []);
        break;
      case 'counter_get_info':
      case 'counter_fw_read':
      case 'counter_fw_read_hi':
        ecall(kind, [index()]);
        break;
      case 'counter_config_matching': {
        const [base, mask] = range();
        // Flags: SKIP_MATCH, CLEAR_VALUE, AUTO_START and the inhibit bits; rarely a reserved bit.
        const flags = BigInt(rng.int(0, 0xff)) | (rng.chance(0.05) ? 1n << 9n : 0n);
        ecall(kind, [base, mask, flags, eventIdx(rng), BigInt(rng.u32())]);
        break;
      }
      case 'counter_start': {
        const [base, mask] = range();
        // Flags: SET_INIT_VALUE and INIT_SNAPSHOT, the snapshot one less often.
        ecall(kind, [base, mask, BigInt(rng.pick([0, 0, 1, 1, 2, 3])), BigInt(rng.u32())]);
        break;
      }
      case 'counter_stop': {
        const [base, mask] = range();
        // Flags: RESET and TAKE_SNAPSHOT, the snapshot one less often.
        ecall(kind, [base, mask, BigInt(rng.pick([0, 0, 1, 1, 2, 3]))]);
        break;
      }
      case 'snapshot_set_shmem': {
        const lo = rng.pick([SHMEM, SHMEM, SHMEM + 8n, 0x1000n, xmask]);
        ecall(kind, [lo, lo === xmask ? xmask : rng.chance(0.1) ? 1n : 0n, rng.chance(0.1) ? 1n : 0n]);
        break;
      }
      case 'event_get_info': {
        // The kernel's list: 16-byte entries of event_idx (u32), output (u32), event_data (u64).
        const entries = rng.int(0, 8);
        for (let e = 0; e < entries; e++) steps.push({ kind: 'store', bytes: 4, addr: SHMEM + 16n * BigInt(e), value: eventIdx(rng), line: steps.length + 1 });
        const lo = rng.pick([SHMEM, SHMEM, SHMEM + 4n, 0x1000n]);
        ecall(kind, [lo, rng.chance(0.1) ? 1n : 0n, BigInt(entries), rng.chance(0.1) ? 1n : 0n]);
        break;
      }
    }
  }
  return steps;
}
