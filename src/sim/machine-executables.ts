// Which programs a simulated machine has, so a unit whose ExecStart= names a missing binary fails as on
// a real one (systemd: "Failed to locate executable …", status=203/EXEC). A simulated node is a Debian
// host with the kubelet and containerd packages (merged /usr: /bin is /usr/bin); on top of that, any
// file the agent wrote with an executable bit, and /usr/bin/<name> and /usr/sbin/<name> of every
// package installed through the simulated apt (the simulation does not know packages' file lists).

/** Programs of the base image, /usr paths only (see usrPath). */
const BASE_IMAGE = [
  'bash',
  'cat',
  'chmod',
  'chown',
  'cp',
  'date',
  'dash',
  'echo',
  'env',
  'false',
  'grep',
  'head',
  'kill',
  'ln',
  'logger',
  'ls',
  'mkdir',
  'mv',
  'nice',
  'printf',
  'rm',
  'sed',
  'sh',
  'sleep',
  'stat',
  'tail',
  'tee',
  'test',
  'timeout',
  'touch',
  'true',
  'uname',
  'journalctl',
  'systemctl',
  'systemd-cat',
  'kubelet',
  'containerd',
  'containerd-shim-runc-v2',
  'crictl',
  'runc',
  'iptables',
  'ip',
  'mount',
  'umount',
  'modprobe',
  'sysctl',
].map((name) => `/usr/bin/${name}`);

/** The directories systemd searches for an ExecStart= without a path (systemd ≥ 239). */
const SEARCH_PATH = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin'];

export interface MachineFiles {
  /** The mode of a file on the node; undefined when absent. */
  modeOf(path: string): Promise<number | undefined>;
  /** Packages installed by apt on the node. */
  installedPackages(): string[];
}

/** /bin/x and /sbin/x are /usr/bin/x and /usr/sbin/x on a merged-/usr system. */
function usrPath(path: string): string {
  return path.replace(/^\/(s?bin)\//, '/usr/$1/');
}

/** The absolute path systemd would execute, or undefined when it finds no such program. */
export async function locateExecutable(program: string, machine: MachineFiles): Promise<string | undefined> {
  const candidates = program.startsWith('/') ? [program] : SEARCH_PATH.map((dir) => `${dir}/${program}`);
  const packaged = new Set(
    machine.installedPackages().flatMap((name) => [`/usr/bin/${name}`, `/usr/sbin/${name}`]),
  );
  for (const candidate of candidates) {
    const usr = usrPath(candidate);
    if (BASE_IMAGE.includes(usr) || packaged.has(usr)) return candidate;
    const mode = (await machine.modeOf(candidate)) ?? (await machine.modeOf(usr));
    if (mode !== undefined && (mode & 0o111) !== 0) return candidate;
  }
  return undefined;
}
