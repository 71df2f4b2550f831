// CRD `pattern`s are Go RE2 regular expressions. This translates them into equivalent ECMAScript
// (unicode mode) and rejects what RE2 rejects (lookaround, backreferences), with Go-like errors.
// It is an approximation: exotic RE2 corners (\C, (?U), repeat limits) are refused or left to V8.

export class GoRegexpError extends Error {}

export interface TranslatedRegexp {
  source: string;
  flags: string;
}

const generalCategories = new Set(
  'L Lu Ll Lt Lm Lo LC M Mn Mc Me N Nd Nl No P Pc Pd Ps Pe Pi Pf Po S Sm Sc Sk So Z Zs Zl Zp C Cc Cf Cs Co Cn'.split(
    ' ',
  ),
);

const posixClasses: Record<string, string> = {
  alnum: '0-9A-Za-z',
  alpha: 'A-Za-z',
  ascii: '\\x00-\\x7f',
  blank: '\\t ',
  cntrl: '\\x00-\\x1f\\x7f',
  digit: '0-9',
  graph: '!-~',
  lower: 'a-z',
  print: ' -~',
  punct: '!-\\/:-@\\[-`\\{-~',
  space: '\\t\\n\\v\\f\\r ',
  upper: 'A-Z',
  word: '0-9A-Za-z_',
  xdigit: '0-9A-Fa-f',
};

// Characters that may (and in unicode mode must, to be literal) be escaped in ECMAScript; inside a
// class '-' joins them. Escaping anything else is a syntax error in unicode mode.
const jsSyntax = new Set('^$\\.*+?()[]{}|/'.split(''));

function fail(kind: string, fragment: string): never {
  throw new GoRegexpError(`error parsing regexp: ${kind}: \`${fragment}\``);
}

function isAsciiAlnum(c: string): boolean {
  return /^[0-9A-Za-z]$/.test(c);
}

function literal(c: string, inClass: boolean): string {
  return jsSyntax.has(c) || (inClass && c === '-') ? `\\${c}` : c;
}

class Translator {
  private readonly pattern: string;
  private i = 0;
  private out = '';
  /** Per open group: how many `(?flags:` wrappers opened inside it still need closing. */
  private readonly groups: number[] = [];
  private topLevelWrappers = 0;
  private flags = '';

  constructor(pattern: string) {
    this.pattern = pattern;
  }

  run(): TranslatedRegexp {
    const p = this.pattern;
    while (this.i < p.length) {
      const c = p[this.i]!;
      if (c === '\\') this.escape(false);
      else if (c === '[') this.charClass();
      else if (c === '(') this.openGroup();
      else if (c === ')') this.closeGroup();
      else if (c === '{') this.brace();
      else if (c === '}') {
        this.out += '\\}';
        this.i++;
      } else {
        this.out += c;
        this.i++;
      }
    }
    if (this.groups.length > 0) fail('missing closing )', p);
    this.out += ')'.repeat(this.topLevelWrappers);
    return { source: this.out, flags: `${this.flags}u` };
  }

  private brace(): void {
    const m = /^\{(\d+)(,(\d*))?\}/.exec(this.pattern.slice(this.i));
    if (!m) {
      // RE2 reads a brace that does not start a repeat as a literal.
      this.out += '\\{';
      this.i++;
      return;
    }
    if (Number(m[1]) > 1000 || (m[3] !== undefined && m[3] !== '' && Number(m[3]) > 1000)) {
      fail('invalid repeat count', m[0]);
    }
    this.out += m[0];
    this.i += m[0].length;
  }

  private openGroup(): void {
    const rest = this.pattern.slice(this.i);
    if (!rest.startsWith('(?')) {
      this.groups.push(0);
      this.out += '(';
      this.i++;
      return;
    }
    const named = /^\(\?P?<([A-Za-z_][A-Za-z0-9_]*)>/.exec(rest);
    if (named) {
      this.groups.push(0);
      this.out += `(?<${named[1]}>`;
      this.i += named[0].length;
      return;
    }
    if (rest.startsWith('(?:')) {
      this.groups.push(0);
      this.out += '(?:';
      this.i += 3;
      return;
    }
    const flagged = /^\(\?([a-zA-Z-]*)([:)])/.exec(rest);
    if (!flagged || /[^imsU-]/.test(flagged[1]!) || flagged[1]!.includes('U') || flagged[1] === '') {
      fail('invalid or unsupported Perl syntax', rest.slice(0, Math.min(rest.length, 3)));
    }
    const flags = flagged[1]!;
    this.i += flagged[0].length;
    if (flagged[2] === ':') {
      this.groups.push(0);
      this.out += `(?${flags}:`;
      return;
    }
    // `(?i)` at the very start becomes a RegExp flag; elsewhere it applies to the rest of the group.
    if (this.out === '' && this.groups.length === 0 && !flags.includes('-')) {
      for (const f of flags) if (!this.flags.includes(f)) this.flags += f;
      return;
    }
    this.out += `(?${flags}:`;
    if (this.groups.length > 0) this.groups[this.groups.length - 1]!++;
    else this.topLevelWrappers++;
  }

  private closeGroup(): void {
    const wrappers = this.groups.pop();
    if (wrappers === undefined) fail('unexpected )', this.pattern);
    this.out += `${')'.repeat(wrappers)})`;
    this.i++;
  }

  private charClass(): void {
    const p = this.pattern;
    const start = this.i;
    this.out += '[';
    this.i++;
    if (p[this.i] === '^') {
      this.out += '^';
      this.i++;
    }
    // A leading ']' is a literal in RE2.
    if (p[this.i] === ']') {
      this.out += '\\]';
      this.i++;
    }
    while (this.i < p.length) {
      const c = p[this.i]!;
      if (c === ']') {
        this.out += ']';
        this.i++;
        return;
      }
      if (c === '\\') {
        this.escape(true);
        continue;
      }
      if (c === '[') {
        const posix = /^\[:(\^?)([a-z]+):\]/.exec(p.slice(this.i));
        if (posix) {
          const expansion = posixClasses[posix[2]!];
          if (expansion === undefined || posix[1] === '^') fail('invalid character class range', posix[0]);
          this.out += expansion;
          this.i += posix[0].length;
          continue;
        }
        this.out += '\\[';
        this.i++;
        continue;
      }
      this.out += c;
      this.i++;
    }
    fail('missing closing ]', p.slice(start));
  }

  private escape(inClass: boolean): void {
    const p = this.pattern;
    const d = p[this.i + 1];
    if (d === undefined) fail('trailing backslash at end of expression', '');
    const fragment = `\\${d}`;
    this.i += 2;
    switch (d) {
      case 'A':
        if (inClass) fail('invalid escape sequence', fragment);
        this.out += '(?<![\\s\\S])';
        return;
      case 'z':
        if (inClass) fail('invalid escape sequence', fragment);
        this.out += '(?![\\s\\S])';
        return;
      case 'Q': {
        const end = p.indexOf('\\E', this.i);
        const text = end < 0 ? p.slice(this.i) : p.slice(this.i, end);
        this.i = end < 0 ? p.length : end + 2;
        for (const ch of text) this.out += literal(ch, inClass);
        return;
      }
      case 'p':
      case 'P':
        this.unicodeClass(d === 'P');
        return;
      case 'x': {
        const braced = /^\{([0-9A-Fa-f]{1,6})\}/.exec(p.slice(this.i));
        if (braced) {
          this.out += `\\u{${braced[1]}}`;
          this.i += braced[0].length;
          return;
        }
        const two = /^[0-9A-Fa-f]{2}/.exec(p.slice(this.i));
        if (!two) fail('invalid escape sequence', fragment);
        this.out += `\\x${two[0]}`;
        this.i += 2;
        return;
      }
      case 'a':
        this.out += '\\x07';
        return;
      case 'f':
      case 'n':
      case 'r':
      case 't':
      case 'v':
      case 'd':
      case 'D':
      case 's':
      case 'S':
      case 'w':
      case 'W':
        this.out += fragment;
        return;
      case 'b':
      case 'B':
        if (inClass) fail('invalid escape sequence', fragment);
        this.out += fragment;
        return;
    }
    if (/[0-7]/.test(d)) {
      // RE2 reads \0 and two- or three-digit sequences as octal; a lone \1..\7 would be a backreference.
      const octal = /^[0-7]{0,2}/.exec(p.slice(this.i))![0];
      if (d !== '0' && octal === '') fail('invalid escape sequence', fragment);
      this.i += octal.length;
      this.out += `\\u{${Number.parseInt(d + octal, 8).toString(16)}}`;
      return;
    }
    if (d.charCodeAt(0) < 0x80 && !isAsciiAlnum(d)) {
      this.out += literal(d, inClass);
      return;
    }
    fail('invalid escape sequence', fragment);
  }

  private unicodeClass(negatedByCase: boolean): void {
    const p = this.pattern;
    let name: string;
    if (p[this.i] === '{') {
      const end = p.indexOf('}', this.i);
      if (end < 0) fail('invalid character class range', p.slice(this.i - 2));
      name = p.slice(this.i + 1, end);
      this.i = end + 1;
    } else {
      name = p[this.i] ?? '';
      this.i++;
    }
    let negated = negatedByCase;
    if (name.startsWith('^')) {
      negated = !negated;
      name = name.slice(1);
    }
    if (!/^[A-Za-z_]+$/.test(name)) fail('invalid character class range', `\\p{${name}}`);
    const property = generalCategories.has(name) || name === 'Any' ? name : `Script=${name}`;
    this.out += `\\${negated ? 'P' : 'p'}{${property}}`;
  }
}

export function translateGoRegexp(pattern: string): TranslatedRegexp {
  return new Translator(pattern).run();
}

const cache = new Map<string, RegExp | GoRegexpError>();

/** Compiles a Go regular expression into a RegExp; throws GoRegexpError like regexp.Compile would. */
export function compileGoRegexp(pattern: string): RegExp {
  let compiled = cache.get(pattern);
  if (compiled === undefined) {
    try {
      const { source, flags } = translateGoRegexp(pattern);
      compiled = new RegExp(source, flags);
    } catch (err) {
      compiled =
        err instanceof GoRegexpError
          ? err
          : new GoRegexpError(`error parsing regexp: ${(err as Error).message}: \`${pattern}\``);
    }
    if (cache.size > 1000) cache.clear();
    cache.set(pattern, compiled);
  }
  if (compiled instanceof GoRegexpError) throw compiled;
  return compiled;
}

/** Go's regexp.MatchString: an unanchored search. */
export function goRegexpMatches(pattern: string, value: string): boolean {
  const re = compileGoRegexp(pattern);
  re.lastIndex = 0;
  return re.test(value);
}
