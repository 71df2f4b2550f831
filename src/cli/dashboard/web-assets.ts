// The dashboard page's script (web/app.ts bundled for the browser, build-page-script.ts). From a
// clone it is bundled on first use; in the installed CLI, src/dist/build-cli.ts has put the prebuilt
// script in place of this module.

import { buildDashboardScript } from './build-page-script.ts';

let script: Promise<string> | undefined;

export function dashboardScript(): Promise<string> {
  script ??= buildDashboardScript().catch((error: Error) => {
    script = undefined;
    throw new Error(
      `cannot bundle the dashboard page's script (${error.message}); run from a clone with its devDependencies, or the built CLI`,
    );
  });
  return script;
}
