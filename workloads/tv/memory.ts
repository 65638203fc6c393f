/**
 * The memory a derivation knows: the ELF's loadable segments, every store it derived since, and
 * every value a load returned (QEMU's log shows registers, not memory). It gives the instruction
 * words (so code written at run time is fetched as written), the old value an AMO with rd = x0
 * combines, and a check of every load: the value QEMU loaded must be what the derived stores left.
 * Only RAM and the image are tracked; device registers (CLINT, UART, test device) are not memory.
 */
import type { ProgramImage } from '../../golden-model/hart/image.ts';

const PAGE = 4096;

interface Page {
  readonly data: Uint8Array;
  /** 1 where the byte is known. */
  readonly known: Uint8Array;
}

/** QEMU virt's RAM (-m 128M, the default). */
export const VIRT_RAM = { base: 0x8000_0000, size: 128 * 1024 * 1024 } as const;

export class ShadowMemory {
  private readonly pages = new Map<number, Page>();
  private readonly ranges: { lo: number; hi: number }[];

  constructor(image: ProgramImage) {
    this.ranges = [{ lo: VIRT_RAM.base, hi: VIRT_RAM.base + VIRT_RAM.size }];
    for (const s of image.segments) {
      const lo = Number(s.base);
      this.ranges.push({ lo, hi: lo + s.bytes.length });
      for (let i = 0; i < s.bytes.length; i++) this.set(lo + i, s.bytes[i]!);
    }
  }

  /** The access lies in RAM or the image (not a device). */
  tracked(addr: bigint, bytes: number): boolean {
    if (addr > BigInt(Number.MAX_SAFE_INTEGER)) return false;
    const a = Number(addr);
    return this.ranges.some((r) => a >= r.lo && a + bytes <= r.hi);
  }

  private page(a: number, create: boolean): Page | undefined {
    const key = Math.floor(a / PAGE);
    let p = this.pages.get(key);
    if (p === undefined && create) this.pages.set(key, (p = { data: new Uint8Array(PAGE), known: new Uint8Array(PAGE) }));
    return p;
  }

  private set(a: number, byte: number): void {
    const p = this.page(a, true)!;
    p.data[a % PAGE] = byte;
    p.known[a % PAGE] = 1;
  }

  /** The little-endian value of `bytes` bytes at `addr`, or undefined when a byte is not known. */
  read(addr: bigint, bytes: number): bigint | undefined {
    const a = Number(addr);
    let v = 0n;
    for (let i = bytes - 1; i >= 0; i--) {
      const p = this.page(a + i, false);
      if (p === undefined || !p.known[(a + i) % PAGE]) return undefined;
      v = (v << 8n) | BigInt(p.data[(a + i) % PAGE]!);
    }
    return v;
  }

  write(addr: bigint, bytes: number, value: bigint): void {
    const a = Number(addr);
    let v = value;
    for (let i = 0; i < bytes; i++) {
      this.set(a + i, Number(v & 0xffn));
      v >>= 8n;
    }
  }

  /** A 16-bit parcel of code, or undefined. */
  parcel(addr: bigint): number | undefined {
    const a = Number(addr);
    const p = this.page(a, false);
    const q = this.page(a + 1, false);
    if (p === undefined || q === undefined || !p.known[a % PAGE] || !q.known[(a + 1) % PAGE]) return undefined;
    return p.data[a % PAGE]! | (q.data[(a + 1) % PAGE]! << 8);
  }
}
