// The nodeherd command line. Each subcommand lives in its own file; this one only assembles them.

import { Command } from 'commander';
import { buildVersion } from '../util/build-info.ts';
import { apiserverCommand } from './apiserver-command.ts';
import { completionCommand, kubectlCompletion } from './completion-command.ts';
import { dashboardCommand } from './dashboard/dashboard-command.ts';
import { pauseCommand, resumeCommand } from './pause-command.ts';
import { planCommand } from './plan/plan-command.ts';
import { rollbackCommand } from './rollback-command.ts';
import { statusCommand } from './status/status-command.ts';
import { tokenCommand } from './token-command.ts';
import { upgradeCommand } from './upgrade-command.ts';

/** The whole command tree (also what `nodeherd completion` completes). */
export async function nodeherdProgram(): Promise<Command> {
  const program = new Command('nodeherd')
    .description('Declarative OS configuration for Kubernetes nodes, rolled out across the fleet safely')
    .version(buildVersion, '-V, --version', 'print the version of nodeherd')
    .showHelpAfterError()
    .enablePositionalOptions();
  program.addCommand(apiserverCommand());
  program.addCommand(tokenCommand());
  program.addCommand(statusCommand());
  program.addCommand(planCommand());
  program.addCommand(pauseCommand());
  program.addCommand(resumeCommand());
  program.addCommand(rollbackCommand());
  program.addCommand(upgradeCommand());
  program.addCommand(dashboardCommand());
  program.addCommand((await import('./up-command.ts')).upCommand());
  program.addCommand(completionCommand(nodeherdProgram));
  return program;
}

/** argv[2] that asks for completions (cobra's name, which kubectl's plugin completion uses). */
export const COMPLETE_REQUEST = '__complete';

export async function main(argv: string[]): Promise<void> {
  if (argv[2] === COMPLETE_REQUEST) {
    process.stdout.write(kubectlCompletion(await nodeherdProgram(), argv.slice(3)));
    return;
  }
  await (await nodeherdProgram()).parseAsync(argv);
}
