// Plain-text tables and bars for terminal output. Widths are counted without ANSI colour codes, so
// coloured cells line up; lines are cut to the terminal width.

const ANSI = /\u001b\[[0-9;]*m/g;

export function visibleLength(text: string): number {
  return text.replace(ANSI, '').length;
}

/** Cuts a line to `width` visible characters, ending with … when cut (colour is reset). */
export function truncate(text: string, width: number): string {
  if (width <= 0 || visibleLength(text) <= width) return text;
  let out = '';
  let visible = 0;
  for (let i = 0; i < text.length; ) {
    ANSI.lastIndex = i;
    const match = ANSI.exec(text);
    if (match && match.index === i) {
      out += match[0];
      i += match[0].length;
      continue;
    }
    if (visible === width - 1) break;
    out += text[i];
    visible++;
    i++;
  }
  return `${out}…${text.includes('\u001b[') ? '\u001b[0m' : ''}`;
}

function pad(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - visibleLength(text)));
}

/** Rows of cells as aligned columns separated by two spaces; the last column is not padded. */
export function table(rows: readonly (readonly string[])[], indent = ''): string[] {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, visibleLength(cell));
    });
  }
  return rows.map(
    (row) =>
      indent +
      row
        .map((cell, i) => (i === row.length - 1 ? cell : pad(cell, widths[i]!)))
        .join('  ')
        .trimEnd(),
  );
}

/** A progress bar of `width` cells: `[█████░░░░░]`. */
export function bar(done: number, total: number, width: number): string {
  const cells = Math.max(1, width);
  const filled = total > 0 ? Math.round((Math.min(done, total) / total) * cells) : 0;
  return `[${'█'.repeat(filled)}${'░'.repeat(cells - filled)}]`;
}

export interface Palette {
  bold(text: string): string;
  dim(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  red(text: string): string;
}

const wrap = (open: number, close: number) => (text: string) => `\u001b[${open}m${text}\u001b[${close}m`;

export function palette(color: boolean): Palette {
  if (!color) {
    const same = (text: string) => text;
    return { bold: same, dim: same, green: same, yellow: same, red: same };
  }
  return {
    bold: wrap(1, 22),
    dim: wrap(2, 22),
    green: wrap(32, 39),
    yellow: wrap(33, 39),
    red: wrap(31, 39),
  };
}
