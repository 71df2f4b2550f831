// nodeherd's profile of the generic API server: the nodeherd.io CRDs and their validators, the
// Secrets an agent may read because its revisions reference them, and the agent artefacts served to
// nodeherd-init. It lives outside src/api and src/apiserver because it is the one place that knows
// both: src/api stays the contract (no server code), src/apiserver stays generic (no nodeherd code).

import { customResourceDefinitions } from '../api/crds.ts';
import { basePolicyObjects } from '../api/deploy-manifests.ts';
import { GROUP, type Kind, NAMESPACE, RESOURCES, VERSION } from '../api/group.ts';
import { validators } from '../api/validation.ts';
import type { ApiServerProfile } from '../apiserver/profile.ts';
import type { KubeObject } from '../apiserver/storage/types.ts';
import { createArtefactHandler } from '../dist/artefact-server.ts';
import { NODEHERD_NODE_ADMISSION } from './agent-admission.ts';
import { NODEHERD_AUTHORIZATION } from './nodeherd-authorization.ts';
import { NODEHERD_IDENTITY_NAMES } from './nodeherd-identities.ts';
import { revisionsOfNode, revisionsReferenceSecret } from './referenced-secrets.ts';

export interface NodeherdProfileOptions {
  /** Directory of the built agent artefacts, served at /nodeherd/agent/ for nodeherd-init (public: checksummed). */
  artefactDirectory?: string;
}

export function nodeherdProfile(options: NodeherdProfileOptions = {}): ApiServerProfile {
  const artefacts = options.artefactDirectory
    ? createArtefactHandler({ directory: options.artefactDirectory })
    : undefined;
  return {
    customResourceDefinitions,
    namespaces: [NAMESPACE],
    // deploy/'s RBAC and the agents' admission policy: the same objects `kubectl apply -k deploy/` applies.
    bootstrapPolicy: () => basePolicyObjects() as KubeObject[],
    identities: NODEHERD_IDENTITY_NAMES,
    authorization: NODEHERD_AUTHORIZATION,
    nodeAdmission: NODEHERD_NODE_ADMISSION,
    validate(def, object, old) {
      return def.group === GROUP && Object.hasOwn(validators, def.kind)
        ? validators[def.kind as Kind](object, old)
        : [];
    },
    // An agent may GET a Secret that a revision of its own Node references (see referenced-secrets.ts).
    allowsDespiteRules(identity, request, lookup) {
      if (identity.kind !== 'node' || identity.nodeName === undefined) return false;
      if (
        request.group !== '' ||
        request.resource !== 'secrets' ||
        request.verb !== 'get' ||
        request.subresource !== undefined
      )
        return false;
      if (request.namespace === undefined || request.name === undefined) return false;
      const revisions = revisionsOfNode(lookup('', 'v1', 'nodes', undefined, identity.nodeName), {
        revision: (name) => lookup(GROUP, VERSION, RESOURCES.NodeConfigRevision.plural, undefined, name),
        pool: (name) => lookup(GROUP, VERSION, RESOURCES.NodeConfigPool.plural, undefined, name),
      });
      return revisionsReferenceSecret(revisions, request.namespace, request.name);
    },
    // The agent artefact is public: nodeherd-init verifies it against the checksum it was given.
    ...(artefacts ? { route: artefacts } : {}),
  };
}
