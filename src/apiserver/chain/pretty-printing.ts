// Every JSON answer from here on, errors included, is indented when the client asks (kube's `pretty`, or
// a browser or curl: query-params.ts). The issuer documents before it never are, as before the chain.

import { prettyPrintRequested } from '../http/query-params.ts';
import { answerPretty } from '../http/respond.ts';
import type { RequestStage } from './request-chain.ts';

export function prettyPrinting(): RequestStage {
  return {
    name: 'pretty printing',
    handle(request, next) {
      if (prettyPrintRequested(request.url.searchParams, request.req.headers['user-agent']))
        answerPretty(request.res);
      return next();
    },
  };
}
