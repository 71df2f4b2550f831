// Moved to src/nspawn/rootfs.ts (nodeherd up --nspawn uses it too); kept for the benchmarks that import it from here.
export * from '../../../src/nspawn/rootfs.ts';
