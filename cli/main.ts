/**
 * The `rvtrace` command line. Each generic command lives in `commands/`, each block's own commands
 * come with its contract (blocks/); all register through `addCommand`, which gives every command
 * `--set NAME=VALUE` and a settings section in its --help, and a command that takes a component
 * `--component` and `--schema-dir`, resolving the component once before it runs.
 * Errors are values (RvError): printed on one line as `rvtrace: file:line: message`, never as a stack
 * trace (set RVTRACE_DEBUG=1 to see one), with the exit status the README documents.
 */
import { Command, CommanderError } from 'commander';
import { ExitStatus, RvError } from '../golden-model/common/errors.ts';
import { benchCommand } from './commands/bench.ts';
import { convertCommand } from './commands/convert.ts';
import { decodeCommand } from './commands/decode.ts';
import { dumpCommand } from './commands/dump.ts';
import { encodeCommand } from './commands/encode.ts';
import { cosimCommand } from './commands/cosim.ts';
import { fuzzCommand } from './commands/fuzz.ts';
import { mergeCommand, regressCommand } from './commands/regress.ts';
import { reportCommand } from './commands/report.ts';
import { generateCommand } from './commands/generate.ts';
import { infoCommand } from './commands/info.ts';
import { ipxactCommand } from './commands/ipxact.ts';
import { stimulusCommand } from './commands/stimulus.ts';
import { traceElfCommand } from './commands/trace-elf.ts';
import { tvCheckCommand } from './commands/tv-check.ts';
import { vectorsCommand } from './commands/vectors.ts';
import { checkCommand } from './commands/check.ts';
import { collectSet, describeSettings, resolveSettings } from '../golden-model/common/settings.ts';
import { BLOCKS, resolveComponent, shippedOf } from '../blocks/index.ts';
import type { CommandDefinition } from '../core/block.ts';
import { componentsCommand } from './commands/components.ts';

const COMMANDS: CommandDefinition<never>[] = [
  stimulusCommand as CommandDefinition<never>,
  infoCommand as CommandDefinition<never>,
  convertCommand as CommandDefinition<never>,
  encodeCommand as CommandDefinition<never>,
  decodeCommand as CommandDefinition<never>,
  dumpCommand as CommandDefinition<never>,
  benchCommand as CommandDefinition<never>,
  ipxactCommand as CommandDefinition<never>,
  generateCommand as CommandDefinition<never>,
  cosimCommand as CommandDefinition<never>,
  regressCommand as CommandDefinition<never>,
  mergeCommand as CommandDefinition<never>,
  fuzzCommand as CommandDefinition<never>,
  reportCommand as CommandDefinition<never>,
  traceElfCommand as CommandDefinition<never>,
  tvCheckCommand as CommandDefinition<never>,
  componentsCommand as CommandDefinition<never>,
  vectorsCommand as CommandDefinition<never>,
  checkCommand as CommandDefinition<never>,
  ...BLOCKS.flatMap((b) => b.commands ?? []),
];

/** The shipped components a command takes, for its --help (read when the help is shown). */
function shippedList(blocks: readonly string[] | undefined): string {
  return `Shipped components: ${shippedOf(blocks).join(', ')} (rvtrace components lists them with their blocks).`;
}

function addCommand<O>(program: Command, def: CommandDefinition<O>, setStatus: (s: number) => void): void {
  let cmd = program.command(def.args ? `${def.name} ${def.args}` : def.name).description(def.summary);
  const input = def.component;
  if (input !== undefined) {
    cmd = cmd
      .option('-c, --component <NAME|FILE>', 'a shipped component name or an IP-XACT file (IEEE 1685-2014 or 2022)', input.default)
      .option('--schema-dir <DIR>', 'folder with the IEEE 1685-2014/2022 schemas the component is validated against (default: ../shared/ipxact-schema)');
  }
  cmd = def.options(cmd);
  cmd.option('-s, --set <NAME=VALUE>', 'override one setting for this run (repeatable)', collectSet);
  cmd.addHelpText('after', () => describeSettings(def.settings) + (input ? `\n${shippedList(input.blocks)}\n` : '') + (def.details ? `\n${def.details}\n` : ''));
  cmd.action(async (...params: unknown[]) => {
    // commander passes the positional arguments, then the options object, then the command.
    const positional = params.slice(0, -2) as string[];
    const options = params[params.length - 2] as O & { set?: string[]; component?: string; schemaDir?: string };
    const sets = options.set ?? [];
    if (input !== undefined) {
      // The component is read, validated and resolved here, once; the command gets the result.
      const resolved = resolveComponent(options.component!, sets, {
        command: def.name,
        ...(options.schemaDir !== undefined ? { schemaDir: options.schemaDir } : {}),
        ...(input.blocks !== undefined ? { blocks: input.blocks } : {}),
      });
      setStatus(await def.run(positional.flat(), options, resolved.settings, resolved));
    } else {
      setStatus(await def.run(positional.flat(), options, resolveSettings(def.name, def.settings, sets)));
    }
  });
}

export function buildProgram(setStatus: (s: number) => void): Command {
  const program = new Command('rvtrace')
    .description(
      'Golden models, RTL generation and co-simulation for RISC-V trace IP (E-Trace encoder, CTR, PMU).\n' +
        'Run `rvtrace <command> --help` for the options and settings of a command.',
    )
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });
  for (const def of COMMANDS) addCommand(program, def, setStatus);
  program.addHelpText(
    'after',
    '\nExit status: 0 success, 1 a check or comparison found a difference, 2 bad input or option, 3 a tool failed.\n',
  );
  return program;
}

export async function main(argv: string[]): Promise<number> {
  let status: number = ExitStatus.ok;
  const program = buildProgram((s) => {
    status = s;
  });
  if (argv.length <= 2) {
    program.outputHelp();
    return ExitStatus.ok;
  }
  try {
    await program.parseAsync(argv);
    return status;
  } catch (e) {
    if (e instanceof CommanderError) {
      // Help and version exit 0; usage errors (unknown option, missing argument) are bad input.
      return e.exitCode === 0 ? ExitStatus.ok : ExitStatus.badInput;
    }
    if (e instanceof RvError) {
      process.stderr.write(`rvtrace: ${e.oneLine()}\n`);
      if (process.env.RVTRACE_DEBUG) process.stderr.write(`${e.stack}\n`);
      return e.status;
    }
    process.stderr.write(`rvtrace: internal error: ${(e as Error).message ?? String(e)}\n`);
    process.stderr.write('  (this is a bug; RVTRACE_DEBUG=1 prints the stack trace)\n');
    if (process.env.RVTRACE_DEBUG) process.stderr.write(`${(e as Error).stack}\n`);
    return 70;
  }
}
