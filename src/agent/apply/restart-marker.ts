// A reboot or a restart of the agent itself ends the process that asked for it, so it cannot be
// journaled as done afterwards, and journaling it before would skip it forever if the process died
// first. Instead the request is recorded here, with the boot id, before it is made; on the next run
// the marker tells: a different boot id means the reboot happened; a self-restart marker means this
// process is the restarted one (the unit file and binary were written before, so whatever process
// runs now runs them).

import { JsonRecordFile, recordOf } from './json-record-file.ts';

const RESTART_MARKER_FILE = 'restart-requested.json';

export interface RestartMarker {
  revisionHash: string;
  actionId: string;
  kind: 'reboot' | 'self';
  bootId: string;
  /** Epoch ms. */
  requestedAt: number;
}

const isRestartMarker = recordOf<RestartMarker>({
  revisionHash: 'string',
  actionId: 'string',
  kind: ['reboot', 'self'],
  bootId: 'string',
  requestedAt: 'number',
});

export class RestartMarkerStore {
  private readonly file: JsonRecordFile<RestartMarker>;

  constructor(stateDir: string) {
    this.file = new JsonRecordFile(stateDir, RESTART_MARKER_FILE, isRestartMarker);
  }

  read(): Promise<RestartMarker | undefined> {
    return this.file.read();
  }

  write(marker: RestartMarker): Promise<void> {
    return this.file.write(marker);
  }

  clear(): Promise<void> {
    return this.file.remove();
  }
}
