/**
 * The supervisor's physical memory as far as the firmware model touches it: regions a script
 * declares (`M<seq> map <base> <size>`), little-endian, zero-filled. An address outside every
 * region is what OpenSBI 1.9's domain check (`sbi_domain_check_addr_range`) rejects.
 */
export class SbiMemory {
  private readonly regions: { base: bigint; bytes: Uint8Array }[] = [];

  map(base: bigint, size: number): void {
    this.regions.push({ base, bytes: new Uint8Array(size) });
  }

  private find(addr: bigint, size: bigint): { bytes: Uint8Array; off: number } | undefined {
    for (const r of this.regions) {
      if (addr >= r.base && addr + size <= r.base + BigInt(r.bytes.length)) return { bytes: r.bytes, off: Number(addr - r.base) };
    }
    return undefined;
  }

  /** Whether [addr, addr + size) lies inside one region. */
  contains(addr: bigint, size: bigint): boolean {
    return size > 0n && this.find(addr, size) !== undefined;
  }

  read(addr: bigint, bytes: number): bigint {
    const at = this.find(addr, BigInt(bytes));
    if (at === undefined) throw new RangeError(`address 0x${addr.toString(16)} is not mapped`);
    let v = 0n;
    for (let i = bytes - 1; i >= 0; i--) v = (v << 8n) | BigInt(at.bytes[at.off + i]!);
    return v;
  }

  write(addr: bigint, bytes: number, value: bigint): void {
    const at = this.find(addr, BigInt(bytes));
    if (at === undefined) throw new RangeError(`address 0x${addr.toString(16)} is not mapped`);
    for (let i = 0; i < bytes; i++) at.bytes[at.off + i] = Number((value >> BigInt(8 * i)) & 0xffn);
  }
}
