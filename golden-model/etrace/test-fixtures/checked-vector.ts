/**
 * The configuration of the design note's checked vector (../shared/design/etrace.md, "One checked
 * vector"): XLEN 64, iaddress_lsb_p 1, 3-bit itype, 32-bit context, no time, 5-bit ecause,
 * 2-bit privilege, no optional modes, resync every 16 packets. Shared by the encoder and decoder
 * tests of that vector.
 */
import { defaultOptions, defaultParams, type EtraceConfig } from '../config.ts';

export function checkedVectorConfig(): EtraceConfig {
  return {
    params: {
      ...defaultParams('2.0'),
      iaddress_width_p: 64,
      iaddress_lsb_p: 1,
      itype_width_p: 3,
      context_width_p: 32,
      nocontext_p: 0,
      notime_p: 1,
      ecause_width_p: 5,
      privilege_width_p: 2,
    },
    // Resync every 16 packets: ResyncMode 1 (packets), ResyncMax 0 (2^(0+4)).
    options: { ...defaultOptions(), ResyncMode: 1, ResyncMax: 0 },
  };
}
