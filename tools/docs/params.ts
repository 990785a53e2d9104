// `npm run docs [-- --check]`: rewrites the parameter tables in docs/*.md from the DEFAULT_* config constants
// (value from the module, meaning from the field's doc comment), so the docs cannot drift from the code.
//
// A page asks for a table with a marked block; everything between the two markers is generated:
//
//   <!-- params:perception/cluster DEFAULT_CLUSTER_CONFIG -->
//   <!-- /params -->
//
// The module path is relative to the repository root, without `.ts`. A constant declared without a type
// annotation names the interface that documents its fields as a third word (`… ADAMW_DEFAULTS AdamWOptions`). Each row is one field of the constant
// (nested object literals flattened as `a.b`): its default value, the JSDoc of that field in the config's
// interface, and the comment written above the value in the constant itself (the reason for the default).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as prettier from 'prettier';
import ts from 'typescript';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const DOCS_DIR = path.join(REPO_ROOT, 'docs');

const BLOCK = /<!-- params:(\S+) (\S+)(?: (\S+))? -->\n[\s\S]*?<!-- \/params -->/g;

/** One row of a parameter table. */
export interface ParamRow {
  key: string;
  value: string;
  doc: string;
  why: string;
}

interface Parsed {
  sf: ts.SourceFile;
  file: string;
}

const parsedCache = new Map<string, Parsed>();

function parse(file: string): Parsed {
  let p = parsedCache.get(file);
  if (!p) {
    const text = fs.readFileSync(file, 'utf8');
    p = { sf: ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true), file };
    parsedCache.set(file, p);
  }
  return p;
}

/** The JSDoc text of a node as one line (tags dropped), or ''. */
function jsDocOf(node: ts.Node): string {
  const docs = (node as { jsDoc?: ts.JSDoc[] }).jsDoc;
  if (!docs?.length) return '';
  const c = docs[docs.length - 1].comment;
  const text = typeof c === 'string' ? c : (c ?? []).map((part) => part.text).join('');
  return oneLine(text);
}

/** The `//` and `/* … *\/` comments written directly above a node, as one line. */
function leadingCommentsOf(node: ts.Node, sf: ts.SourceFile): string {
  const ranges = ts.getLeadingCommentRanges(sf.text, node.getFullStart()) ?? [];
  const parts = ranges.map((r) => {
    const raw = sf.text.slice(r.pos, r.end);
    return r.kind === ts.SyntaxKind.SingleLineCommentTrivia
      ? raw.replace(/^\/\/\s?/, '')
      : raw
          .replace(/^\/\*\*?/, '')
          .replace(/\*\/$/, '')
          .replace(/^\s*\* ?/gm, '');
  });
  return oneLine(parts.join(' '));
}

/** A `//` comment after a node on its line (after its comma), e.g. `threads: 0, // 0 = all cores`. */
function trailingCommentOf(node: ts.Node, sf: ts.SourceFile): string {
  let pos = node.getEnd();
  if (sf.text[pos] === ',') pos++;
  const r = (ts.getTrailingCommentRanges(sf.text, pos) ?? [])[0];
  return r && r.kind === ts.SyntaxKind.SingleLineCommentTrivia ? sf.text.slice(r.pos + 2, r.end).trim() : '';
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

/** An interface or object type literal named `name`, in `file` or in the file it is imported from. */
function findType(
  name: string,
  file: string,
  seen = new Set<string>(),
): { members: ts.NodeArray<ts.TypeElement>; p: Parsed; heritage: string[] } | undefined {
  if (seen.has(`${file}#${name}`)) return undefined;
  seen.add(`${file}#${name}`);
  const p = parse(file);
  for (const st of p.sf.statements) {
    if (ts.isInterfaceDeclaration(st) && st.name.text === name) {
      const heritage = (st.heritageClauses ?? []).flatMap((h) =>
        h.types.map((t) => t.expression.getText(p.sf)),
      );
      return { members: st.members, p, heritage };
    }
    if (ts.isTypeAliasDeclaration(st) && st.name.text === name && ts.isTypeLiteralNode(st.type)) {
      return { members: st.type.members, p, heritage: [] };
    }
  }
  for (const st of p.sf.statements) {
    if (!ts.isImportDeclaration(st) || !ts.isStringLiteral(st.moduleSpecifier)) continue;
    const spec = st.moduleSpecifier.text;
    if (!spec.startsWith('.')) continue;
    const bindings = st.importClause?.namedBindings;
    if (!bindings || !ts.isNamedImports(bindings)) continue;
    for (const el of bindings.elements) {
      if (el.name.text !== name) continue;
      const original = (el.propertyName ?? el.name).text;
      return findType(original, path.resolve(path.dirname(file), spec), seen);
    }
  }
  return undefined;
}

/** The property signature `key` of a named type (following `extends`), with the file it is in. */
function findMember(
  typeName: string,
  key: string,
  file: string,
): { member: ts.PropertySignature; p: Parsed } | undefined {
  const t = findType(typeName, file);
  if (!t) return undefined;
  for (const m of t.members) {
    if (ts.isPropertySignature(m) && m.name.getText(t.p.sf) === key) return { member: m, p: t.p };
  }
  for (const base of t.heritage) {
    const found = findMember(base, key, t.p.file);
    if (found) return found;
  }
  return undefined;
}

/** The name of the type a property is declared with, when it is a plain type reference. */
function typeRefName(member: ts.PropertySignature | undefined): string | undefined {
  const t = member?.type;
  return t && ts.isTypeReferenceNode(t) ? t.typeName.getText() : undefined;
}

function formatNumber(n: number): string {
  if (Number.isInteger(n) || !Number.isFinite(n)) return String(n);
  return String(Number(n.toPrecision(6)));
}

function formatValue(v: unknown): string {
  if (typeof v === 'number') return formatNumber(v);
  if (typeof v === 'string') return `'${v}'`;
  if (Array.isArray(v)) return `[${v.map(formatValue).join(', ')}]`;
  if (v === null || v === undefined || typeof v === 'boolean') return String(v);
  if (ArrayBuffer.isView(v)) return `${v.constructor.name}(${(v as unknown as ArrayLike<number>).length})`;
  return JSON.stringify(v);
}

const LITERAL = /^-?[\d_.]+(e-?\d+)?$|^'[^']*'$|^"[^"]*"$|^(true|false|null|undefined)$/;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !ArrayBuffer.isView(v);
}

/** Rows for an object value: one per field, object literals flattened, named constants shown by name. */
function objectRows(
  value: Record<string, unknown>,
  literal: ts.ObjectLiteralExpression | undefined,
  typeName: string | undefined,
  file: string,
  prefix: string,
): ParamRow[] {
  const rows: ParamRow[] = [];
  for (const [key, v] of Object.entries(value)) {
    const assignment = literal?.properties.find(
      (p): p is ts.PropertyAssignment | ts.ShorthandPropertyAssignment =>
        (ts.isPropertyAssignment(p) || ts.isShorthandPropertyAssignment(p)) && p.name.getText() === key,
    );
    const found = typeName ? findMember(typeName, key, file) : undefined;
    const doc = found ? jsDocOf(found.member) || leadingCommentsOf(found.member, found.p.sf) : '';
    const sf = literal?.getSourceFile();
    const why =
      assignment && sf
        ? oneLine(`${leadingCommentsOf(assignment, sf)} ${trailingCommentOf(assignment, sf)}`)
        : '';
    const init =
      assignment && ts.isPropertyAssignment(assignment) ? unwrap(assignment.initializer) : undefined;
    if (isPlainObject(v) && init && ts.isObjectLiteralExpression(init)) {
      const sub = objectRows(v, init, typeRefName(found?.member), found?.p.file ?? file, `${prefix}${key}.`);
      if (doc || why) rows.push({ key: `${prefix}${key}`, value: '', doc, why });
      rows.push(...sub);
      continue;
    }
    let shown: string;
    if (init && ts.isIdentifier(init) && /^DEFAULT_/.test(init.text)) shown = `\`${init.text}\``;
    else if (isPlainObject(v) && init) shown = `\`${oneLine(init.getText())}\``;
    else {
      shown = `\`${formatValue(v)}\``;
      // The expression behind a computed value (`Math.PI / 4`, `BEV_CHANNEL_COUNT`), when it says more.
      const src = init && !ts.isArrayLiteralExpression(init) ? oneLine(init.getText()) : '';
      if (src && !LITERAL.test(src) && !isPlainObject(v) && src.length <= 40 && `\`${src}\`` !== shown) {
        shown += ` (\`${src}\`)`;
      }
    }
    rows.push({ key: `${prefix}${key}`, value: shown, doc, why });
  }
  return rows;
}

/** An expression without `as` / `satisfies` casts and parentheses around it. */
function unwrap(e: ts.Expression): ts.Expression {
  while (ts.isAsExpression(e) || ts.isSatisfiesExpression(e) || ts.isParenthesizedExpression(e))
    e = e.expression;
  return e;
}

/** The rows of the table for constant `name` exported by `modulePath` (repository-relative, no `.ts`). */
export async function paramRows(modulePath: string, name: string, typeHint?: string): Promise<ParamRow[]> {
  const file = path.join(REPO_ROOT, `${modulePath}.ts`);
  if (!fs.existsSync(file)) throw new Error(`params: no module ${modulePath}.ts`);
  const mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  if (!(name in mod)) throw new Error(`params: ${modulePath}.ts exports no ${name}`);
  const value = mod[name];
  const { sf } = parse(file);
  let decl: ts.VariableDeclaration | undefined;
  let statement: ts.VariableStatement | undefined;
  for (const st of sf.statements) {
    if (!ts.isVariableStatement(st)) continue;
    for (const d of st.declarationList.declarations) {
      if (ts.isIdentifier(d.name) && d.name.text === name) [decl, statement] = [d, st];
    }
  }
  if (!decl || !statement) throw new Error(`params: ${name} is not declared in ${modulePath}.ts`);
  const init = decl.initializer && unwrap(decl.initializer);
  if (!isPlainObject(value)) {
    const doc = jsDocOf(statement) || leadingCommentsOf(statement, sf);
    return [{ key: name, value: `\`${formatValue(value)}\``, doc, why: '' }];
  }
  const typeName =
    typeHint ?? (decl.type && ts.isTypeReferenceNode(decl.type) ? decl.type.typeName.getText(sf) : undefined);
  return objectRows(value, init && ts.isObjectLiteralExpression(init) ? init : undefined, typeName, file, '');
}

function cell(s: string): string {
  return s.replace(/\|/g, '\\|') || ' ';
}

/** The markdown table for rows, formatted as prettier formats markdown (so the page stays prettier-clean). */
export async function renderTable(rows: ParamRow[]): Promise<string> {
  const withWhy = rows.some((r) => r.why);
  const head = withWhy ? ['key', 'default', 'meaning', 'why this default'] : ['key', 'default', 'meaning'];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`];
  for (const r of rows) {
    const cells = [`\`${r.key}\``, r.value || ' ', r.doc, ...(withWhy ? [r.why] : [])];
    lines.push(`| ${cells.map(cell).join(' | ')} |`);
  }
  const options = (await prettier.resolveConfig(path.join(DOCS_DIR, 'x.md'))) ?? {};
  return (await prettier.format(lines.join('\n') + '\n', { ...options, parser: 'markdown' })).trimEnd();
}

/** A page's text with every params block regenerated. */
export async function renderPage(text: string): Promise<string> {
  const blocks = [...text.matchAll(BLOCK)];
  let out = '';
  let last = 0;
  for (const m of blocks) {
    const [whole, modulePath, name, typeHint] = m;
    const table = await renderTable(await paramRows(modulePath, name, typeHint));
    const marker = `<!-- params:${modulePath} ${name}${typeHint ? ` ${typeHint}` : ''} -->`;
    out += text.slice(last, m.index) + `${marker}\n\n${table}\n\n<!-- /params -->`;
    last = m.index + whole.length;
  }
  return out + text.slice(last);
}

/** The markdown files under docs/ (and the README), with whether each one's generated blocks are current. */
export async function updateDocs(opts: {
  check: boolean;
}): Promise<{ file: string; stale: boolean; blocks: number }[]> {
  const files = fs
    .readdirSync(DOCS_DIR)
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => path.join(DOCS_DIR, f));
  const results = [];
  for (const file of files) {
    const text = fs.readFileSync(file, 'utf8');
    const blocks = [...text.matchAll(BLOCK)].length;
    if (blocks === 0) continue;
    const next = await renderPage(text);
    const stale = next !== text;
    if (stale && !opts.check) fs.writeFileSync(file, next);
    results.push({ file: path.relative(REPO_ROOT, file), stale, blocks });
  }
  return results;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes('--check');
  const results = await updateDocs({ check });
  for (const r of results) {
    const state = r.stale ? (check ? 'out of date' : 'rewritten') : 'up to date';
    process.stdout.write(`${r.file}: ${r.blocks} parameter table(s) ${state}\n`);
  }
  if (check && results.some((r) => r.stale)) {
    process.stderr.write('docs parameter tables are out of date: run `npm run docs`\n');
    process.exitCode = 1;
  }
}
