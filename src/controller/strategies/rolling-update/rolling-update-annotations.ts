// The Node annotations RollingUpdate owns: the pre-stage ask and when it was made (spec.prestage), the revision a node next
// in line downloads the packages of before its turn. Not a gate: the controller starts the node itself.
// Declared here, collected in ../strategy-annotations.ts, so a pool that leaves RollingUpdate has it
// removed by the marks planner like any other strategy's artefact.

import { PRESTAGE_ASKED_AT_ANNOTATION, PRESTAGE_REVISION_ANNOTATION } from '../../../api/node-protocol.ts';

export const rollingUpdateAnnotations = [
  { key: PRESTAGE_REVISION_ANNOTATION, gate: false },
  // When the ask was made (spec.prestage.timeoutSeconds counts from it); set and removed with the ask.
  { key: PRESTAGE_ASKED_AT_ANNOTATION, gate: false },
] as const;
