// A strict reader for the small part of YAML that kubeconfig files use: block mappings and sequences
// (including kubectl's sequences at their key's indentation), single-line plain and quoted scalars,
// comments, and empty `{}` / `[]`. It exists because loading and running the `yaml` package costs the
// node agent about 5 MB of RSS for one small file. Anything outside the subset (anchors, tags, flow
// collections with content, block or multi-line scalars, several documents) makes it return
// undefined rather than guess, so the caller can fall back to the full parser. Plain scalars resolve
// like the YAML 1.2 core schema (`yaml`'s default): null, booleans, integers and floats.

export class UnsupportedYamlError extends Error {
  constructor(line: number, why: string) {
    super(`line ${line}: ${why}`);
    this.name = 'UnsupportedYamlError';
  }
}

interface Line {
  indent: number;
  text: string;
  number: number;
}

/** Parses text in the subset; undefined when it is not (or is not valid YAML at all). */
export function parseBlockYaml(text: string): unknown {
  try {
    return parseBlockYamlOrThrow(text);
  } catch (err) {
    if (err instanceof UnsupportedYamlError) return undefined;
    throw err;
  }
}

/** Like parseBlockYaml, but says why the text is outside the subset. */
export function parseBlockYamlOrThrow(text: string): unknown {
  const lines = significantLines(text);
  if (lines.length === 0) return null;
  const [value, next] = parseNode(lines, 0);
  if (next < lines.length) throw new UnsupportedYamlError(lines[next]!.number, 'unexpected indentation');
  return value;
}

function significantLines(text: string): Line[] {
  const raw = text.replace(/^\uFEFF/, '').split('\n');
  const lines: Line[] = [];
  let documentStarted = false;
  raw.forEach((rawLine, index) => {
    const number = index + 1;
    const line = rawLine.endsWith('\r') ? rawLine.slice(0, -1) : rawLine;
    const text = line.trimStart();
    if (text === '' || text.startsWith('#')) return;
    const indentation = line.slice(0, line.length - text.length);
    if (indentation.includes('\t')) throw new UnsupportedYamlError(number, 'tab in indentation');
    if (
      indentation === '' &&
      (text === '---' || text.startsWith('--- ') || text === '...' || text.startsWith('%'))
    ) {
      // One leading document marker is fine; anything else is a multi-document stream or a directive.
      if (
        text.startsWith('--- ') ||
        text === '...' ||
        text.startsWith('%') ||
        documentStarted ||
        lines.length > 0
      ) {
        throw new UnsupportedYamlError(number, 'document markers and directives');
      }
      documentStarted = true;
      return;
    }
    lines.push({ indent: indentation.length, text: text.trimEnd(), number });
  });
  return lines;
}

function isSequenceItem(text: string): boolean {
  return text === '-' || text.startsWith('- ');
}

/** Parses the node that starts at lines[i]; returns it and the index of the first line after it. */
function parseNode(lines: Line[], i: number): [unknown, number] {
  const line = lines[i]!;
  if (isSequenceItem(line.text)) return parseSequence(lines, i, line.indent);
  if (splitEntry(line) !== undefined) return parseMapping(lines, i, line.indent);
  const value = scalar(line.text, line.number);
  if (i + 1 < lines.length && lines[i + 1]!.indent > line.indent) {
    throw new UnsupportedYamlError(line.number, 'multi-line scalar');
  }
  return [value, i + 1];
}

function parseSequence(lines: Line[], start: number, indent: number): [unknown[], number] {
  const items: unknown[] = [];
  let i = start;
  while (i < lines.length && lines[i]!.indent === indent && isSequenceItem(lines[i]!.text)) {
    const line = lines[i]!;
    const afterDash = line.text.slice(1);
    const rest = afterDash.trimStart();
    if (rest === '' || rest.startsWith('#')) {
      if (i + 1 < lines.length && lines[i + 1]!.indent > indent) {
        const [value, next] = parseNode(lines, i + 1);
        items.push(value);
        i = next;
      } else {
        items.push(null);
        i++;
      }
      continue;
    }
    // `- key: value` starts a mapping whose further keys line up with `key`: parse the rest of the
    // line as if it stood on its own line at that column.
    const column = indent + 1 + (afterDash.length - rest.length);
    lines[i] = { indent: column, text: rest, number: line.number };
    const [value, next] = parseNode(lines, i);
    items.push(value);
    i = next;
  }
  if (i < lines.length && lines[i]!.indent > indent) {
    throw new UnsupportedYamlError(lines[i]!.number, 'unexpected indentation in a sequence');
  }
  return [items, i];
}

function parseMapping(lines: Line[], start: number, indent: number): [Record<string, unknown>, number] {
  const entries: [string, unknown][] = [];
  const keys = new Set<string>();
  let i = start;
  while (i < lines.length && lines[i]!.indent === indent) {
    const line = lines[i]!;
    const entry = splitEntry(line);
    if (entry === undefined) throw new UnsupportedYamlError(line.number, 'expected a "key: value" entry');
    const [key, valueText] = entry;
    if (keys.has(key)) throw new UnsupportedYamlError(line.number, `duplicate key ${JSON.stringify(key)}`);
    keys.add(key);
    if (valueText === '') {
      const next = lines[i + 1];
      // The value is the block below: deeper-indented, or a sequence at the key's own indentation.
      if (next && (next.indent > indent || (next.indent === indent && isSequenceItem(next.text)))) {
        const [value, after] = parseNode(lines, i + 1);
        entries.push([key, value]);
        i = after;
      } else {
        entries.push([key, null]);
        i++;
      }
      continue;
    }
    entries.push([key, scalar(valueText, line.number)]);
    i++;
    if (i < lines.length && lines[i]!.indent > indent) {
      throw new UnsupportedYamlError(lines[i]!.number, 'multi-line scalar');
    }
  }
  if (i < lines.length && lines[i]!.indent > indent) {
    throw new UnsupportedYamlError(lines[i]!.number, 'unexpected indentation in a mapping');
  }
  // fromEntries defines own properties, so a "__proto__" key cannot reach the prototype.
  return [Object.fromEntries(entries), i];
}

/** Splits `key: value` (value may be empty); undefined if the line is not a mapping entry. */
function splitEntry(line: Line): [string, string] | undefined {
  const text = line.text;
  if (text.startsWith('"') || text.startsWith("'")) {
    const [key, end] = quoted(text, line.number);
    const rest = text.slice(end);
    if (!/^:(\s|$)/.test(rest)) return undefined;
    return [key, valueAfterColon(rest)];
  }
  if (text.startsWith('? ') || text === '?') throw new UnsupportedYamlError(line.number, 'complex keys');
  const colon = text === '' ? -1 : findEntryColon(text);
  if (colon === -1) return undefined;
  const key = text.slice(0, colon).trimEnd();
  if (key === '' || /^[[\]{},#&*!|>%@`]/.test(key) || /^-\s/.test(key)) {
    throw new UnsupportedYamlError(line.number, 'unsupported key');
  }
  return [key, valueAfterColon(text.slice(colon))];
}

// The first ": " (colon and blank, or a final colon) outside a comment.
function findEntryColon(text: string): number {
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '#' && i > 0 && isBlank(text[i - 1])) return -1;
    if (text[i] === ':' && (i + 1 === text.length || isBlank(text[i + 1]))) return i;
  }
  return -1;
}

function isBlank(c: string | undefined): boolean {
  return c === ' ' || c === '\t';
}

function valueAfterColon(rest: string): string {
  const value = rest.slice(1).trim();
  return value.startsWith('#') ? '' : value;
}

function scalar(text: string, line: number): unknown {
  if (text.startsWith('"') || text.startsWith("'")) {
    const [value, end] = quoted(text, line);
    const rest = text.slice(end);
    // Only a comment may follow, and YAML wants blank space before its '#'.
    if (rest.trim() !== '' && !/^\s+#/.test(rest))
      throw new UnsupportedYamlError(line, 'text after a quoted scalar');
    return value;
  }
  const plain = stripComment(text);
  if (plain === '{}') return {};
  if (plain === '[]') return [];
  if (/^[[\]{},&*!|>%@`]/.test(plain) || /^[-?:](\s|$)/.test(plain)) {
    throw new UnsupportedYamlError(line, 'flow collections, anchors, tags and block scalars');
  }
  if (/:\s/.test(plain) || plain.endsWith(':'))
    throw new UnsupportedYamlError(line, 'ambiguous plain scalar');
  return resolvePlain(plain);
}

function stripComment(text: string): string {
  const hash = text.search(/\s#/);
  return (hash === -1 ? text : text.slice(0, hash)).trimEnd();
}

// YAML 1.2 core schema.
function resolvePlain(text: string): unknown {
  if (text === '' || text === '~' || text === 'null' || text === 'Null' || text === 'NULL') return null;
  if (text === 'true' || text === 'True' || text === 'TRUE') return true;
  if (text === 'false' || text === 'False' || text === 'FALSE') return false;
  if (/^[-+]?[0-9]+$/.test(text)) return Number.parseInt(text, 10);
  if (/^0o[0-7]+$/.test(text)) return Number.parseInt(text.slice(2), 8);
  if (/^0x[0-9a-fA-F]+$/.test(text)) return Number.parseInt(text.slice(2), 16);
  if (/^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/.test(text)) return Number.parseFloat(text);
  if (/^[-+]?\.(inf|Inf|INF)$/.test(text)) return text.startsWith('-') ? -Infinity : Infinity;
  if (/^\.(nan|NaN|NAN)$/.test(text)) return Number.NaN;
  return text;
}

const DOUBLE_QUOTE_ESCAPES: Record<string, string> = {
  '0': '\0',
  a: '\x07',
  b: '\b',
  t: '\t',
  '\t': '\t',
  n: '\n',
  v: '\v',
  f: '\f',
  r: '\r',
  e: '\x1b',
  ' ': ' ',
  '"': '"',
  '/': '/',
  '\\': '\\',
  N: '\u0085',
  _: '\u00a0',
  L: '\u2028',
  P: '\u2029',
};

const HEX_ESCAPE_LENGTHS: Record<string, number> = { x: 2, u: 4, U: 8 };

/** Reads a quoted scalar at the start of text; returns its value and the index after the closing quote. */
function quoted(text: string, line: number): [string, number] {
  const quote = text[0];
  let value = '';
  for (let i = 1; i < text.length; i++) {
    const c = text[i]!;
    if (quote === "'") {
      if (c !== "'") {
        value += c;
      } else if (text[i + 1] === "'") {
        value += "'";
        i++;
      } else {
        return [value, i + 1];
      }
      continue;
    }
    if (c === '"') return [value, i + 1];
    if (c !== '\\') {
      value += c;
      continue;
    }
    const escaped = text[i + 1];
    if (escaped === undefined) break;
    const hexLength = HEX_ESCAPE_LENGTHS[escaped];
    if (hexLength !== undefined) {
      const hex = text.slice(i + 2, i + 2 + hexLength);
      if (!new RegExp(`^[0-9a-fA-F]{${hexLength}}$`).test(hex))
        throw new UnsupportedYamlError(line, 'bad escape');
      value += String.fromCodePoint(Number.parseInt(hex, 16));
      i += 1 + hexLength;
      continue;
    }
    const replacement = DOUBLE_QUOTE_ESCAPES[escaped];
    if (replacement === undefined) throw new UnsupportedYamlError(line, 'bad escape');
    value += replacement;
    i++;
  }
  throw new UnsupportedYamlError(line, 'quoted scalar continues on another line');
}
