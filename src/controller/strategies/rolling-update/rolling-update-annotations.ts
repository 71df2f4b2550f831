// The Node annotation RollingUpdate owns: the pre-stage ask (spec.prestage), the revision a node next
// in line downloads the packages of before its turn. Not a gate: the controller starts the node itself.
// Declared here, collected in ../strategy-annotations.ts, so a pool that leaves RollingUpdate has it
// removed by the marks planner like any other strategy's artefact.

import { PRESTAGE_REVISION_ANNOTATION } from '../../../api/node-protocol.ts';

export const rollingUpdateAnnotations = [{ key: PRESTAGE_REVISION_ANNOTATION, gate: false }] as const;
