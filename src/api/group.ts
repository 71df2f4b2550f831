// The nodeherd.io API group: names every part of the system agrees on.

export const GROUP = 'nodeherd.io';
export const VERSION = 'v1alpha1';
export const API_VERSION = `${GROUP}/${VERSION}`;
/** The namespace nodeherd's own namespaced objects live in: the controller, Serial slot and leader Leases. */
export const NAMESPACE = 'nodeherd';
/**
 * The only namespace whose Secrets nodeherd reads (NodeConfig files' secretRef, health gates'
 * credentialsSecretRef, any reference added later). Fixed when the CRDs and manifests are generated, so
 * the CRD schema itself refuses a reference elsewhere and the controller's Role covers only it: whoever
 * may write a NodeConfig or a pool reaches no Secret outside it (issue 31, docs/security.md).
 */
export const SECRETS_NAMESPACE = NAMESPACE;

export const KINDS = ['NodeConfig', 'NodeConfigPool', 'NodeConfigRevision'] as const;
export type Kind = (typeof KINDS)[number];

export interface ResourceNames {
  kind: Kind;
  listKind: string;
  plural: string;
  singular: string;
  shortNames: string[];
}

export const RESOURCES: Record<Kind, ResourceNames> = {
  NodeConfig: {
    kind: 'NodeConfig',
    listKind: 'NodeConfigList',
    plural: 'nodeconfigs',
    singular: 'nodeconfig',
    shortNames: ['ncfg'],
  },
  NodeConfigPool: {
    kind: 'NodeConfigPool',
    listKind: 'NodeConfigPoolList',
    plural: 'nodeconfigpools',
    singular: 'nodeconfigpool',
    shortNames: ['ncp', 'np'],
  },
  NodeConfigRevision: {
    kind: 'NodeConfigRevision',
    listKind: 'NodeConfigRevisionList',
    plural: 'nodeconfigrevisions',
    singular: 'nodeconfigrevision',
    shortNames: ['ncr'],
  },
};

/** `kubectl get nodeherd` lists all three. */
export const CATEGORY = 'nodeherd';
