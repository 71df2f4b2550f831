// OTA's marks: nodes not on the target are offered it (available-revision); desired-revision is the
// node owner's to write, except for a joining node, which gets the target at once.

import { AVAILABLE_REVISION_ANNOTATION } from '../../../api/node-protocol.ts';
import { bootstrap, type StrategyMarks } from '../node-marks.ts';

export const otaMarks: StrategyMarks = (input) => {
  const T = input.target.name;
  return (node) => {
    const joining = bootstrap(node, T);
    if (joining) return { ...joining, releaseDrain: true };
    const offered = node.current !== undefined && node.current !== T;
    return { annotations: offered ? { [AVAILABLE_REVISION_ANNOTATION]: T } : {}, releaseDrain: true };
  };
};
