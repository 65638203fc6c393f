/**
 * The block registry: one line per block. A block is its own folders (golden-model/, templates/,
 * generator/, tb/ and its components in ipxact/components/) plus its line here, which names the
 * module that assembles its contract (core/block.ts). Nothing else lists blocks.
 */
export { block as ctr } from '../tb/ctr/block.ts';
export { block as etrace } from '../tb/etrace/block.ts';
export { block as ntrace } from '../tb/ntrace/block.ts';
export { block as pmu } from '../tb/pmu/block.ts';
export { block as tvtrace } from '../tb/tvtrace/block.ts';
