// Impersonation as kube-apiserver does it (staging/src/k8s.io/apiserver/pkg/endpoints/filters/
// impersonation.go): `Impersonate-User`, `Impersonate-Group` (repeated), `Impersonate-Uid` and
// `Impersonate-Extra-<key>` (repeated; the key percent-encoded, case-insensitive) ask the server to
// act as another user. Each part is a request of its own that the caller's authorizer must allow with
// the verb `impersonate`:
//   user            users "<name>"                              (group "")
//   serviceaccount  serviceaccounts "<name>" in "<namespace>"   (group "", for system:serviceaccount:ns:name)
//   group           groups "<name>"                             (group "")
//   uid             uids "<uid>"                                (group authentication.k8s.io)
//   extra           userextras/<key> "<value>"                  (group authentication.k8s.io)
// A group, uid or extra without a user is 400; anything not allowed is 403 and nothing runs as the
// other user. The impersonated user is in system:authenticated (a ServiceAccount, without groups
// asked, in system:serviceaccounts and system:serviceaccounts:<namespace> too), and is then whoever
// Identities.ofUser says it is: confined by what that identity is granted, never the caller's rights.

import { ApiError } from '../errors.ts';
import type { Decision, ResourceAttributes } from './authorizer.ts';
import { forbiddenError } from './denials.ts';
import { AUTHENTICATED_GROUP, type Identities, type Identity } from './identities.ts';

export const IMPERSONATE_USER = 'impersonate-user';
export const IMPERSONATE_GROUP = 'impersonate-group';
export const IMPERSONATE_UID = 'impersonate-uid';
export const IMPERSONATE_EXTRA_PREFIX = 'impersonate-extra-';

const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';
const ANONYMOUS_USER = 'system:anonymous';

/** What a request's headers ask to impersonate. */
export interface ImpersonationRequest {
  user: string | undefined;
  groups: string[];
  uid: string | undefined;
  extra: Record<string, string[]>;
}

function values(header: readonly string[] | undefined): string[] {
  return header === undefined ? [] : [...header];
}

/**
 * The impersonation a request asks for, or undefined when it carries no Impersonate-* header.
 * `headers` keeps each repeated header's values apart (IncomingMessage.headersDistinct): Node joins
 * other headers' repeats with ", ", which would make two groups one.
 */
export function impersonationRequested(
  headers: Readonly<Record<string, readonly string[] | undefined>>,
): ImpersonationRequest | undefined {
  const users = values(headers[IMPERSONATE_USER]);
  const groups = values(headers[IMPERSONATE_GROUP]);
  const uids = values(headers[IMPERSONATE_UID]);
  const extra: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!name.startsWith(IMPERSONATE_EXTRA_PREFIX)) continue;
    const rawKey = name.slice(IMPERSONATE_EXTRA_PREFIX.length);
    let key: string;
    try {
      key = decodeURIComponent(rawKey).toLowerCase();
    } catch {
      throw new ApiError(400, 'BadRequest', `invalid impersonation extra header ${JSON.stringify(name)}`);
    }
    extra[key] = [...(extra[key] ?? []), ...values(value)];
  }
  if (users.length === 0 && groups.length === 0 && uids.length === 0 && Object.keys(extra).length === 0) {
    return undefined;
  }
  if (users.length > 1)
    throw new ApiError(400, 'BadRequest', 'only one Impersonate-User header may be given');
  if (uids.length > 1) throw new ApiError(400, 'BadRequest', 'only one Impersonate-Uid header may be given');
  const user = users[0];
  if (user === undefined || user === '') {
    const asked = [
      ...groups.map((g) => `${IMPERSONATE_GROUP}=${g}`),
      ...uids.map((u) => `${IMPERSONATE_UID}=${u}`),
      ...Object.keys(extra).map((k) => `${IMPERSONATE_EXTRA_PREFIX}${k}`),
    ];
    throw new ApiError(400, 'BadRequest', `requested [${asked.join(' ')}] without impersonating a user`);
  }
  return { user, groups, uid: uids[0], extra };
}

/** The `impersonate` requests the caller's authorizer must allow for `asked`, in kube's order. */
export function impersonationChecks(asked: ImpersonationRequest): ResourceAttributes[] {
  const checks: ResourceAttributes[] = [];
  const user = asked.user ?? '';
  const serviceAccount = user.startsWith(SERVICE_ACCOUNT_PREFIX)
    ? user.slice(SERVICE_ACCOUNT_PREFIX.length).split(':')
    : undefined;
  if (serviceAccount?.length === 2 && serviceAccount[0] && serviceAccount[1]) {
    checks.push({
      verb: 'impersonate',
      group: '',
      resource: 'serviceaccounts',
      namespace: serviceAccount[0],
      name: serviceAccount[1],
    });
  } else {
    checks.push({ verb: 'impersonate', group: '', resource: 'users', name: user });
  }
  for (const group of asked.groups)
    checks.push({ verb: 'impersonate', group: '', resource: 'groups', name: group });
  for (const [key, list] of Object.entries(asked.extra)) {
    for (const value of list) {
      checks.push({
        verb: 'impersonate',
        group: 'authentication.k8s.io',
        resource: 'userextras',
        subresource: key,
        name: value,
      });
    }
  }
  if (asked.uid !== undefined) {
    checks.push({ verb: 'impersonate', group: 'authentication.k8s.io', resource: 'uids', name: asked.uid });
  }
  return checks;
}

/** The groups the impersonated user has: those asked, ServiceAccount groups, system:authenticated. */
function impersonatedGroups(asked: ImpersonationRequest): string[] {
  const user = asked.user ?? '';
  const groups = [...asked.groups];
  const serviceAccount = user.startsWith(SERVICE_ACCOUNT_PREFIX)
    ? user.slice(SERVICE_ACCOUNT_PREFIX.length).split(':')
    : undefined;
  if (groups.length === 0 && serviceAccount?.length === 2) {
    groups.push('system:serviceaccounts', `system:serviceaccounts:${serviceAccount[0]}`);
  }
  if (user !== ANONYMOUS_USER && !groups.includes(AUTHENTICATED_GROUP)) groups.push(AUTHENTICATED_GROUP);
  return groups;
}

/**
 * The identity the caller acts as, once `authorize` has allowed every part of `asked` for the caller;
 * a part it denies is a 403 naming the part.
 */
export function impersonate(
  caller: Identity,
  asked: ImpersonationRequest,
  authorize: (identity: Identity, attrs: ResourceAttributes) => Decision,
  identities: Identities,
): Identity {
  for (const check of impersonationChecks(asked)) {
    const decision = authorize(caller, check);
    if (!decision.allowed) throw forbiddenError(caller, check, decision.reason);
  }
  const extra = Object.keys(asked.extra).length > 0 ? asked.extra : undefined;
  const identity = identities.ofUser(asked.user ?? '', impersonatedGroups(asked), asked.extra);
  return {
    ...identity,
    ...(asked.uid !== undefined ? { uid: asked.uid } : {}),
    ...(extra !== undefined ? { extra } : {}),
  };
}
