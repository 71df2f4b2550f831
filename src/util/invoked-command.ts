// The command a hint should tell the user to run: the one they are running. From a checkout that is
// `npm run nodeherd -- …` (bin/nodeherd.ts, the TypeScript entry npm scripts start), as a kubectl plugin
// `kubectl nodeherd …` (the checkout's shell entry says so in NODEHERD_INVOKED_AS), otherwise the
// installed `nodeherd`.

import { basename } from 'node:path';

export function invokedCommand(
  script: string | undefined = process.argv[1],
  invokedAs: string | undefined = process.env.NODEHERD_INVOKED_AS,
): string {
  if (invokedAs === 'kubectl nodeherd') return invokedAs;
  const name = basename(script ?? '');
  if (name.startsWith('kubectl-nodeherd') || name.startsWith('kubectl_complete-nodeherd'))
    return 'kubectl nodeherd';
  if (name === 'nodeherd.ts') return 'npm run nodeherd --';
  return 'nodeherd';
}
