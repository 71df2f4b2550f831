// systemctl, apt-get and dpkg-query act on the live system, whatever directory the executor writes
// its files to. When the root directory is not '/', running them would change a different system
// than the files describe (in a test: the developer's own machine), so they are refused unless the
// caller says both are the same system (`allowLiveCommands`, e.g. the live rootfs mounted elsewhere).

export class LiveSystemRefusedError extends Error {
  constructor(tool: string, rootDir: string) {
    super(
      `refusing to run ${tool}: files go to ${rootDir}, but ${tool} acts on the live system ` +
        '(set allowLiveCommands if they are the same system)',
    );
    this.name = 'LiveSystemRefusedError';
  }
}

export function assertLiveCommandsAllowed(tool: string, rootDir: string, allowLiveCommands: boolean): void {
  if (rootDir !== '/' && !allowLiveCommands) throw new LiveSystemRefusedError(tool, rootDir);
}
