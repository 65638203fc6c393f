/**
 * The register map of a CTR configuration as documentation and IP-XACT describe it: every CSR the
 * unit answers (ctr.ts ctrCsrDecode, the same decode the RTL uses) with its fields, and the entry
 * registers behind the *iselect/*ireg* window. Field positions and implemented bits come from the
 * model's register map (golden-model/ctr/registers.ts), so the export cannot drift from the model.
 *
 * Field names are those of the seed spec (v0.1.4 chapter 2) for both versions, with the bit
 * positions of each version; the ratified 1.0 renamed a few filter bits.
 */
import { type CtrConfig, depthIndex } from './config.ts';
import { controlLayout, Csr014, Csr10, CsrInd, DATA_CC_LSB, DATA_CCV_BIT, depthEncoding014, filterBit, mControlMask, sControlMask, vsControlMask } from './registers.ts';

/** log2 of the array size: the width of a physical entry index. */
export function physicalIndexWidth(c: CtrConfig): number {
  return depthIndex(c.depthMax) + 4;
}

/**
 * Bits of the cycle counter: the 1.0 table's CtrCycleCounter width for the implemented CCE bits
 * (12, 13, 15, 19, 27); a saturating counter of that width encodes every CC the model's does.
 */
export function counterWidth(c: CtrConfig): number {
  return c.cceBits === 0 ? 12 : 12 + (1 << c.cceBits) - 1;
}

type CtlReg = 'RegM' | 'RegS' | 'RegVs';
type Which = 'WhichM' | 'WhichS' | 'WhichVs';

/** One implemented CSR as ctr_csr decodes it (mirrors the model's buildCsrMap). */
export interface CtrCsrDecode {
  readonly address: number;
  readonly name: string;
  readonly kind: 'ctl' | 'status' | 'depth' | 'sel' | 'ireg';
  readonly reg?: CtlReg;
  readonly half?: 'HalfFull' | 'HalfLo' | 'HalfHi';
  readonly which?: Which;
  readonly n?: number;
}

/** The CSRs of a configuration with what each one accesses, in address order. */
export function ctrCsrDecode(c: CtrConfig): CtrCsrDecode[] {
  const out: CtrCsrDecode[] = [];
  const rv32 = c.xlen === 32;
  const control = (lo: number, hi: number | undefined, name: string, reg: CtlReg): void => {
    out.push({ address: lo, name, kind: 'ctl', reg, half: rv32 ? 'HalfLo' : 'HalfFull' });
    if (rv32 && hi !== undefined) out.push({ address: hi, name: `${name}h`, kind: 'ctl', reg, half: 'HalfHi' });
  };
  const indirect = (base: number, prefix: string, which: Which): void => {
    out.push({ address: base, name: `${prefix}iselect`, kind: 'sel', which });
    [1, 2, 3, 5, 6, 7].forEach((o, i) => out.push({ address: base + o, name: `${prefix}ireg${i === 0 ? '' : i + 1}`, kind: 'ireg', which, n: i + 1 }));
  };
  if (c.specVersion === '0.1.4') {
    control(Csr014.mctrcontrol, Csr014.mctrcontrolh, 'mctrcontrol', 'RegM');
    out.push({ address: Csr014.mctrstatus, name: 'mctrstatus', kind: 'status' });
    indirect(CsrInd.miselect, 'm', 'WhichM');
    if (c.sMode) {
      control(Csr014.sctrcontrol, Csr014.sctrcontrolh, 'sctrcontrol', 'RegS');
      out.push({ address: Csr014.sctrstatus, name: 'sctrstatus', kind: 'status' });
      indirect(CsrInd.siselect, 's', 'WhichS');
    }
    if (c.hExt) {
      control(Csr014.vsctrcontrol, Csr014.vsctrcontrolh, 'vsctrcontrol', 'RegVs');
      indirect(CsrInd.vsiselect, 'vs', 'WhichVs');
    }
  } else {
    control(Csr10.mctrctl, undefined, 'mctrctl', 'RegM');
    control(Csr10.sctrctl, undefined, 'sctrctl', 'RegS');
    out.push({ address: Csr10.sctrstatus, name: 'sctrstatus', kind: 'status' });
    out.push({ address: Csr10.sctrdepth, name: 'sctrdepth', kind: 'depth' });
    indirect(CsrInd.siselect, 's', 'WhichS');
    if (c.hExt) {
      control(Csr10.vsctrctl, undefined, 'vsctrctl', 'RegVs');
      indirect(CsrInd.vsiselect, 'vs', 'WhichVs');
    }
  }
  return out.sort((a, b) => a.address - b.address);
}

/** The name of a CSR number in a configuration (for messages and dumps), or undefined. */
export function ctrCsrName(c: CtrConfig, address: number): string | undefined {
  return ctrCsrDecode(c).find((d) => d.address === address)?.name;
}

export interface CtrField {
  readonly name: string;
  readonly lsb: number;
  readonly width: number;
  readonly access: 'read-write' | 'read-only' | 'write-only';
  readonly reset: bigint;
  readonly description: string;
}

export interface CtrRegister {
  /** The CSR number (CSR map), or the offset in the entry window (entry registers). */
  readonly address: number;
  readonly name: string;
  /** Bits. */
  readonly width: number;
  readonly description: string;
  readonly fields: readonly CtrField[];
}

/** Filter bit names (v0.1.4 chapter 2), by TYPE. */
export const CTR_FILTER_NAMES: Readonly<Record<number, string>> = {
  1: 'EXCINH',
  2: 'INTRINH',
  3: 'TRETINH',
  4: 'NTBREN',
  5: 'TKBRINH',
  8: 'INDCALLINH',
  9: 'DIRCALLINH',
  10: 'INDJUMPINH',
  11: 'DIRJUMPINH',
  12: 'CORSWAPINH',
  13: 'RETINH',
  14: 'INDOJMPINH',
  15: 'DIROJMPINH',
};

/** The TYPE names (ctrdata.TYPE, the E-Trace itype codes), for dumps. */
export const CTR_TYPE_NAMES: Readonly<Record<number, string>> = {
  0: 'none',
  1: 'exception',
  2: 'interrupt',
  3: 'trap-return',
  4: 'not-taken-branch',
  5: 'taken-branch',
  6: 'reserved-6',
  7: 'reserved-7',
  8: 'indirect-call',
  9: 'direct-call',
  10: 'indirect-jump',
  11: 'direct-jump',
  12: 'co-routine-swap',
  13: 'return',
  14: 'other-indirect-jump',
  15: 'other-direct-jump',
};

type View = 'm' | 's' | 'vs';

/** The fields of a control register (64-bit positions) in one view. */
function controlFields(c: CtrConfig, view: View): CtrField[] {
  const l = controlLayout(c);
  const v014 = c.specVersion === '0.1.4';
  const mask = view === 'm' ? mControlMask(c) : view === 's' ? sControlMask(c) : vsControlMask(c);
  const names = new Map<number, [string, string]>();
  const vs = view === 'vs';
  names.set(l.m, ['M', 'record in M-mode']);
  names.set(l.s, [vs && v014 ? 'VS' : 'S', vs ? 'record in VS-mode' : 'record in S-mode']);
  names.set(l.u, [vs && v014 ? 'VU' : 'U', vs ? 'record in VU-mode' : 'record in U-mode']);
  names.set(l.mte, ['MTE', 'record external traps to M-mode']);
  names.set(l.ste, [vs && v014 ? 'VSTE' : 'STE', vs ? 'record external traps to VS-mode' : 'record external traps to S-mode (HS-mode)']);
  names.set(l.rasemu, ['RASEMU', 'RAS emulation mode']);
  names.set(l.bpfrz, ['BPFRZ', 'freeze on a breakpoint exception']);
  names.set(l.lcofifrz, ['LCOFIFRZ', 'freeze on a local counter overflow interrupt']);
  if (l.eten !== undefined) names.set(l.eten, ['ETEN', 'enable recording of external traps']);
  for (const [t, name] of Object.entries(CTR_FILTER_NAMES)) {
    names.set(filterBit(Number(t)), [name, Number(t) === 4 ? 'record not-taken branches' : `inhibit recording of TYPE ${t}`]);
  }
  const fields: CtrField[] = [];
  for (let b = 0; b < 64; b++) {
    if (((mask >> BigInt(b)) & 1n) === 0n) continue;
    const [name, description] = names.get(b) ?? [`BIT${b}`, 'implemented bit'];
    fields.push({ name, lsb: b, width: 1, access: 'read-write', reset: 0n, description });
  }
  if (v014) {
    fields.push({ name: 'CLR', lsb: l.clr!, width: 1, access: 'write-only', reset: 0n, description: vs ? 'write 1 with V=1: zero every entry and mctrstatus (reads 0)' : 'write 1: zero every entry and mctrstatus (reads 0)' });
    const enc = BigInt(depthEncoding014(depthIndex(c.resetDepth)));
    fields.push({
      name: 'DEPTH',
      lsb: l.depthLsb!,
      width: 4,
      access: vs ? 'read-only' : 'read-write',
      reset: enc,
      description: vs ? 'depth (read-only copy)' : `depth: 0000 16, 0001 32, 0011 64, 0111 128, 1111 256 (WARL: ${c.depthMin}..${c.depthMax}, ${c.depthLegalisation})`,
    });
  }
  return fields.sort((a, b) => a.lsb - b.lsb);
}

function csrRegister(c: CtrConfig, d: CtrCsrDecode): CtrRegister {
  const x = c.xlen;
  const pw = physicalIndexWidth(c);
  const v014 = c.specVersion === '0.1.4';
  switch (d.kind) {
    case 'ctl': {
      const view: View = d.reg === 'RegM' ? 'm' : d.reg === 'RegS' ? 's' : 'vs';
      const all = controlFields(c, view);
      const lo = d.half === 'HalfHi' ? 32 : 0;
      const fields = all.filter((f) => f.lsb >= lo && f.lsb < lo + x).map((f) => ({ ...f, lsb: f.lsb - lo }));
      const what = view === 'm' ? 'M-level' : view === 's' ? 'S-level (M and MTE read 0)' : 'VS-level';
      const half = d.half === 'HalfHi' ? ', bits 63:32' : d.half === 'HalfLo' ? ', bits 31:0' : '';
      return { address: d.address, name: d.name, width: x, description: `CTR control, ${what}${half}. A write clears CCV of the next record.`, fields };
    }
    case 'status':
      return {
        address: d.address,
        name: d.name,
        width: x,
        description: 'CTR status (the same register from M, S and VS).',
        fields: [
          { name: 'WRPTR', lsb: 0, width: pw, access: 'read-write', reset: 0n, description: 'physical entry the next record is written to; bits above depth-1 read 0' },
          ...(v014 ? [{ name: 'WRAP', lsb: 14, width: 1, access: 'read-write' as const, reset: 0n, description: 'WRPTR has wrapped' }] : []),
          { name: 'FROZEN', lsb: v014 ? 15 : 31, width: 1, access: 'read-write', reset: 0n, description: 'recording is frozen' },
        ],
      };
    case 'depth':
      return {
        address: d.address,
        name: d.name,
        width: x,
        description: 'CTR depth (1.0).',
        fields: [{ name: 'DEPTH', lsb: 0, width: 3, access: 'read-write', reset: BigInt(depthIndex(c.resetDepth)), description: `0..4 = 16..256 entries (WARL: ${c.depthMin}..${c.depthMax}, ${c.depthLegalisation})` }],
      };
    case 'sel':
      return {
        address: d.address,
        name: d.name,
        width: x,
        description: 'Smcsrind select: 0x200 + logical entry selects a CTR entry (0 = youngest).',
        fields: [{ name: 'SELECT', lsb: 0, width: x, access: 'read-write', reset: 0n, description: 'any value; *ireg* accesses need 0x200..0x2FF' }],
      };
    case 'ireg': {
      const reg = ['ctrsource', 'ctrtarget', 'ctrdata'][d.n! - 1];
      return reg !== undefined
        ? { address: d.address, name: d.name, width: x, description: `${reg} of the selected entry (0 above the depth; illegal with the select outside 0x200..0x2FF).`, fields: [{ name: 'VALUE', lsb: 0, width: x, access: 'read-write', reset: 0n, description: `the entry's ${reg} (see the ctr_entries memory map)` }] }
        : { address: d.address, name: d.name, width: x, description: 'Read-only 0 for CTR selects.', fields: [{ name: 'ZERO', lsb: 0, width: x, access: 'read-only', reset: 0n, description: 'reads 0' }] };
    }
  }
}

/** Every CSR of the configuration, in CSR-number order. */
export function ctrCsrRegisters(c: CtrConfig): CtrRegister[] {
  return ctrCsrDecode(c).map((d) => csrRegister(c, d));
}

/** The entry registers by their *ireg number (Smcsrind: *ireg = 1, *ireg2 = 2, *ireg3 = 3). */
export const CTR_ENTRY_WINDOW = { ctrsource: 1, ctrtarget: 2, ctrdata: 3 } as const;

/** ctrsource, ctrtarget and ctrdata of the entry *iselect selects. */
export function ctrEntryRegisters(c: CtrConfig): CtrRegister[] {
  const x = c.xlen;
  const data: CtrField[] = [];
  if (c.typeField) data.push({ name: 'TYPE', lsb: 0, width: 4, access: 'read-write', reset: 0n, description: 'transfer type (E-Trace itype codes)' });
  if (c.cycleCounting) {
    data.push({ name: 'CCV', lsb: DATA_CCV_BIT, width: 1, access: 'read-write', reset: 0n, description: 'CC is valid' });
    data.push({ name: 'CCM', lsb: DATA_CC_LSB, width: 12, access: 'read-write', reset: 0n, description: 'cycle count mantissa' });
    if (c.cceBits > 0) data.push({ name: 'CCE', lsb: DATA_CC_LSB + 12, width: c.cceBits, access: 'read-write', reset: 0n, description: 'cycle count exponent' });
  }
  if (data.length === 0) data.push({ name: 'ZERO', lsb: 0, width: 32, access: 'read-only', reset: 0n, description: 'no field is implemented: reads 0' });
  return [
    {
      address: CTR_ENTRY_WINDOW.ctrsource,
      name: 'ctrsource',
      width: x,
      description: 'Source of the transfer (*ireg).',
      fields: [
        { name: 'V', lsb: 0, width: 1, access: 'read-write', reset: 0n, description: 'the entry is valid' },
        { name: 'PC', lsb: 1, width: x - 1, access: 'read-write', reset: 0n, description: 'source PC[XLEN-1:1]' },
      ],
    },
    {
      address: CTR_ENTRY_WINDOW.ctrtarget,
      name: 'ctrtarget',
      width: x,
      description: 'Target of the transfer (*ireg2).',
      fields: [
        ...(c.misp ? [{ name: 'MISP', lsb: 0, width: 1, access: 'read-write' as const, reset: 0n, description: 'the transfer was mispredicted' }] : []),
        { name: 'PC', lsb: 1, width: x - 1, access: 'read-write', reset: 0n, description: 'target PC[XLEN-1:1]' },
      ],
    },
    { address: CTR_ENTRY_WINDOW.ctrdata, name: 'ctrdata', width: x, description: 'Type and cycle count (*ireg3).', fields: data },
  ];
}
