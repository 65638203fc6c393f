/**
 * openStreamSource: a spike-csv, etrace-csv or text stream is read a piece of the file at a time and
 * gives the records of the whole import, pieces cut at line ends (a multi-byte character cut by a read too); the other
 * formats come whole, as one piece; unreadable files are the errors of a whole read.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeBinaryStream } from '../golden-model/hart/formats/binary.ts';
import { importEtraceCsv } from '../golden-model/hart/formats/etrace-csv.ts';
import { importSpikeCsv } from '../golden-model/hart/formats/spike-csv.ts';
import { etraceCsvChunks, spikeCsvChunks } from '../golden-model/hart/formats/synthetic.ts';
import { generateStimulus } from '../golden-model/hart/stimulus/generate.ts';
import { defaultKnobs } from '../golden-model/hart/stimulus/knobs.ts';
import { openStreamSource, PIECE_BYTES, wholeStream } from './stream-io.ts';
import { encodeTextStream } from '../golden-model/hart/formats/text.ts';
import { thrown } from '../golden-model/hart/formats/test-streams.ts';

const dir = mkdtempSync(join(tmpdir(), 'rvtrace-stream-io-'));

describe('openStreamSource', () => {
  const stimulus = generateStimulus(defaultKnobs(), 5, 20_000);
  const csv = spikeCsvChunks(stimulus).join('');

  it('reads a spike-csv of several pieces into the records and image of the whole import', () => {
    expect(csv.length).toBeGreaterThan(4 * PIECE_BYTES);
    const file = join(dir, 'a.csv');
    writeFileSync(file, csv);
    const source = openStreamSource(file, undefined, 64);
    const pieces = [...source.pieces()];
    expect(pieces.length).toBeGreaterThan(4);
    const whole = importSpikeCsv(csv, file);
    expect(pieces.flat()).toEqual(whole.records);
    expect(source.image().segments).toEqual(whole.image.segments);
  });

  it('reads an etrace-csv of several pieces into the stream of the whole import', () => {
    const text = etraceCsvChunks(stimulus).join('');
    expect(text.length).toBeGreaterThan(4 * PIECE_BYTES);
    const file = join(dir, 'a-etrace.csv');
    writeFileSync(file, text);
    const source = openStreamSource(file, undefined, 64);
    const pieces = [...source.pieces()];
    expect(pieces.length).toBeGreaterThan(4);
    const whole = importEtraceCsv(text, file);
    expect(pieces.flat()).toEqual(whole.records);
    expect(source.retiresPerCycle).toBe(whole.retiresPerCycle);
    // A line that retires two 16-bit instructions in one group: known only at the end of the file.
    expect(text.split('\n', 1)[0]).toBe('itype_0,cause,tval,priv,iaddr_0,context,ctype,iretire_0,ilastsize_0');
    writeFileSync(file, `${text}0,0,0,3,1000,0,0,2,0\n`);
    const two = openStreamSource(file, undefined, 64);
    expect(two.retiresPerCycle).toBe(1);
    expect(wholeStream(two).retiresPerCycle).toBe(2);
  });

  it('reads a file with a byte order mark (not ASCII: the decoder strips it) as the one without', () => {
    const file = join(dir, 'bom.csv');
    writeFileSync(file, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(csv)]));
    expect([...openStreamSource(file, undefined, 64).pieces()].flat()).toEqual(importSpikeCsv(csv, file).records);
  });

  it('completes a line and a character cut by a read', () => {
    // The piece boundary falls inside the last row, inside the two bytes of its "é" (c3 a9): the
    // value must reach the error message whole, and the line be counted once.
    const header = 'VALID,ADDRESS,INSN,PRIVILEGE,EXCEPTION,ECAUSE,TVAL,INTERRUPT\n';
    const row = '1,1000,00000013,3,0,0,0,0\n'; // addi x0, x0, 0 at 0x1000, again and again
    let text = header;
    while (Buffer.byteLength(text) + 3 * row.length < PIECE_BYTES) text += row;
    // A row padded with leading zeros ends 5 bytes before the boundary: "1,10" then the "é".
    const zeros = PIECE_BYTES - 5 - Buffer.byteLength(text) - row.length;
    text += '1,' + '0'.repeat(zeros) + row.slice(2);
    const bad = '1,10\u00e90,00000013,3,0,0,0,0\n';
    const file = join(dir, 'b.csv');
    writeFileSync(file, text + bad);
    expect(Buffer.from(text + bad).indexOf(Buffer.from('\u00e9'))).toBe(PIECE_BYTES - 1);
    const badLine = text.split('\n').length; // text ends with a newline: its lines + 1
    const e = thrown(() => [...openStreamSource(file, undefined, 64).pieces()]);
    expect(e.message).toBe('bad hex value "10\u00e90" in column ADDRESS, expected hexadecimal digits without 0x');
    expect(e.location).toEqual({ file, line: badLine });
  });

  it('names the line of the file in an error of a later piece', () => {
    const lines = csv.split('\n');
    const bad = lines.length - 10; // 0-based: line bad + 1 of the file
    lines[bad] = lines[bad]!.replace(/^1,/, '3,');
    const file = join(dir, 'c.csv');
    writeFileSync(file, lines.join('\n'));
    const e = thrown(() => [...openStreamSource(file, undefined, 64).pieces()]);
    expect(e.message).toBe('bad VALID value "3", expected 0 or 1');
    expect(e.location).toEqual({ file, line: bad + 1 });
  });

  it('reads a text stream of several pieces into the stream of the whole read, its header known before the first piece', () => {
    const text = encodeTextStream(stimulus);
    expect(text.length).toBeGreaterThan(4 * PIECE_BYTES);
    const file = join(dir, 'a.txt');
    writeFileSync(file, text);
    const source = openStreamSource(file, undefined, 32);
    // The stream's own xlen and retires (the --xlen of CSV imports does not apply).
    expect([source.xlen, source.retiresPerCycle, source.data]).toEqual([stimulus.xlen, stimulus.retiresPerCycle, undefined]);
    const pieces = [...source.pieces()];
    expect(pieces.length).toBeGreaterThan(4);
    expect(pieces.flat()).toEqual(stimulus.records);
    expect(source.image().segments).toEqual(stimulus.image.segments);
    // The header's record count is checked at the end, naming the file's last line.
    writeFileSync(file, text.replace(/^records \d+$/m, `records ${stimulus.records.length + 1}`));
    const e = thrown(() => [...openStreamSource(file, undefined, 64).pieces()]);
    expect(e.message).toMatch(/^the "records" line \(line \d+\) announces \d+ records, the file has \d+$/);
    expect(e.location).toEqual({ file, line: text.split('\n').length - 1 });
  });

  it('gives a text stream with data accesses whole (its accesses go to the encoder before its records)', () => {
    const file = join(dir, 'data.txt');
    const text = ['# rvtrace retirement stream v1', 'xlen 64', 'data-trace', 'columns iaddr iretire ilastsize itype', '80000000 2 1 none', '  data store 1000 2 5', ''].join('\n');
    writeFileSync(file, text);
    const source = openStreamSource(file, undefined, 64);
    expect(source.data?.accesses).toHaveLength(1);
    expect([...source.pieces()]).toHaveLength(1);
  });

  it('gives our binary format whole, as one piece', () => {
    const file = join(dir, 'd.bin');
    writeFileSync(file, encodeBinaryStream(stimulus));
    const source = openStreamSource(file, undefined, 64);
    expect([...source.pieces()]).toHaveLength(1);
    expect(wholeStream(source).records).toEqual(stimulus.records);
  });

  it('refuses what is not UTF-8, a missing file and a directory with the errors of a whole read', () => {
    const file = join(dir, 'e.csv');
    writeFileSync(file, Buffer.concat([Buffer.from(csv.slice(0, PIECE_BYTES * 2)), Buffer.from([0xff, 0xfe, 0x0a])]));
    expect(thrown(() => [...openStreamSource(file, 'spike-csv', 64).pieces()]).message).toBe('the file is not UTF-8 text, expected a text or CSV stream');
    expect(thrown(() => openStreamSource(join(dir, 'none.csv'), undefined, 64)).message).toBe('cannot read: no such file');
    mkdirSync(join(dir, 'folder'));
    expect(thrown(() => openStreamSource(join(dir, 'folder'), undefined, 64)).message).toBe('cannot read: is a directory');
  });
});
