/**
 * The block contract: everything the generic layers (the CLI's generate/cosim/regress/fuzz/bench
 * commands, the regression runner, the fuzzer, the IP-XACT writer) need to know of a block. A block
 * (E-Trace encoder, CTR unit, ...) implements it in `tb/<block>/block.ts` from the pieces in its own
 * folders (`golden-model/<block>/`, `generator/<block>/`, `templates/<block>/`, `tb/<block>/`) and is
 * listed by one line in `blocks/registry.ts`. Generic code names no block: it asks the contract.
 *
 * The data flow is one way (architecture.md): a component is resolved once per command
 * (`resolveComponent` in blocks/) into a `ResolvedComponent` that carries the typed configuration and
 * the provenance of the generated files; nothing below reads XML or the component file again.
 */
import type { RvError } from '../golden-model/common/errors.ts';
import type { Rng } from '../golden-model/common/rng.ts';
import type { SettingSpec, Settings } from '../golden-model/common/settings.ts';
import type { DataTrace } from '../golden-model/hart/data-records.ts';
import type { ProgramImage } from '../golden-model/hart/image.ts';
import type { RetirementRecord } from '../golden-model/hart/records.ts';
import type { Xlen } from '../golden-model/hart/stream.ts';
import type { StimulusKnobs } from '../golden-model/hart/stimulus/knobs.ts';
import type { ExportComponent } from '../ipxact/export.ts';
import type { Vlnv } from '../ipxact/reader/component.ts';
import type { Command } from 'commander';
import type { BinHits, CoverageSpace } from './coverage.ts';

/** One generated file: a plain name inside the output directory and its text. */
export interface OutputFile {
  readonly name: string;
  readonly content: string;
}

/** Where a generated file comes from: what its banner says. */
export interface Provenance {
  /** The component as `--component` names it: a shipped name, or a file's base name (no path). */
  readonly component: string;
  /** sha256 (hex) of the bytes of the component description. */
  readonly inputHash: string;
  /** `--set` arguments, in the order given. */
  readonly sets: readonly string[];
}

/** A component resolved once: its block, identity, provenance and validated, typed configuration. */
export interface ResolvedComponent<C = unknown> {
  readonly block: Block<C>;
  /** The `--component` argument as given (a shipped name or a path). */
  readonly component: string;
  /** The IP-XACT file it was read from. */
  readonly file: string;
  readonly vlnv: Vlnv;
  /** The component's <description>. */
  readonly description: string;
  readonly provenance: Provenance;
  /** Every setting of the block: defaults, the component's values, then `--set`. */
  readonly settings: Settings;
  readonly config: C;
}

/** One co-simulation case: the same description for every block (fixtures and regressions store it). */
export interface CaseSpec {
  /** Shipped component name or IP-XACT file. */
  readonly component: string;
  readonly sets: readonly string[];
  readonly seed: number;
  /** Retired instructions of the stimulus. */
  readonly count: number;
  /** Probability that the output transport is not ready in a cycle (blocks with an output stream). */
  readonly backpressure: number;
  /** Stimulus knobs beyond the block's defaults (the fuzzer's). */
  readonly knobs?: Partial<StimulusKnobs>;
}

/** One Verilator lint waiver of a block's generated RTL, with the reason it is not a defect. */
export interface Waiver {
  /** Verilator's warning code, e.g. UNUSEDPARAM. */
  readonly rule: string;
  /** The file's name (matched as `*name`, so in any directory). */
  readonly file: string;
  /** Glob on the message text. */
  readonly match: string;
  /** Why the warning is expected, as comment lines. */
  readonly reason: readonly string[];
}

/**
 * One RTL code coverage waiver of a block: points that cannot be covered by construction (a constant
 * tie-off, a reset-only flop, a bit a configuration never drives), with the reason. Waived points are
 * reported as excluded, with the reason (tb/code-coverage.ts).
 */
export interface CodeCoverageWaiver {
  /** Glob (`*`, `?`) on the point's bin `<module>:<line>:<kind>:<detail>`, e.g. `pmu_top:*:toggle:cfg_i*`. */
  readonly bin: string;
  /** Why the point cannot be covered, as comment lines. */
  readonly reason: readonly string[];
}

/** A figure a block counts in each case (trace bytes, CSR responses, ...), summed over a regression. */
export interface MetricSpec {
  readonly name: string;
  readonly help: string;
}

/** The outcome of one case, the same shape for every block. */
export interface CaseResult {
  readonly spec: CaseSpec;
  /** Retirement records of the stimulus. */
  readonly records: number;
  readonly cycles: number;
  readonly seconds: number;
  readonly identical: boolean;
  /** The block's figures, by the names of its `metrics`. */
  readonly metrics: Readonly<Record<string, number>>;
  /** What `rvtrace cosim` prints after `<component> seed <s>: ` (without the verdict). */
  readonly summary: string;
  readonly mismatch?: string;
  /** The RTL cycle of the first difference (for a waveform window). */
  readonly mismatchCycle?: number;
}

export type Log = (line: string) => void;

/**
 * What a block provides. `C` is its typed configuration (e.g. EtraceConfig); generic code holds
 * blocks as `Block` (methods are declared as methods so that a `Block<EtraceConfig>` is a `Block`).
 */
export interface Block<C = unknown> {
  /** The key in every layer: folder names, <rvtrace:block>, the registry. */
  readonly name: string;
  /** How users call it: "E-Trace encoder", "CTR unit". */
  readonly title: string;

  // --- settings and typed configuration
  /** Settings a component of this block (or `--set`) may give. */
  readonly settings: readonly SettingSpec[];
  /** The block's semantic check of complete settings; errors carry `parameters/<name>` paths. */
  validate(settings: Settings): RvError[];
  /** The typed configuration of valid settings. */
  config(settings: Settings): C;

  // --- generation
  /** The top module of the generated RTL. */
  readonly topModule: string;
  /** The RTL files of a configuration, in compilation order (leaves first). */
  rtl(r: ResolvedComponent<C>): OutputFile[];
  /** The lint waivers of the RTL (written into `<block>.vlt`, the one place they live); may be empty. */
  lintWaivers(r: ResolvedComponent<C>): readonly Waiver[];
  /**
   * The RTL code coverage waivers of a configuration (the one place they live; `rvtrace cosim
   * --coverage-rtl`); absent: none.
   */
  codeCoverageWaivers?(r: ResolvedComponent<C>): readonly CodeCoverageWaiver[];
  /** What the packaging around the RTL says of it ("the generated E-Trace encoder"). */
  readonly rtlTitle: string;
  /** The component description of the generated RTL for the IP-XACT writer (ports, registers, files). */
  exportComponent(r: ResolvedComponent<C>): ExportComponent;

  // --- co-simulation (harness adapter)
  /** The case's back-pressure changes the run (an output stream); without it a matrix runs one value. */
  readonly backpressure: boolean;
  /** The figures a regression row shows. */
  readonly metrics: readonly MetricSpec[];
  /** Builds (or finds) the Verilator model of the configuration. */
  prepare(r: ResolvedComponent<C>, log?: Log): void;
  runCase(r: ResolvedComponent<C>, spec: CaseSpec, log?: Log): Promise<CaseResult>;
  /** The same case again on the waveform build, dumping cycles from..to into `file`. */
  waveform(r: ResolvedComponent<C>, spec: CaseSpec, file: string, from: number, to: number, log?: Log): Promise<void>;

  // --- stimulus and fuzz policy
  /**
   * Random `--set` values for a fuzzing configuration of `r` (each configuration is a build; with
   * `runTime`, hardware settings only: the run-time options are drawn per case).
   */
  randomSets(rng: Rng, r: ResolvedComponent<C>): string[];
  /** Random stimulus knobs for one fuzzing case of `r` (its hart: XLEN, privilege modes). */
  randomKnobs(rng: Rng, r: ResolvedComponent<C>): Partial<StimulusKnobs>;
  /**
   * Run-time options the co-simulation programs through the block's register interface at the
   * start of every case, so that a Verilator build depends on the hardware parameters only
   * (tb/case.ts hardwareConfig) and one build serves every option set. Absent: every setting is
   * part of the build.
   */
  readonly runTime?: RunTimeOptions<C>;

  /**
   * `--set` overrides that keep the synthesis check of a component within a test's time (CTR: at
   * most 64 entries; the entries are one generate loop, and Yosys needs minutes for 256). Absent:
   * the component as it is.
   */
  synthesisCheckSets?(r: ResolvedComponent<C>): string[];

  /** Commands only this block has (e.g. `ctr-dump`). */
  readonly commands?: readonly CommandDefinition<never>[];

  /** The trace byte stream of an encoder block, for `rvtrace encode`, `decode` and `dump`; absent: the block makes no trace stream. */
  readonly codec?: TraceCodec<C>;

  /** The frames and the model's expected responses of a case, for `rvtrace vectors` (core/vectors.ts); absent: the block has none. */
  vectors?(r: ResolvedComponent<C>, spec: CaseSpec): import('./vectors.ts').VectorCase;
  /** The check of a waveform of the user's own simulation, for `rvtrace check` (core/check.ts); absent: the block has none. */
  readonly check?: import('./check.ts').BlockCheck<C>;
  /** The block's functional coverage model (core/coverage.ts); cosim, regress and fuzz collect it. */
  readonly coverage?: CoverageModel<C>;
}

/** A block's run-time options, as the co-simulation programs them (Block.runTime). */
export interface RunTimeOptions<C = unknown> {
  /** The names of the settings that are run-time options (every other setting is hardware). */
  readonly names: ReadonlySet<string>;
  /**
   * The value of every run-time option in a hardware configuration's build (what its registers
   * reset to): legal for any hardware, and such that the build does nothing before the case's
   * options are written (E-Trace: no trace session out of reset).
   */
  readonly reset: Settings;
  /** Random run-time `--set` values for one fuzzing case on the hardware of `r`. */
  randomSets(rng: Rng, r: ResolvedComponent<C>): string[];
}

// --- functional coverage ----------------------------------------------------------------------

/**
 * A block's functional coverage model: bins named after the specification, observed from the golden
 * model's decisions. `C` is the block's typed configuration.
 */
export interface CoverageModel<C = unknown> {
  /** Every bin of a configuration, and the ones it cannot reach, each with the reason. */
  space(r: ResolvedComponent<C>): CoverageSpace;
  /**
   * The hits of one case: the golden model runs the case's stimulus (the same as `runCase`'s) with
   * its observer on. Only bins of `space(r)` are hit.
   */
  collect(r: ResolvedComponent<C>, spec: CaseSpec): BinHits;
  /**
   * The same model run of the case without the observer (for `rvtrace bench`, which shows what the
   * observer and the bins add to it); absent: the bench shows the collection time alone.
   */
  baseline?(r: ResolvedComponent<C>, spec: CaseSpec): void;
}

// --- trace codec ------------------------------------------------------------------------------

/**
 * A trace encoder's byte stream as the encode, decode and dump commands see it: the block's golden
 * encoder (with its output FIFO), its independent decoder and its packet dump. `C` is the block's
 * typed configuration; a stream is read with the configuration it was written with.
 */
export interface TraceCodec<C = unknown> {
  /** What the stream is made of, plural, for messages ("packets", "messages"). */
  readonly units: string;
  /** The XLEN of the hart a configuration traces (to read CSV traces, which do not record it). */
  xlen(config: C): Xlen;
  /**
   * The stream as it leaves the output FIFO; `ready` says whether the transport takes a byte in a
   * cycle (cycles numbered as the block's co-simulation numbers them; absent: always ready).
   * `data`: the stream's data accesses, for an encoder that traces them (E-Trace data trace).
   */
  encode(records: readonly RetirementRecord[], config: C, transport: { ready?: (cycle: number) => boolean; data?: DataTrace }): EncodedTrace;
  /**
   * `encode` of a stream handed over in pieces, each dropped once encoded (no data accesses): how
   * `rvtrace encode` holds no more than a piece of a long stream. Absent: the pieces are joined and
   * given to `encode`.
   */
  encodePieces?(pieces: Iterable<readonly RetirementRecord[]>, config: C, transport: { ready?: (cycle: number) => boolean }): EncodedTrace;
  /** True when `encode` traces the stream's data accesses with this configuration; absent: never. */
  tracesData?(config: C): boolean;
  /** Options only this codec's decoder takes (E-Trace: `--trap-handler`); `decode` gets them by name. */
  readonly decodeOptions?: readonly CodecOption[];
  /**
   * The retired instruction addresses and the gaps of a stream, given the program image. A stream
   * the decoder cannot go on with is an RvError with its byte offset (the caller adds the file).
   */
  decode(bytes: Uint8Array, image: ProgramImage, config: C, options: Readonly<Record<string, string>>): DecodedTraceItem[];
  /** One line per packet or message; a stream that is not well-formed is an RvError with its byte offset. */
  dump(bytes: Uint8Array, config: C): string[];
  /** Packets or messages and bytes per packet format or message type (the same errors as `dump`). */
  stats(bytes: Uint8Array, config: C): TraceStats;
  /**
   * For an encoder whose input is not the retirement stream (tvtrace: TV records): reads `encode`'s
   * --in itself (its bytes, name and --in-format) and encodes it; `instructions` is what bits per
   * instruction divide by. Absent: --in is a retirement stream for `encode`.
   */
  encodeFile?(input: { readonly bytes: Uint8Array; readonly file: string; readonly format?: string }, config: C, transport: { ready?: (cycle: number) => boolean }): EncodedTrace & { readonly instructions: number };
  /**
   * For a stream that decodes without a program image (tvtrace: it carries the state itself): the
   * text `decode` writes and how many `units` it holds. Absent: `decode` takes --image and `decode`.
   */
  decodeFile?(bytes: Uint8Array, config: C): { readonly text: string; readonly count: number; readonly units: string };
}

/** What one encoding gives: the bytes and the figures `rvtrace encode` reports. */
export interface EncodedTrace {
  readonly bytes: Uint8Array;
  /** Packets or messages in `bytes`. */
  readonly count: number;
  /** Packets or messages lost to a full FIFO (back-pressure without stall). */
  readonly lost: number;
  /** Cycles the hart was stalled (back-pressure with stall). */
  readonly stallCycles: number;
}

/**
 * One item of a decoded trace: a retired instruction's address, or a gap (trace off, lost, ...) with
 * the byte offset where the stream says so. It is a golden-model/hart/recovery.ts DecodedItem, so
 * `decode --check` judges every codec's output the same way.
 */
export type DecodedTraceItem =
  | { readonly kind: 'pc'; readonly address: bigint }
  | { readonly kind: 'gap'; readonly reason: string; readonly offset: number; readonly detail?: string };

/** A command-line option of one codec's decoder: `--<name> <argument>`. */
export interface CodecOption {
  /** The long name without `--` ("trap-handler"), also its key in `decode`'s options. */
  readonly name: string;
  /** The value as commander spells it ("<SPEC>"). */
  readonly argument: string;
  readonly help: string;
}

/** The make-up of a stream, for `rvtrace dump --stats`. */
export interface TraceStats {
  /** What a row is, as a column heading ("format", "TCODE"). */
  readonly rowsAre: string;
  /** One row per packet format or message type present, in the order of their codes. */
  readonly rows: readonly { readonly kind: string; readonly count: number; readonly bytes: number }[];
  /** Bytes of the stream in no packet or message (idle bytes, null packets). */
  readonly otherBytes: number;
}

/** What a command that takes a component takes. */
export interface ComponentInput {
  /** The blocks whose components the command takes (default: every block). */
  readonly blocks?: readonly string[];
  /** The component when `--component` is not given. */
  readonly default: string;
}

/**
 * The shape of one `rvtrace` command, shared by the CLI (cli/main.ts registers the generic commands)
 * and the blocks (a block's own commands, e.g. `ctr-dump`, come with its contract). The CLI gives every
 * command `--set NAME=VALUE` and a settings section in its --help; a command that takes a component
 * also gets `--component` and `--schema-dir`, and receives the component resolved once.
 */
export interface CommandDefinition<O> {
  name: string;
  /** `<file>` style positional arguments, as commander spells them. */
  args?: string;
  summary: string;
  /** Extra text after the options in --help (examples, formats). */
  details?: string;
  /** Settings `--set` takes (a component command takes those of the component's block). */
  settings: readonly SettingSpec[];
  /** The command takes `--component` (and `--schema-dir`): run gets it resolved, --set applied. */
  component?: ComponentInput;
  options: (cmd: Command) => Command;
  run: (args: string[], options: O, settings: Settings, resolved?: ResolvedComponent) => Promise<number> | number;
}
