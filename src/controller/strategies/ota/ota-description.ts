// OTA as the CLI describes it: each node's owner pulls the update through the agent's local API, so
// the plan is an offer, and `nodeherd upgrade` does not apply.

import type { StrategyDescription } from '../strategy-description.ts';

export const otaDescription: StrategyDescription = {
  detail() {
    return "updates pulled by each node's owner";
  },

  plan({ newNumber }) {
    return {
      batches: [],
      notes: [
        `revision ${newNumber} is offered to each node's owner (nodeherd.io/available-revision); a node updates when its owner asks the agent's local API (POST /v1/update), with the action below`,
      ],
    };
  },

  updatesWhenAsked: true,

  notOnDemand(pool) {
    return `pool ${pool} uses the OTA strategy: each node's owner pulls the update through the agent's local API (POST /v1/update on the node; with nodeherd up: POST http://127.0.0.1:9469/nodes/<node>/v1/update), not through nodeherd upgrade`;
  },
};
