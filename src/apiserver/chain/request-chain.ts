// The request path of the API server as a chain of named stages, in the spirit of kube-apiserver's
// handler chain (WithAuthentication, WithImpersonation, WithPriorityAndFairness, WithAuthorization,
// then admission and the REST handler). Each stage sees the request, then answers it, refuses it (throws
// an ApiError) or passes it on with next(); it may act after next() returns (a fairness seat is given
// back there). The order is written once, in the composition (../composition.ts), and explained in
// docs/apiserver.md: a new stage is one file here and one line there.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Identity } from '../auth/identities.ts';
import { readBody } from '../http/body.ts';
import { parseRequestInfo, type RequestInfo, type ResourceRequestInfo } from '../http/request-info.ts';
import type { Admit } from '../objects/object-service.ts';
import type { ResourceDefinition } from '../registry/resource-definition.ts';

/** One stage of the request path. */
export interface RequestStage {
  /** How docs/apiserver.md names the stage, e.g. "authentication" (a test holds the page to it). */
  readonly name: string;
  /** Answers the request, throws to refuse it, or calls next() to pass it on (at most once). */
  handle(request: ApiRequest, next: () => Promise<void>): Promise<void>;
}

/** One request as it goes down the chain: what it is, and what stages have found out about it. */
export class ApiRequest {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  /** Who sent it: set by authentication (stages before it see undefined). */
  identity: Identity | undefined;
  /** Who authenticated, when the request impersonates another user (set by impersonation). */
  impersonator: Identity | undefined;
  /** The resource a resource request addresses: set by resource resolution. */
  resource: { info: ResourceRequestInfo; def: ResourceDefinition } | undefined;
  /** Admission checks, added by admission stages, that every write of this request must pass. */
  readonly admission: Admit[] = [];
  #url: URL | undefined;
  #info: RequestInfo | undefined;
  #body: Promise<Buffer> | undefined;

  constructor(req: IncomingMessage, res: ServerResponse) {
    this.req = req;
    this.res = res;
  }

  /** The request URL (parsed when first asked, inside the stages that answer errors). */
  get url(): URL {
    this.#url ??= new URL(this.req.url ?? '/', 'https://localhost');
    return this.#url;
  }

  /** What the URL and method ask for: a resource and verb, or a non-resource path. */
  get info(): RequestInfo {
    this.#info ??= parseRequestInfo(this.req.method ?? 'GET', this.url.pathname, this.url.searchParams);
    return this.#info;
  }

  /** The request body, read (within the size limit) once, by whichever stage asks first. */
  body(): Promise<Buffer> {
    this.#body ??= readBody(this.req);
    return this.#body;
  }

  /** The identity authentication found; a stage placed before authentication that asks is a bug. */
  get authenticated(): Identity {
    if (!this.identity) throw new Error('a request stage asked for the identity before authentication');
    return this.identity;
  }

  /** The admission stages' checks as one, or undefined when there are none. */
  get admit(): Admit | undefined {
    const checks = this.admission;
    if (checks.length <= 1) return checks[0];
    return (write) => {
      for (const check of checks) check(write);
    };
  }
}

/** Runs each request through the stages in order. */
export class RequestChain {
  readonly stages: readonly RequestStage[];

  constructor(stages: readonly RequestStage[]) {
    this.stages = stages;
  }

  run(req: IncomingMessage, res: ServerResponse): Promise<void> {
    return this.from(0, new ApiRequest(req, res));
  }

  private from(index: number, request: ApiRequest): Promise<void> {
    const stage = this.stages[index];
    // The last stages answer every request they are given; falling off the end is a gap in the chain.
    if (!stage) return Promise.reject(new Error('no stage of the request chain answered the request'));
    return stage.handle(request, () => this.from(index + 1, request));
  }
}
