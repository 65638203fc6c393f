/** The qemu-virt platform of the tests: QEMU's virt machine as OpenSBI 1.9 sees it (16 hpm counters 3..18). */
import { parsePlatformMaps, type PmuConfig, type SbiBehaviour } from '../../config.ts';
import { defaultPmuConfig } from '../../settings.ts';

export const QEMU_VIRT_EVENT_TO_COUNTERS = '<0x01 0x01 0x7fff9 0x02 0x02 0x7fffc 0x10019 0x10019 0x7fff8 0x1001b 0x1001b 0x7fff8 0x10021 0x10021 0x7fff8 0x00 0x00 0x00>';

export function qemuVirtConfig(over: { sscofpmf?: boolean; sbiBehaviour?: SbiBehaviour; smcntrpmf?: boolean } = {}): PmuConfig {
  return defaultPmuConfig({
    xlen: 64,
    hExt: true,
    counterMask: 0x7fff8,
    counterWidth: 64,
    smcntrpmf: over.smcntrpmf ?? false,
    sscofpmf: over.sscofpmf ?? true,
    firmwareCounters: 16,
    eventBits: 20,
    eventInputs: 3,
    sbiBehaviour: over.sbiBehaviour ?? 'opensbi-1.9',
    ...parsePlatformMaps({
      events: '0x1=cycles,0x2=instructions,0x10019=input0,0x1001b=input1,0x10021=input2',
      eventToCounters: QEMU_VIRT_EVENT_TO_COUNTERS,
      eventToSelector: '',
      rawEventToCounters: '',
    }),
  });
}
