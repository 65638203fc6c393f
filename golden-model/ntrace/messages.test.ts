/**
 * Message layouts byte for byte. Expected bytes are worked out by hand: byte = MDO << 2 | MSEO,
 * fields least significant bit first (../shared/design/ntrace.md, "Byte format").
 */
import { describe, expect, it } from 'vitest';
import { droppedAddressBits, encodeMessage, type MessageFormat, ownershipProcess } from './messages.ts';

const hex = (b: Uint8Array): string => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join(' ');
const F: MessageFormat = { srcWidth: 0, src: 0, timestamp: false, addressMsbDrop: false, xlen: 64 };

describe('N-Trace single messages (ntrace.md worked bytes)', () => {
  it('ProgTraceSync(SYNC 3, I-CNT 0, F-ADDR 0) = 24 0d 03', () => {
    expect(hex(encodeMessage(F, 'ProgTraceSync', { SYNC: 3, 'I-CNT': 0, 'F-ADDR': 0n }))).toBe('24 0d 03');
  });
  it('Error(0, 0) = 20 03', () => {
    expect(hex(encodeMessage(F, 'Error', { ETYPE: 0, ECODE: 0 }))).toBe('20 03');
  });
  it('ResourceFull(RCODE 0, RDATA 9) = 6c 40 0b', () => {
    expect(hex(encodeMessage(F, 'ResourceFull', { RCODE: 0, RDATA: 9 }))).toBe('6c 40 0b');
  });
  it('RepeatBranch(5) = 78 17', () => {
    expect(hex(encodeMessage(F, 'RepeatBranch', { 'B-CNT': 5 }))).toBe('78 17');
  });
});

describe('N-Trace message options', () => {
  it('SRC follows TCODE as a fixed field', () => {
    // TCODE 3 (000011) fills byte 0: 0x0c. SRC 4 bits = 0xA (1010) in MDO bits 0-3, I-CNT 3 (11)
    // in bits 4-5: MDO 111010 = 0x3a, last byte of the message: 0x3a << 2 | 3 = 0xeb.
    expect(hex(encodeMessage({ ...F, srcWidth: 4, src: 10 }, 'DirectBranch', { 'I-CNT': 3 }))).toBe('0c eb');
  });
  it('TSTAMP is the last variable field, on a new byte', () => {
    // DirectBranch I-CNT 3: 0c 0d (MSEO 01, not the end); TSTAMP 100 = 0b1100100: MDO 100100
    // (0x24 -> 0x90, MSEO 00) then MDO 000001 (-> 0x07 with MSEO 11).
    expect(hex(encodeMessage({ ...F, timestamp: true }, 'DirectBranch', { 'I-CNT': 3, TSTAMP: 100n }))).toBe('0c 0d 90 07');
  });
  it('ResourceFull RCODE 2 carries HREPEAT', () => {
    // 6c; RCODE 2 (0010) + RDATA 5 (101) low 2 bits 01 -> MDO 010010 = 0x12 -> 0x48; RDATA rest 1
    // -> MDO 000001 -> 0x05; HREPEAT 10 = 001010 -> 0x2b (end).
    expect(hex(encodeMessage(F, 'ResourceFull', { RCODE: 2, RDATA: 5, HREPEAT: 10 }))).toBe('6c 48 05 2b');
  });
  it('ProgTraceCorrelation with CDF 1 carries HIST', () => {
    // ntrace.md HTM worked bytes end: 84 40 2d 13 = EVCODE 0, CDF 1, I-CNT 11, HIST 4.
    expect(hex(encodeMessage(F, 'ProgTraceCorrelation', { EVCODE: 0, CDF: 1, 'I-CNT': 11, HIST: 4 }))).toBe('84 40 2d 13');
  });
  it('IndirectBranchHistSync layout', () => {
    // TCODE 29 = 011101 -> 0x74; SYNC 2 (0010) + B-TYPE 3 (11) -> MDO 110010 = 0x32 -> 0xc8;
    // I-CNT 0 on a new byte -> 0x01; F-ADDR 0x80 -> MDO 000000 (0x00), 000010 (0x09);
    // HIST 1 -> 0x07 (end).
    expect(hex(encodeMessage(F, 'IndirectBranchHistSync', { SYNC: 2, 'B-TYPE': 3, 'I-CNT': 0, 'F-ADDR': 0x80n, HIST: 1 }))).toBe('74 c8 01 00 09 07');
  });
});

describe('Ownership (TCODE 2): PROCESS = {CONTEXT, V, PRV[1:0], FORMAT[1:0]}, one variable field', () => {
  it('the spec examples: PROCESS 0x3B2 = scontext 0x1D, V 1, PRV 00 (VU); PROCESS 0xC = M-mode, FORMAT 0', () => {
    // 0x3B2 = 0b11101_1_00_10.
    expect(ownershipProcess(2, 0, 1, 0x1dn)).toBe(0x3b2n);
    expect(ownershipProcess(0, 3, 0, 0n)).toBe(0xcn);
  });
  it('PROCESS 0xC = 08 33', () => {
    // TCODE 2 = 000010 -> 0x08; PROCESS 0xC = 001100 -> 0x0c << 2 | 11 = 0x33 (last byte).
    expect(hex(encodeMessage(F, 'Ownership', { PROCESS: 0xcn }))).toBe('08 33');
  });
  it('PROCESS 0x3B2 = 08 c8 3b, also when given by its sub-fields', () => {
    // 0x3B2 = 11_1011_0010: low MDO 110010 = 0x32 -> 0xc8 (MSEO 00); then 001110 -> 0x3b (end).
    expect(hex(encodeMessage(F, 'Ownership', { PROCESS: 0x3b2n }))).toBe('08 c8 3b');
    expect(hex(encodeMessage(F, 'Ownership', { FORMAT: 2, PRV: 0, V: 1, CONTEXT: 0x1dn }))).toBe('08 c8 3b');
  });
  it('PROCESS starts right after SRC, in the same byte', () => {
    // SRC 4 bits = 5 (0101) in MDO bits 0-3; PROCESS 0x4 (S-mode, FORMAT 0) = 100: bits 4-5 get
    // 00, its top bit goes to the next MDO: 000101 -> 0x14, 000001 -> 0x07 (end).
    expect(hex(encodeMessage({ ...F, srcWidth: 4, src: 5 }, 'Ownership', { PROCESS: 0x4n }))).toBe('08 14 07');
    // SRC 5 bits leave one bit of the byte: PROCESS 0 (U-mode, FORMAT 0) takes just that bit, so
    // the message is 2 bytes (fixed FORMAT/PRV/V fields would have needed a third).
    expect(hex(encodeMessage({ ...F, srcWidth: 5, src: 0 }, 'Ownership', { PROCESS: 0n }))).toBe('08 03');
  });
  it('TSTAMP follows PROCESS on a new byte', () => {
    // PROCESS 0xC ends its byte with MSEO 01: 0x31; TSTAMP 100 = 1100100: 100100 -> 0x90, 000001 -> 0x07.
    expect(hex(encodeMessage({ ...F, timestamp: true }, 'Ownership', { PROCESS: 0xcn, TSTAMP: 100n }))).toBe('08 31 90 07');
  });
});

describe('address MSB dropping (Virtual Addresses Optimization examples)', () => {
  const D: MessageFormat = { ...F, addressMsbDrop: true };
  it('the spec examples: lengths of 6-bit MDO runs', () => {
    // F-ADDR 0x7_FFFF_FFFF (35 ones): 6 MDOs, the last 011111 (no extension).
    expect(droppedAddressBits(0x7ffffffffn, 63)).toBe(36);
    // Address 0xFFFF_FFFE_3FFF_FFFE: F-ADDR = 0x7FFF_FFFF_1FFF_FFFF, sent as 0xF_1FFF_FFFF in 6 MDOs.
    expect(droppedAddressBits(0x7fffffff1fffffffn, 63)).toBe(36);
    // F-ADDR 0xF_FFFF_FFFF (36 ones): a 7th all-zero MDO prevents the extension.
    expect(droppedAddressBits(0xfffffffffn, 63)).toBe(42);
    // F-ADDR 0x5FFF_FFFF_FFFF_FFFF (63 bits, top bit 0 below the padding): 11 MDOs.
    expect(droppedAddressBits(0x5fffffffffffffffn, 63)).toBe(66);
  });
  it('bytes of the extended example', () => {
    // ProgTraceSync SYNC 0, I-CNT 0: 24 01; then 111111_00 x4, 011111_00, 111100_01 and MSEO 11 at the end.
    expect(hex(encodeMessage(D, 'ProgTraceSync', { SYNC: 0, 'I-CNT': 0, 'F-ADDR': 0x7fffffff1fffffffn }))).toBe('24 01 fc fc fc fc 7c f3');
  });
  it('a small value whose last MDO has its top bit set gets one more MDO', () => {
    // F-ADDR 0x20 (address 0x40): 100000 alone would be extended; sent as 100000, 000000.
    expect(hex(encodeMessage(D, 'ProgTraceSync', { SYNC: 0, 'I-CNT': 0, 'F-ADDR': 0x20n }))).toBe('24 01 80 03');
    expect(hex(encodeMessage(F, 'ProgTraceSync', { SYNC: 0, 'I-CNT': 0, 'F-ADDR': 0x20n }))).toBe('24 01 83');
  });
});
