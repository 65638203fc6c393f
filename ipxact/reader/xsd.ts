/**
 * Validates an IP-XACT document against the official Accellera schemas with Debian's xmllint
 * (libxml2-utils). The schemas are not copied into the project: they live in the shared folder
 * next to the checkout (../shared/ipxact-schema/ieee-1685-{2014,2022}/index.xsd).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { RvError } from '../../golden-model/common/errors.ts';
import { findOnPath, REPO_ROOT } from '../../golden-model/common/paths.ts';
import { IPXACT_NAMESPACES, type IpxactStandard } from './component.ts';

/** The shared schema folder: `shared/ipxact-schema` beside the checkout root. */
export function defaultSchemaDir(): string {
  return join(REPO_ROOT, '..', 'shared', 'ipxact-schema');
}

/** The schema xmllint is given for a standard. */
export function schemaFile(standard: IpxactStandard, schemaDir: string): string {
  return join(schemaDir, `ieee-1685-${standard}`, 'index.xsd');
}

/**
 * One RvError per problem xmllint reports, each with the file and line; [] when the document is
 * valid. A missing xmllint or schema is a 'tool-failure' error (in the list, like the others).
 * `xmllint` names the program to run (tests use it to simulate its absence).
 */
export function validateXsd(file: string, standard: IpxactStandard, schemaDir: string, xmllint = 'xmllint'): RvError[] {
  const schema = schemaFile(standard, schemaDir);
  if (!existsSync(schema)) {
    return [new RvError('tool-failure', `IP-XACT ${standard} schema not found: ${schema} (expected the Accellera schemas under ${schemaDir})`)];
  }
  if (!existsSync(file)) return [new RvError('io', 'no such file', { file })];

  // --nonet: the schemas include each other by relative path; nothing may come from the network.
  const run = spawnSync(xmllint, ['--noout', '--nonet', '--schema', schema, file], { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (run.error) {
    const code = (run.error as NodeJS.ErrnoException).code;
    const message = code === 'ENOENT' ? 'xmllint not found: install libxml2-utils' : `cannot run xmllint: ${run.error.message}`;
    return [new RvError('tool-failure', message)];
  }
  const errors = parseXmllintOutput(run.stderr, file, standard);
  // xmllint exit statuses: 0 valid, 1 parse error, 3 and 4 invalid, 5 schema failed to compile.
  if (run.status === 0) return errors;
  if (run.status === 5 || errors.length === 0) {
    const detail = run.stderr.trim().split('\n').slice(0, 5).join('; ') || `exit status ${run.status ?? run.signal}`;
    return [new RvError('tool-failure', `xmllint failed on schema ${schema}: ${detail}`)];
  }
  return errors;
}

/**
 * `validateXsd` of a document whose bytes have the SHA-256 `sha256`, remembered across processes
 * when the document is valid: every command that loads a component validates it, and xmllint (its
 * process and the spawn) costs about 25 ms of CPU, 8 % of the whole `rvtrace encode` of a short
 * trace (issue 22). A valid document leaves an empty marker file in <cache>/xsd-valid/ named after its
 * bytes, the standard, xmllint (path, size, time) and every file of the schema's folder (name,
 * size, time): a change to any of them asks xmllint again. Errors are never remembered, and
 * without xmllint or the schema there is no marker to find.
 */
export function validateXsdRemembered(file: string, standard: IpxactStandard, schemaDir: string, sha256: string): RvError[] {
  const key = validityKey(standard, schemaDir, sha256);
  const dir = join(process.env['RVTRACE_CACHE'] || join(REPO_ROOT, '.cache'), 'xsd-valid');
  const marker = key === undefined ? undefined : join(dir, key);
  if (marker !== undefined && existsSync(marker)) return [];
  const errors = validateXsd(file, standard, schemaDir);
  if (errors.length === 0 && marker !== undefined) {
    try {
      mkdirSync(dir, { recursive: true });
      const tmp = `${marker}.tmp-${process.pid}`;
      writeFileSync(tmp, '');
      renameSync(tmp, marker);
    } catch {
      // a read-only cache: xmllint runs again next time
    }
  }
  return errors;
}

/** The name of the marker of a valid document (see validateXsdRemembered), or undefined without xmllint or the schema. */
function validityKey(standard: IpxactStandard, schemaDir: string, sha256: string): string | undefined {
  const xmllint = findOnPath('xmllint');
  const schemaFolder = dirname(schemaFile(standard, schemaDir));
  if (xmllint === undefined || !existsSync(schemaFolder)) return undefined;
  const h = createHash('sha256');
  const stamp = (path: string): void => {
    const st = statSync(path);
    h.update(`${path} ${st.size} ${st.mtimeMs}\n`);
  };
  h.update(`${standard} ${sha256}\n`);
  stamp(xmllint);
  for (const name of readdirSync(schemaFolder).sort()) stamp(join(schemaFolder, name));
  return h.digest('hex');
}

/**
 * xmllint writes `FILE:LINE: <kind> : <message>`, where a parser error is followed by two lines
 * quoting the source and a caret, and ends with `FILE fails to validate` or `FILE validates`.
 * Only the located lines become errors; the rest is context.
 */
export function parseXmllintOutput(stderr: string, file: string, standard: IpxactStandard): RvError[] {
  const errors: RvError[] = [];
  const ipxactName = new RegExp(`\\{${IPXACT_NAMESPACES[standard].replace(/[.]/g, '\\.')}\\}`, 'g');
  for (const text of stderr.split('\n')) {
    if (!text.startsWith(`${file}:`)) continue;
    const m = /^(\d+): (.*)$/.exec(text.slice(file.length + 1));
    if (!m) continue;
    const line = Number(m[1]);
    const body = m[2]!;
    const validity = /Schemas validity error : (.*)$/.exec(body);
    if (validity) {
      // Namespaces as URIs in braces make long lines; the IP-XACT one reads better as a prefix.
      const message = validity[1]!.replace(ipxactName, 'ipxact:');
      errors.push(new RvError('invalid-component', `not valid against the IEEE 1685-${standard} schema: ${message}`, { file, line }));
    } else {
      const parser = /^(?:.*?(?:parser|namespace) error : )?(.*)$/.exec(body)!;
      errors.push(new RvError('bad-file', `malformed XML (xmllint): ${parser[1]}`, { file, line }));
    }
  }
  return errors;
}
