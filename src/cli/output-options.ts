// -o/--output and colour settings shared by the commands that print reports.

import { type Command, Option } from 'commander';

export type OutputFormat = 'text' | 'json';

export function addOutputOption(command: Command): Command {
  return command
    .addOption(new Option('-o, --output <format>', 'output format').choices(['text', 'json']).default('text'))
    .option('--no-color', 'no ANSI colours (also when NO_COLOR is set or stdout is not a terminal)');
}

/** Colour only on a terminal, unless --no-color or NO_COLOR say otherwise. */
export function useColor(options: { color?: boolean }): boolean {
  return options.color !== false && process.stdout.isTTY === true && !process.env.NO_COLOR;
}

/** The terminal width, or 0 (no limit) when stdout is not a terminal. */
export function terminalWidth(): number {
  return process.stdout.isTTY ? (process.stdout.columns ?? 100) : 0;
}
