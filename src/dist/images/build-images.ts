// `npm run images`: the OCI images of the controller and of the agent, FROM scratch, from this
// repository's own build (esbuild bundles) and files of the build host's Debian packages (the pinned
// Node binary's libraries from libc6/libstdc++6/libgcc-s1, CA certificates, nsenter from util-linux
// for the agent's DaemonSet mode). No base image and no registry: Debian's buildah builds each one
// (`--storage-driver vfs bud --isolation chroot`, what works on hosts without a container runtime) and
// pushes it into an OCI layout under dist/images/, from which `buildah push`/`skopeo copy` takes it to
// a registry, and `umoci unpack` to a directory (the image test runs it that way).
//
//   node src/dist/images/build-images.ts [--only controller|agent] [--out-dir dist/images] [--tag X]
//
// Needs root (buildah's vfs storage in /var/lib/containers), buildah, ldd, strip and dpkg-query.

import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { CONTROLLER_IMAGE_PLACEHOLDER, controllerArgs } from '../../api/deploy-manifests.ts';
import { onPath } from '../../nspawn/host.ts';
import { AGENT_NODE_FLAGS, bundleAgent, REPO_ROOT } from '../build-agent.ts';
import { manifestDigest, type PinnedImage, writeDigestOverlay } from './digest-overlay.ts';
import { buildRootfs } from './rootfs.ts';

const execFileAsync = promisify(execFile);

export const IMAGE_KINDS = ['controller', 'agent'] as const;
export type ImageKind = (typeof IMAGE_KINDS)[number];
export const DEFAULT_IMAGES_DIR = join(REPO_ROOT, 'dist', 'images');
/** buildah's storage: vfs copies instead of overlay mounts, which these hosts cannot do in containers. */
export const BUILDAH_STORAGE = ['--storage-driver', 'vfs'];
/** The controller runs as this non-root user, as the Deployment's securityContext says. */
export const NONROOT_UID = 65532;
const NODE_IN_IMAGE = '/usr/local/bin/node';

/**
 * Node's flags in the controller's entrypoint. A young generation of 2 MB semi-spaces instead of V8's
 * 16 MB: a reconcile of a pool of thousands of nodes allocates snapshots of every node, and with the
 * default the heap grew to 235 MB around 40-100 MB of live objects; at 5,000 nodes the peak RSS
 * fell from 369 to 227 MB without slowing the rollout (issue 17; bench/controller-memory.bench.ts).
 * And a heap limit of 1.5 times what the last full GC left live instead of V8's adaptive factor
 * (up to 4): the heap stood at 120 MB around 40-60 MB live, the peak fell from 251-258 to 153-155 MB
 * for a few percent more CPU, pool reconciles as fast within the noise (docs/controller.md, Memory).
 */
export const CONTROLLER_NODE_FLAGS = ['--max-semi-space-size=2', '--heap-growing-percent=50'];
const APP_DIR = '/opt/nodeherd';

export interface ImageSpec {
  kind: ImageKind;
  /** e.g. nodeherd/nodeherd-controller (buildah stores it as localhost/nodeherd/…). */
  name: string;
  description: string;
  entry: string;
  bundle: string;
  /** Extra executables (with their libraries) from the host. */
  executables: Array<{ from: string; to: string }>;
  user: number;
  cmd: string[];
  /** Node's own flags, before the bundle in the entrypoint. */
  nodeFlags: readonly string[];
}

export function imageSpecs(): Record<ImageKind, ImageSpec> {
  return {
    controller: {
      kind: 'controller',
      name: CONTROLLER_IMAGE_PLACEHOLDER,
      description: 'nodeherd rollout controller: renders NodeConfigPools into revisions and rolls them out',
      entry: join(REPO_ROOT, 'bin/nodeherd-controller.ts'),
      bundle: 'nodeherd-controller.mjs',
      executables: [],
      user: NONROOT_UID,
      // The Deployment's own flags: the image alone runs as the manifests run it.
      cmd: controllerArgs(),
      nodeFlags: CONTROLLER_NODE_FLAGS,
    },
    agent: {
      kind: 'agent',
      name: 'nodeherd/nodeherd-agent',
      description: 'nodeherd node agent: applies NodeConfigRevisions to the node it runs on',
      entry: join(REPO_ROOT, 'bin/nodeherd-agent.ts'),
      bundle: 'nodeherd-agent.mjs',
      // In DaemonSet mode the agent reaches the host's systemd and apt through PID 1's namespaces.
      executables: [{ from: '/usr/bin/nsenter', to: '/usr/bin/nsenter' }],
      // It manages the host: root, in a privileged pod.
      user: 0,
      // No default arguments: the DaemonSet configures the agent through its environment.
      cmd: [],
      // As nodeherd-init.sh's unit runs it: the pod idles on every node just the same.
      nodeFlags: AGENT_NODE_FLAGS,
    },
  };
}

export interface BuiltImage {
  kind: ImageKind;
  /** name:tag as given to buildah. */
  reference: string;
  /** OCI layout directory holding the image under `tag`. */
  ociLayout: string;
  tag: string;
  /** Bytes of the unpacked file system. */
  rootfsBytes: number;
  /** Bytes of the gzip-compressed layer: what a registry stores and a node pulls. */
  layerBytes: number;
  bundleBytes: number;
  packages: string[];
  seconds: number;
}

/** Why images cannot be built here, or undefined when they can. */
export function imageBuildUnavailableReason(): string | undefined {
  if (process.getuid?.() !== 0) return 'building images needs root (buildah vfs storage)';
  const missing = ['buildah', 'umoci', 'ldd', 'strip', 'dpkg-query'].filter((tool) => !onPath(tool));
  if (missing.length > 0) return `missing ${missing.join(', ')} (apt-get install buildah umoci binutils)`;
  return undefined;
}

async function packageVersion(): Promise<string> {
  const pkg = JSON.parse(await readFile(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
  return pkg.version;
}

async function gitRevision(): Promise<string | undefined> {
  try {
    const { stdout } = await execFileAsync('git', ['-C', REPO_ROOT, 'rev-parse', 'HEAD']);
    return stdout.trim();
  } catch {
    return undefined;
  }
}

function containerfile(spec: ImageSpec, labels: Record<string, string>): string {
  const json = (value: unknown) => JSON.stringify(value);
  return [
    '# Generated by src/dist/images/build-images.ts: the rootfs/ beside it is the whole image.',
    'FROM scratch',
    'COPY rootfs/ /',
    ...Object.entries(labels).map(([key, value]) => `LABEL ${key}=${json(value)}`),
    `USER ${spec.user}:${spec.user}`,
    'WORKDIR /',
    'ENV NODE_ENV=production',
    `ENTRYPOINT ${json([NODE_IN_IMAGE, ...spec.nodeFlags, `${APP_DIR}/${spec.bundle}`])}`,
    ...(spec.cmd.length > 0 ? [`CMD ${json(spec.cmd)}`] : []),
    '',
  ].join('\n');
}

async function buildah(args: string[]): Promise<string> {
  const { stdout } = await execFileAsync('buildah', [...BUILDAH_STORAGE, ...args], {
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout;
}

/** The ID of the image `reference` names in buildah's storage, if any. */
async function imageId(reference: string): Promise<string | undefined> {
  try {
    return (await buildah(['inspect', '--type', 'image', '--format', '{{.FromImageID}}', reference])).trim();
  } catch {
    return undefined;
  }
}

/** The size of the image's layer blob(s) in an OCI layout (compressed, as a registry stores them). */
async function layerBytes(layout: string, tag: string): Promise<number> {
  const blob = async (digest: string) =>
    JSON.parse(await readFile(join(layout, 'blobs', ...digest.split(':')), 'utf8')) as Record<string, any>;
  const index = JSON.parse(await readFile(join(layout, 'index.json'), 'utf8')) as Record<string, any>;
  const entry = (index.manifests as Array<Record<string, any>>).find(
    (m) => m.annotations?.['org.opencontainers.image.ref.name'] === tag,
  );
  if (!entry) throw new Error(`${layout}: no image tagged ${tag}`);
  const manifest = await blob(entry.digest);
  return (manifest.layers as Array<{ size: number }>).reduce((sum, layer) => sum + layer.size, 0);
}

export async function buildImage(
  spec: ImageSpec,
  options: { outDir?: string; tag?: string } = {},
): Promise<BuiltImage> {
  const started = performance.now();
  const version = await packageVersion();
  const tag = options.tag ?? version;
  const outDir = resolve(options.outDir ?? DEFAULT_IMAGES_DIR);
  const work = await mkdtemp(join(tmpdir(), `nodeherd-image-${spec.kind}-`));
  try {
    // The agent's bundle is the one nodeherd-init installs (src/dist/build-agent.ts); the controller's is
    // built the same way: one ES module with every dependency inside, no node_modules in the image.
    const bundlePath = join(work, spec.bundle);
    const bundle = await bundleAgent({
      entry: spec.entry,
      outFile: bundlePath,
      version,
      minify: true,
      name: `nodeherd-${spec.kind}`,
    });
    const rootfs = await buildRootfs(join(work, 'rootfs'), {
      executables: [{ from: process.execPath, to: NODE_IN_IMAGE, strip: true }, ...spec.executables],
      files: [{ from: bundlePath, to: `${APP_DIR}/${spec.bundle}` }],
      users: spec.user === 0 ? [] : [{ name: 'nonroot', uid: spec.user, home: '/nonexistent' }],
    });
    // What the image is made of, inside it (an SBOM in its simplest form).
    const packageList = join(rootfs.dir, 'usr/share/doc/nodeherd/debian-packages.txt');
    await mkdir(join(rootfs.dir, 'usr/share/doc/nodeherd'), { recursive: true });
    await writeFile(packageList, `${rootfs.packages.join('\n')}\n`);

    const revision = await gitRevision();
    const labels: Record<string, string> = {
      'org.opencontainers.image.title': `nodeherd-${spec.kind}`,
      'org.opencontainers.image.description': spec.description,
      'org.opencontainers.image.version': version,
      'org.opencontainers.image.licenses': 'Apache-2.0',
      'org.opencontainers.image.vendor': 'nodeherd',
      ...(revision ? { 'org.opencontainers.image.revision': revision } : {}),
      'org.opencontainers.image.base.name': 'scratch',
      'io.nodeherd.node.version': process.version,
    };
    await writeFile(join(work, 'Containerfile'), containerfile(spec, labels));
    const reference = `${spec.name}:${tag}`;
    const previous = await imageId(reference);
    await buildah([
      'bud',
      '--isolation',
      'chroot',
      '--omit-history',
      '--identity-label=false',
      '--quiet',
      '-t',
      reference,
      '-f',
      join(work, 'Containerfile'),
      work,
    ]);
    // The image this name had before is now untagged: remove it, or every rebuild keeps ~100 MB.
    if (previous && previous !== (await imageId(reference))) await buildah(['rmi', previous]).catch(() => '');
    const ociLayout = join(outDir, `nodeherd-${spec.kind}`);
    await mkdir(ociLayout, { recursive: true });
    await buildah(['push', '--quiet', '--compression-format', 'gzip', reference, `oci:${ociLayout}:${tag}`]);
    return {
      kind: spec.kind,
      reference,
      ociLayout,
      tag,
      rootfsBytes: rootfs.bytes,
      layerBytes: await layerBytes(ociLayout, tag),
      bundleBytes: bundle.size,
      packages: rootfs.packages,
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

export async function buildImages(
  kinds: readonly ImageKind[] = IMAGE_KINDS,
  options: { outDir?: string; tag?: string } = {},
): Promise<BuiltImage[]> {
  const specs = imageSpecs();
  const built: BuiltImage[] = [];
  for (const kind of kinds) built.push(await buildImage(specs[kind], options));
  return built;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      only: { type: 'string' },
      'out-dir': { type: 'string' },
      tag: { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    process.stdout.write(
      'Usage: node src/dist/images/build-images.ts [--only controller|agent] [--out-dir dist/images] [--tag X]\n',
    );
    return;
  }
  if (values.only !== undefined && !(IMAGE_KINDS as readonly string[]).includes(values.only)) {
    throw new Error(`--only: must be one of ${IMAGE_KINDS.join(', ')}, got ${JSON.stringify(values.only)}`);
  }
  const unavailable = imageBuildUnavailableReason();
  if (unavailable) throw new Error(unavailable);
  const kinds = values.only ? [values.only as ImageKind] : IMAGE_KINDS;
  const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
  const built = await buildImages(kinds, {
    ...(values['out-dir'] ? { outDir: values['out-dir'] } : {}),
    ...(values.tag ? { tag: values.tag } : {}),
  });
  const pinned: PinnedImage[] = [];
  for (const image of built) {
    pinned.push({
      name: image.reference.slice(0, image.reference.lastIndexOf(':')),
      digest: await manifestDigest(image.ociLayout, image.tag),
      agent: image.kind === 'agent',
    });
  }
  const overlay = await writeDigestOverlay(
    resolve(values['out-dir'] ?? DEFAULT_IMAGES_DIR),
    join(REPO_ROOT, 'deploy'),
    pinned,
  );
  process.stdout.write(`overlay pinning these digests: ${overlay}\n`);
  for (const image of built) {
    process.stdout.write(
      `${image.reference}  ${mb(image.layerBytes)} compressed, ${mb(image.rootfsBytes)} unpacked, built in ${image.seconds.toFixed(0)} s\n` +
        `  oci:${image.ociLayout}:${image.tag}   (buildah push ${image.reference} docker://<registry>/…)\n`,
    );
  }
}

if (import.meta.main) {
  main().catch((error: Error) => {
    process.stderr.write(`build-images: ${error.message}\n`);
    process.exit(1);
  });
}
