/**
 * Errors are values: a stable code, a human message and where the problem is. The CLI prints
 * `file:line: message` and exits with the status the code maps to; nothing else prints stack traces.
 */

/** Where a problem was found: a file and line, a byte offset, or a path into a component. */
export interface Location {
  file?: string;
  line?: number;
  /** Byte offset into a binary file. */
  offset?: number;
  /** A parameter, field or register name, e.g. `parameters/itype_width_p`. */
  path?: string;
}

/** Exit statuses of the CLI, documented in the README. */
export const ExitStatus = {
  ok: 0,
  /** A comparison or check found a difference (co-simulation mismatch, failed invariant). */
  mismatch: 1,
  /** Bad input: malformed file, bad option, invalid component. Nothing was written. */
  badInput: 2,
  /** A tool the command needs is missing or failed (verilator, xmllint, ...). */
  toolFailure: 3,
} as const;

export type ErrorCode =
  | 'bad-option'
  | 'bad-file'
  | 'truncated'
  | 'bad-header'
  | 'bad-value'
  | 'io'
  | 'invalid-component'
  | 'tool-failure';

export function formatLocation(loc: Location): string {
  const parts: string[] = [];
  if (loc.file !== undefined) {
    let s = loc.file;
    if (loc.line !== undefined) s += `:${loc.line}`;
    if (loc.offset !== undefined) s += ` (byte offset ${loc.offset})`;
    parts.push(s);
  } else if (loc.offset !== undefined) {
    parts.push(`byte offset ${loc.offset}`);
  }
  if (loc.path !== undefined) parts.push(loc.path);
  return parts.join(': ');
}

export class RvError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly location: Location = {},
    readonly status: number = code === 'tool-failure' ? ExitStatus.toolFailure : ExitStatus.badInput,
  ) {
    super(message);
    this.name = 'RvError';
  }

  /** One line: `file:line: message`. */
  oneLine(): string {
    const where = formatLocation(this.location);
    return where ? `${where}: ${this.message}` : this.message;
  }

  /** The same error with a file name filled in (parsers work on text and do not know the path). */
  inFile(file: string): RvError {
    return new RvError(this.code, this.message, { ...this.location, file }, this.status);
  }
}
