// The command line systemd would run for a simulated unit, read from its loaded definition (unit file
// plus drop-ins, in order): the last ExecStart= after any reset by an empty `ExecStart=`, the variables
// of Environment= and EnvironmentFile= (files override Environment=, later lines earlier ones), and
// systemd's expansion ($VAR alone is split into words, ${VAR} is not; unset variables are empty).
// This is how a drop-in like `Environment="KUBELET_CONFIG_ARGS=--config=…"` reaches the simulated
// kubelet's flags, and how a unit naming a missing binary is found. Pure: the caller reads files.

export interface UnitCommandLine {
  /** The program, without systemd's prefixes (-, @, :, +, !). */
  executable: string;
  /** Arguments after expansion, without argv[0]. */
  args: string[];
}

export interface ServiceDefinition {
  /** Type= of [Service] (default simple). */
  type: string;
  command: UnitCommandLine | undefined;
}

/** Reads an EnvironmentFile= (undefined: missing). */
export type EnvironmentFileReader = (path: string) => Promise<string | undefined>;

interface Directive {
  section: string;
  key: string;
  value: string;
}

/** The [Service] directives of a definition, continuation lines joined, comments dropped. */
function directives(definition: string): Directive[] {
  const result: Directive[] = [];
  let section = '';
  const lines = definition.replace(/\\\n/g, ' ').split('\n');
  for (const raw of lines) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      section = header[1]!;
      continue;
    }
    const eq = line.indexOf('=');
    if (eq <= 0) continue;
    result.push({ section, key: line.slice(0, eq).trim(), value: line.slice(eq + 1).trim() });
  }
  return result;
}

/** Words of a systemd command line or Environment= value, with quotes removed. */
export function splitWords(text: string): string[] {
  const words: string[] = [];
  let current = '';
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === '\\' && quote === '"' && i + 1 < text.length) current += text[++i];
      else current += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(current);
      current = '';
      inWord = false;
    } else if (c === '\\' && i + 1 < text.length) {
      current += text[++i];
      inWord = true;
    } else {
      current += c;
      inWord = true;
    }
  }
  if (inWord) words.push(current);
  return words;
}

/** KEY=VALUE lines of an environment file (comments and blank lines skipped, quotes removed). */
export function parseEnvironmentFile(text: string): Record<string, string> {
  const variables: Record<string, string> = {};
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const eq = line.indexOf('=');
    if (eq <= 0) continue;
    const key = line.slice(0, eq).trim();
    const value = line.slice(eq + 1).trim();
    variables[key] = /^(["']).*\1$/.test(value) ? value.slice(1, -1) : value;
  }
  return variables;
}

/** The service's type and the command line systemd would start, with its environment expanded. */
export async function serviceDefinition(
  definition: string,
  readEnvironmentFile: EnvironmentFileReader,
): Promise<ServiceDefinition> {
  const service = directives(definition).filter((d) => d.section === 'Service');
  const environment: Record<string, string> = {};
  const fromFiles: Record<string, string> = {};
  let execStart: string | undefined;
  let type = 'simple';
  for (const { key, value } of service) {
    if (key === 'Type') type = value || 'simple';
    else if (key === 'ExecStart') execStart = value === '' ? undefined : value;
    else if (key === 'Environment') {
      for (const word of splitWords(value)) {
        const eq = word.indexOf('=');
        if (eq > 0) environment[word.slice(0, eq)] = word.slice(eq + 1);
      }
    } else if (key === 'EnvironmentFile') {
      const optional = value.startsWith('-');
      const path = optional ? value.slice(1) : value;
      const text = await readEnvironmentFile(path);
      // A missing file that is not optional fails the start in systemd; here the command is absent.
      if (text === undefined && !optional) return { type, command: undefined };
      Object.assign(fromFiles, parseEnvironmentFile(text ?? ''));
    }
  }
  if (execStart === undefined) return { type, command: undefined };
  const variables = { ...environment, ...fromFiles };
  const words: string[] = [];
  for (const word of splitWords(execStart)) {
    const alone = /^\$([A-Za-z_][A-Za-z0-9_]*)$/.exec(word);
    if (alone) {
      words.push(...splitWords(variables[alone[1]!] ?? ''));
      continue;
    }
    words.push(word.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => variables[name] ?? ''));
  }
  const [program, ...args] = words;
  if (program === undefined) return { type, command: undefined };
  return { type, command: { executable: program.replace(/^[-@:+!]+/, ''), args } };
}

/** The value of a command-line flag, as pflag reads it (--name=value or --name value); last wins. */
export function flagValue(args: readonly string[], name: string): string | undefined {
  let value: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg.startsWith(`--${name}=`)) value = arg.slice(name.length + 3);
    else if (arg === `--${name}` && i + 1 < args.length) value = args[++i];
  }
  return value;
}
