/**
 * `rvtrace vectors`, the generic part: a block's VectorCase (core/vectors.ts: the frames of its
 * co-simulation harness and the responses its golden model expects) as files any simulator reads:
 * `$readmemh` files of the frames, the ready pattern and the expected responses, a plain
 * SystemVerilog testbench `tb_<name>.sv` (templates/vectors/tb.sv.hbs) that drives the generated top
 * as the Verilator harness does (tb/README.md, "Per-cycle behaviour"), the component's RTL and lint
 * waivers, and a filelist. Every file starts with the banner of the generated RTL; the same case
 * gives the same bytes.
 */
import type { CaseSpec, OutputFile, ResolvedComponent } from '../../core/block.ts';
import type { ExpectedCapture, VectorCase, VectorHarness } from '../../core/vectors.ts';
import { cycleChance } from '../../golden-model/common/rng.ts';
import { RvError } from '../../golden-model/common/errors.ts';
import { outputNames } from '../../generator/output.ts';
import { bannerLines, connections, padColumn, renderTemplate, svLogic, wrapComment } from '../../generator/render.ts';
import { renderWaivers } from '../../generator/waivers.ts';
import { frameLayout, type HarnessSpec } from '../harness-spec.ts';

/** Reset cycles before the first frame (the harness's default). */
export const VECTOR_RESET_CYCLES = 2;

/** The command that writes the same vectors again. */
export function vectorsCommand(r: ResolvedComponent, spec: CaseSpec): string {
  const sets = r.provenance.sets.map((s) => ` --set ${s}`).join('');
  const bp = r.block.backpressure ? ` --backpressure ${spec.backpressure}` : '';
  return `npx rvtrace vectors --component ${r.provenance.component}${sets} --seed ${spec.seed} --count ${spec.count}${bp} --out <dir>`;
}

/** `etrace-rv64-full` -> `etrace_rv64_full`: the component as a SystemVerilog identifier part. */
export function vectorName(component: string): string {
  const n = component.replace(/\.xml$/i, '').replace(/[^A-Za-z0-9_]/g, '_').replace(/_+/g, '_');
  return /^[A-Za-z]/.test(n) ? n : `c_${n}`;
}

/** The names of the files `vectorFiles` writes for a component name. */
export function vectorFileNames(name: string): { tb: string; module: string; filelist: string; frames: string; ready: string } {
  return { tb: `tb_${name}.sv`, module: `tb_${name}`, filelist: `tb_${name}.f`, frames: `${name}_frames.hex`, ready: `${name}_ready.hex` };
}

const hexDigits = (bits: number): number => Math.ceil(bits / 4);

/** The concatenation {v0, v1, ...} of values of the given widths (v0 in the most significant bits). */
function concat(values: readonly bigint[], widths: readonly number[]): bigint {
  let v = 0n;
  values.forEach((x, i) => {
    v = (v << BigInt(widths[i]!)) | (x & ((1n << BigInt(widths[i]!)) - 1n));
  });
  return v;
}

/** Every file of the vectors of `vc`, in a fixed order. */
export function vectorFiles(r: ResolvedComponent, spec: CaseSpec, vc: VectorCase): OutputFile[] {
  const h = vc.harness;
  const name = vectorName(r.provenance.component);
  const names = vectorFileNames(name);
  const command = vectorsCommand(r, spec);
  const bannerText = bannerLines(r.provenance, command).map((l) => `// ${l}\n`).join('');
  const layout = frameLayout(h as HarnessSpec);
  const width = new Map(h.ports.map((p) => [p.name, p.width]));
  if (vc.expected.length !== h.captures.length) throw new RvError('bad-value', `${r.block.name} vectors: ${vc.expected.length} expected captures for ${h.captures.length} captures of the harness`);

  const frameBits = Math.max(8, layout.frameBytes * 8);
  const frameDigits = hexDigits(frameBits);
  const frameLines: string[] = [bannerText, `// ${vc.frames.length} frames of ${frameBits} bits: every input of ${h.top} but clock, reset and ready, in the layout of tb_${name}.sv\n`];
  for (const f of vc.frames) {
    if (f.length !== layout.frameBytes) throw new RvError('bad-value', `${r.block.name} vectors: a frame of ${f.length} bytes, the layout has ${layout.frameBytes}`);
    let s = '';
    for (let i = f.length - 1; i >= 0; i--) s += f[i]!.toString(16).padStart(2, '0');
    frameLines.push(`${s.padStart(frameDigits, '0')}\n`);
  }

  // Enough cycles for the frames, the model's holds and a margin after which a DUT that keeps
  // holding fails (the ready pattern is written for all of them).
  const maxCycles = vc.frames.length + vc.holds + 1000 + vc.frames.length;
  const readyLines: string[] = [bannerText, `// the ready inputs (${(h.ready ?? []).join(', ') || 'none'}), one bit per cycle from cycle 0: 0 before cycle ${vc.readyOffset}, then 1 unless cycleChance(${vc.seed}, cycle - ${vc.readyOffset}, ${vc.readyChance})\n`];
  for (let t = 0; t < maxCycles; t++) readyLines.push(t >= vc.readyOffset && !cycleChance(vc.seed, t - vc.readyOffset, vc.readyChance) ? '1\n' : '0\n');

  const files: OutputFile[] = [];
  const captureFiles: OutputFile[] = [];
  const captures = h.captures.map((c, i) => {
    const e: ExpectedCapture = vc.expected[i]!;
    const widths = c.data.map((d) => width.get(d)!);
    const bits = widths.reduce((a, b) => a + b, 0);
    const prefix = `cap${i}`;
    const masked = e.responses.some((x) => x.mask !== undefined);
    const base = `${name}_${c.name}`;
    const digits = hexDigits(bits);
    const what = `the ${c.name} capture ({${c.data.join(', ')}} when ${c.when.map((w) => `${w.port} = ${w.value}`).join(', ') || 'always'})`;
    if (e.responses.length > 0) {
      captureFiles.push({
        name: `${base}_values.hex`,
        content: [bannerText, `// ${e.responses.length} values of ${what}, in order\n`, ...e.responses.map((x) => `${concat(x.values, widths).toString(16).padStart(digits, '0')}\n`)].join(''),
      });
      if (masked) {
        const all = widths.map((w) => (1n << BigInt(w)) - 1n);
        captureFiles.push({
          name: `${base}_masks.hex`,
          content: [bannerText, `// the bits compared of each value of ${what}\n`, ...e.responses.map((x) => `${concat(x.mask ?? all, widths).toString(16).padStart(digits, '0')}\n`)].join(''),
        });
      }
      if (e.cycles) {
        captureFiles.push({
          name: `${base}_cycles.hex`,
          content: [
            bannerText,
            `// the cycle of each value of ${what} (cycle 0 is the first frame's)\n`,
            ...e.responses.map((x, k) => {
              if (x.cycle === undefined) throw new RvError('bad-value', `${r.block.name} vectors: response ${k} of ${c.name} has no cycle`);
              return `${x.cycle.toString(16).padStart(8, '0')}\n`;
            }),
          ].join(''),
        });
      }
    }
    const when = c.when.map((w) => `${w.port} === 1'b${w.value}`).join(' && ') || "1'b1";
    return {
      name: c.name,
      prefix,
      count: e.responses.length,
      countParam: `Cap${i}Count`,
      memHi: Math.max(1, e.responses.length) - 1,
      bitsHi: bits - 1,
      data: c.data.length === 1 ? c.data[0]! : `{${c.data.join(', ')}}`,
      dataText: c.data.length === 1 ? c.data[0]! : `{${c.data.join(', ')}}`,
      when: c.when.length > 1 ? `(${when})` : when,
      whenText: c.when.map((w) => `${w.port} = ${w.value}`).join(', ') || 'every cycle',
      masked,
      maskExpr: masked ? `${prefix}_mask_mem[${prefix}_idx]` : "'1",
      cycles: e.cycles,
      valuesFile: `${base}_values.hex`,
      maskFile: `${base}_masks.hex`,
      cyclesFile: `${base}_cycles.hex`,
    };
  });

  const special = new Set([h.clock, h.reset]);
  const ready = new Set(h.ready ?? []);
  const slots = new Map(layout.slots.map((s) => [s.name, s]));
  const ins = h.ports.filter((p) => p.direction === 'in' && !special.has(p.name));
  const outs = h.ports.filter((p) => p.direction === 'out');
  const inDecl = padColumn(ins.map((p) => svLogic(p.width)));
  const outDecl = padColumn(outs.map((p) => svLogic(p.width)));
  const context = {
    banner: bannerText,
    module: names.module,
    top: h.top,
    component: r.provenance.component,
    description: [
      ...wrapComment(
        `${names.module}: self-checking testbench of ${h.top} (${r.provenance.component}, seed ${spec.seed}, ${spec.count} instructions` +
          `${r.block.backpressure ? `, back-pressure ${spec.backpressure}` : ''}: ${vc.summary}).`,
        100,
      ),
      ...wrapComment(
        `Plain SystemVerilog (no DPI, no classes, no vendor features). It applies the stimulus of ${names.frames}, one frame of every input ` +
          `per clock cycle, as the rvtrace co-simulation harness does: reset for ${VECTOR_RESET_CYCLES} cycles with every input 0, then in each ` +
          `cycle the frame's inputs and the ready inputs of ${names.ready} (one bit per cycle), the outputs sampled before the rising edge; ` +
          (h.hold ? `a frame the DUT holds (${h.hold} = 1) is applied again in the next cycle. ` : `${h.top} has no hold output: each frame is applied once. `) +
          'Every response the golden model expects is compared: values in order, and their cycle where the model predicts it. The run ends ' +
          'with one line, PASS or FAIL and the first mismatch (cycle, expected, actual). Run it from this directory (the $readmemh files are ' +
          'named relative to it).',
        100,
      ),
    ],
    framesFile: names.frames,
    readyFile: names.ready,
    resetCycles: VECTOR_RESET_CYCLES,
    holdExpr: h.hold ?? "1'b0",
    frameBits,
    numFrames: vc.frames.length,
    maxCycles,
    holds: vc.holds,
    clock: h.clock,
    reset: h.reset,
    inputs: ins.map((p, i) => {
      const s = slots.get(p.name);
      return { decl: inDecl[i], name: p.name, slice: ready.has(p.name) || s === undefined ? '' : `frame[${s.offset * 8 + p.width - 1}:${s.offset * 8}]`.replace(/\[(\d+):\1\]/, '[$1]') };
    }),
    outputs: outs.map((p, i) => ({ decl: outDecl[i], name: p.name })),
    readyPorts: [...ready],
    captures,
    connections: connections(h.ports.map((p) => [p.name, p.name])),
  };
  const tb = renderTemplate('vectors/tb.sv.hbs', context);
  const rtl = [...r.block.rtl(r), ...(vc.extraRtl ?? []).map((f) => ({ name: f.name, content: `${bannerText}//\n${f.content}` }))];
  const waivers = renderWaivers(outputNames(r).waivers, r.block.lintWaivers(r), r.provenance);
  const filelist = [
    bannerText,
    `//\n// tb_${name}: the lint waivers (read by Verilator only), the RTL of ${r.block.rtlTitle} in compilation\n`,
    `// order and the testbench, paths relative to this directory: run the simulators from here\n`,
    `// (\`iverilog -g2012 -s ${names.module} -c ${names.filelist}\`, \`verilator --binary --top-module ${names.module} -f ${names.filelist}\`).\n`,
    `${waivers.name}\n`,
    ...rtl.map((f) => `${f.name}\n`),
    `${names.tb}\n`,
  ].join('');
  files.push(...rtl, waivers, { name: names.tb, content: tb }, { name: names.filelist, content: filelist }, { name: names.frames, content: frameLines.join('') }, { name: names.ready, content: readyLines.join('') }, ...captureFiles);
  return files;
}

export type { VectorCase, VectorHarness };
