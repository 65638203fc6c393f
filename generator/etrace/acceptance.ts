/**
 * The acceptance of the E-Trace encoder's packets into the output FIFO, as SV text for the chains
 * of etrace_step_accept and etrace_encoder (the model's OutputFifo.offer): by exact size without
 * pipeline stages, by the reservation of the packet's kind with them (pipeline_stages_p; the room
 * as a thermometer), packet by packet while a stall lasts; and, with data trace and several
 * signal groups a cycle, the data sites between the groups.
 */
import type { EtraceConfig } from '../../golden-model/etrace/config.ts';
import { reservationBytes, type ReservationKind } from '../../golden-model/etrace/reservation.ts';
import { svVec } from '../render.ts';
import { dataGroups } from './data.ts';
import { coreSizes, stepsPerCycle, viewsPerGroup } from './shape.ts';

/** Where an offer is written: in a step the option and the trace_lost packet are ports, in the encoder signals. */
type OfferSite = 'step' | 'encoder';
const OFFER_SIGNALS: Readonly<Record<OfferSite, { stall: string; lsupLen: string }>> = {
  step: { stall: 'opt_stall_i', lsupLen: 'lsup_len_i' },
  encoder: { stall: 'opt_stall', lsupLen: 'lsup_len' },
};

/**
 * Register stages between the encoder's decisions and the FIFO write (pipeline_stages_p). With
 * none, a packet is accepted by its exact size in the cycle it is decided; with some, by its
 * reservation (the largest packet of its kind), so that acceptance does not wait for the bytes.
 */
export function pipelineStages(c: EtraceConfig): number {
  return c.params.pipeline_stages_p;
}

/** The reservation constants, named as the acceptance chains use them, in the room's width. */
const RESERVATIONS: readonly (readonly [string, ReservationKind])[] = [
  ['ResSupport', 'support'],
  ['ResSync', 'sync'],
  ['ResTrap', 'trap'],
  ['ResContext', 'context'],
  ['ResReport', 'report'],
  ['ResData', 'data'],
];

export function reservationParams(c: EtraceConfig, names: readonly string[]): string[] {
  const w = coreSizes(c).chainWidth;
  return RESERVATIONS.filter(([name]) => names.includes(name)).map(
    ([name, kind]) => `localparam logic ${svVec(w)} ${name} = ${w}'d${reservationBytes(c.params, kind)};`,
  );
}

/**
 * With pipeline stages the acceptance chains carry the room as a thermometer (bit i: at least i + 1
 * bytes free), so that a packet's test is one bit and taking it a constant shift, not a compare
 * and a subtract per packet. It needs as many bits as a cycle can reserve, at most the FIFO.
 */
export function roomBits(c: EtraceConfig): number {
  const r = (kind: ReservationKind) => reservationBytes(c.params, kind);
  const step = r('support') + Math.max(r('sync'), r('trap'), r('report'), r('support')) + Math.max(r('context'), r('support')) + Math.max(r('report'), r('support'));
  const cycle = stepsPerCycle(c) * step + (c.params.dataTrace ? 2 * r('data') : 0) + r('support');
  return Math.min(c.params.fifo_depth_p, cycle);
}

/**
 * With pipeline stages, an offer's test on the room thermometer (`fits`), the room after taking
 * the packet (`after`) and, for stallEnable, the packet's bit in the mask of packets already
 * written while the cycle stalls (`done`) and the variable set when it is written in this cycle
 * (`now`).
 */
export interface PipelinedOffer {
  readonly fits: string;
  readonly after: string;
  readonly done: string;
  readonly now: string;
  /** With stallEnable the packet is only taken here; whether it is written now is decided apart. */
  readonly writtenApart?: boolean;
}

/**
 * With stallEnable and reservations: a packet not written in an earlier cycle of the stall is
 * written now if nothing before it waits and its reservation fits; otherwise it waits.
 */
export function stalledWrite(pipe: PipelinedOffer): string[] {
  return [
    `if (!${pipe.done}) begin`,
    `  if (!blocked && ${pipe.fits}) begin`,
    `    ${pipe.now} = 1'b1;`,
    `    room = ${pipe.after};`,
    `  end else begin`,
    `    blocked = 1'b1;`,
    `  end`,
    `end`,
  ];
}

/** The test and the room after reserving a constant `res` (a localparam of RESERVATIONS). */
export function reserving(res: string): Pick<PipelinedOffer, 'fits' | 'after'> {
  return { fits: `room[${res}-1]`, after: `(room >> ${res})` };
}

/**
 * One offer of a packet to the FIFO (the model's OutputFifo.offer), as SV statements at the
 * acceptance chain's indentation. `emit`: the packet goes through the model's emit(), whose
 * failure calls lost(); `accepted`: a variable set when the packet itself is taken. `pipe`: the
 * packet is accepted by its reservation (pipelineStages > 0); with stallEnable the packets of a
 * cycle are then written one by one, in order, each once its reservation fits, and the cycle ends
 * when the last one is written.
 */
export function offerBlock(where: OfferSite, take: string, lsup: string, len: string, emit: boolean, accepted?: string, pipe?: PipelinedOffer): string {
  const { stall, lsupLen } = OFFER_SIGNALS[where];
  const pad = (n: number) => ' '.repeat(n);
  const size = `{{chainpad:${len}}}`;
  const lsupSize = `{{chainpad:${lsupLen}}}`;
  const lsupRes = reserving('ResSupport');
  // Exact sizes (no stages) or reservations on the room thermometer.
  const misses = pipe ? `!${pipe.fits}` : `${size} > room`;
  const after = pipe ? pipe.after : `room - ${size}`;
  const lost = (n: number) =>
    [
      `${pad(n)}lost_call = 1'b1;`,
      `${pad(n)}sync_next = 1'b1;`,
      `${pad(n)}awaiting = 1'b1;`,
      `${pad(n)}branches = '0; map = '0; pbc = '0; map_failed = 1'b0; count_failed = 1'b0;`,
    ].join('\n');
  const stalled = pipe ? (pipe.writtenApart ? [] : stalledWrite(pipe).map((l) => `  ${l}`)) : [`  need = need + ${size};`];
  const lines = [
    `if (${stall}) begin`,
    `  ${take} = 1'b1;`,
    ...stalled,
    ...(accepted ? [`  ${accepted} = 1'b1;`] : []),
    `end else if (lost_pending) begin`,
    `  // Trace was lost: the trace_lost support packet goes first, once it fits.`,
    `  if (${pipe ? lsupRes.fits : `${lsupSize} <= room`}) begin`,
    `    ${take} = 1'b1;`,
    `    ${lsup} = 1'b1;`,
    `    room = ${pipe ? lsupRes.after : `room - ${lsupSize}`};`,
    `    lost_pending = 1'b0;`,
    lost(4),
    `  end`,
    ...(emit ? [lost(2)] : []),
    `end else if (${misses}) begin`,
    `  // After a loss (awaiting a sync) the trace is already reported lost: no second report.`,
    `  if (!awaiting) lost_pending = 1'b1;`,
    ...(emit ? [lost(2)] : []),
    `end else begin`,
    `  ${take} = 1'b1;`,
    `  room = ${after};`,
    ...(accepted ? [`  ${accepted} = 1'b1;`] : []),
    `end`,
  ];
  return lines.join('\n');
}

/**
 * The room arithmetic a step passes on besides the encoder state: the room left, and with
 * stallEnable the bytes needed (exact sizes) or whether a packet had to wait (reservations).
 */
export function roomChain(c: EtraceConfig): { name: string; width: number }[] {
  const w = coreSizes(c).chainWidth;
  return pipelineStages(c) > 0
    ? [
        { name: 'room', width: roomBits(c) },
        { name: 'blocked', width: 1 },
      ]
    : [
        { name: 'room', width: w },
        { name: 'need', width: w },
      ];
}

/** Packets a step writes, in order (each may be the trace_lost support packet instead). */
export const STEP_WRITES = ['pre', 'main', 'sf2', 'rsy'] as const;

/** The register stages of the byte path inside a step (before contents, after it). */
export function stepStages(c: EtraceConfig): number {
  return Math.min(2, pipelineStages(c));
}

/** A step's offer with reservations: packet `k` of STEP_WRITES, reserving `res`. */
export function stepPipe(k: number, res: string): PipelinedOffer {
  const main = (f: (r: string) => string) => `((a_main_i == MainSync) ? ${f('ResSync')} : (a_main_i == MainTrap) ? ${f('ResTrap')} : ${f('ResReport')})`;
  const test = res === 'res_main' ? { fits: main((r) => `room[${r}-1]`), after: main((r) => `(room >> ${r})`) } : reserving(res);
  return { ...test, done: `done_i[${k}]`, now: `now_${STEP_WRITES[k]}` };
}

/**
 * Data trace with several signal groups a cycle: the access's packet follows the te_inst packets of
 * its group (dblock_i), so between groups g and g + 1 a data site offers it when it is group g's.
 * The site before step k (the first step of group g + 1) gives g; the last group's site is the
 * session offer's (p_post). A site changes only the room, the wait and the loss of the chain.
 */
export function dataSiteBefore(c: EtraceConfig, k: number): number | undefined {
  const g = k / viewsPerGroup(c) - 1;
  return dataGroups(c) > 1 && Number.isInteger(g) && g >= 0 && g < dataGroups(c) - 1 ? g : undefined;
}

export const DATA_SITE_VARS: readonly string[] = ['room', 'blocked', 'lost_pending'];

/** The data site between group g and g + 1 (before step k): the offer of p_post's data packet, by its reservation. */
export function dataSite(c: EtraceConfig, g: number, k: number, doneBit: number): string[] {
  const dbw = c.params.dataTrace!.dblock_width_p;
  const offer = stalledWrite({ ...reserving('ResData'), done: `done_q[${doneBit}]`, now: `now_dat${g}` });
  return [
    `// The access's packet when it is group ${g}'s: after that group's packets, before group ${g + 1}'s.`,
    `always_comb begin : p_data_site${g}`,
    `  logic [${roomBits(c) - 1}:0] room;`,
    `  logic blocked, lost_pending;`,
    `  room = s${k}_room;`,
    `  blocked = s${k}_blocked;`,
    `  lost_pending = s${k}_lost_pending;`,
    `  take_dat${g} = 1'b0;`,
    `  now_dat${g} = 1'b0;`,
    `  if (dat_valid && dat_block == ${dbw}'d${g}) begin`,
    `    if (opt_stall) begin`,
    `      take_dat${g} = 1'b1;`,
    ...offer.map((l) => `      ${l}`),
    `    end else if (!lost_pending && !s${k}_awaiting) begin`,
    `      if (!room[ResData-1]) begin`,
    `        lost_pending = 1'b1;`,
    `      end else begin`,
    `        take_dat${g} = 1'b1;`,
    `        room = room >> ResData;`,
    `      end`,
    `    end`,
    `  end`,
    ...DATA_SITE_VARS.map((v) => `  x${k}_${v} = ${v};`),
    'end',
  ];
}
