// The nodeherd command line. Each subcommand lives in its own file; this one only assembles them, and
// loads only the one the user runs: `nodeherd status` must not pay for loading the API server, the
// controller and the local cluster (`--help`, `help` and completion load them all).

import { Command } from 'commander';
import { buildVersion } from '../util/build-info.ts';

/** Every subcommand, in the order `--help` lists them, loaded on demand. */
const COMMANDS: Record<string, () => Promise<Command>> = {
  apiserver: async () => (await import('./apiserver-command.ts')).apiserverCommand(),
  token: async () => (await import('./token-command.ts')).tokenCommand(),
  status: async () => (await import('./status/status-command.ts')).statusCommand(),
  plan: async () => (await import('./plan/plan-command.ts')).planCommand(),
  pause: async () => (await import('./pause-command.ts')).pauseCommand(),
  resume: async () => (await import('./pause-command.ts')).resumeCommand(),
  rollback: async () => (await import('./rollback-command.ts')).rollbackCommand(),
  upgrade: async () => (await import('./upgrade-command.ts')).upgradeCommand(),
  dashboard: async () => (await import('./dashboard/dashboard-command.ts')).dashboardCommand(),
  up: async () => (await import('./up-command.ts')).upCommand(),
  completion: async () => (await import('./completion-command.ts')).completionCommand(nodeherdProgram),
};

/**
 * The command tree (also what `nodeherd completion` completes): every command, or only `only` when it
 * names one (what running it needs).
 */
export async function nodeherdProgram(only?: string): Promise<Command> {
  const program = new Command('nodeherd')
    .description('Declarative OS configuration for Kubernetes nodes, rolled out across the fleet safely')
    .version(buildVersion, '-V, --version', 'print the version of nodeherd')
    .showHelpAfterError()
    .enablePositionalOptions();
  const names = only !== undefined && Object.hasOwn(COMMANDS, only) ? [only] : Object.keys(COMMANDS);
  const commands = await Promise.all(names.map((name) => COMMANDS[name]!()));
  for (const command of commands) program.addCommand(command);
  return program;
}

/** argv[2] that asks for completions (cobra's name, which kubectl's plugin completion uses). */
export const COMPLETE_REQUEST = '__complete';

export async function main(argv: string[]): Promise<void> {
  if (argv[2] === COMPLETE_REQUEST) {
    const { completeWithNames } = await import('./completion-command.ts');
    const { listNames } = await import('./completion-names.ts');
    const words = argv.slice(3);
    // Past the command's name only that command's tree is needed (loading every command takes a second).
    const program = await nodeherdProgram(words.length > 1 ? words[0] : undefined);
    process.stdout.write(await completeWithNames(program, words, listNames));
    return;
  }
  await (await nodeherdProgram(argv[2])).parseAsync(argv);
}
