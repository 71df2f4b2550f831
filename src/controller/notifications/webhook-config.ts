// Where notifications go: webhooks an administrator configures as Secrets in nodeherd's namespace,
// each marked with the label nodeherd.io/notification-webhook="true" (so that no other Secret there,
// a gate's Prometheus credentials say, can be named as a destination). A pool names webhooks by
// Secret name only (spec.notifications.webhooks): a pool author never chooses a URL. The Secret:
//   url       the incoming webhook's URL (http or https); Slack and Teams URLs are secrets themselves
//   format    json (default), slack or teams
//   token     optional bearer token; or username and password (basic auth)
//   ca.crt    optional PEM CA bundle for an https URL
// Nothing of the URL but its origin (scheme, host, port) is ever logged or shown.

import { SECRETS_NAMESPACE } from '../../api/group.ts';
import type { Secret } from '../../kube/types.ts';

export const WEBHOOK_LABEL = 'nodeherd.io/notification-webhook';
export const WEBHOOK_FORMATS = ['json', 'slack', 'teams'] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

export interface WebhookTarget {
  /** The Secret's name: how pools, logs and Events name the webhook. */
  name: string;
  url: URL;
  format: WebhookFormat;
  headers: Record<string, string>;
  caPem?: string;
  /** The Secret's resourceVersion. */
  version: string;
}

export type WebhookLookup = { ok: true; target: WebhookTarget } | { ok: false; message: string };

function decode(secret: Secret, key: string): string | undefined {
  const data = secret.data?.[key];
  return data === undefined ? undefined : Buffer.from(data, 'base64').toString('utf8').trim();
}

/** What may be shown of a webhook URL: its origin, never its path, query or user info. */
export function shownUrl(url: URL): string {
  return url.origin;
}

/** The webhook a pool names, read from its Secret in nodeherd's namespace. */
export function webhookTarget(
  name: string,
  secret: (namespace: string, name: string) => Secret | undefined,
): WebhookLookup {
  const where = `notification webhook ${name} (Secret ${SECRETS_NAMESPACE}/${name})`;
  const found = secret(SECRETS_NAMESPACE, name);
  if (!found) return { ok: false, message: `${where} not found` };
  if (found.metadata.labels?.[WEBHOOK_LABEL] !== 'true')
    return { ok: false, message: `${where} is not labelled ${WEBHOOK_LABEL}="true": it is not a webhook` };
  const text = decode(found, 'url');
  if (text === undefined) return { ok: false, message: `${where} has no url` };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, message: `${where}: url is not an absolute URL` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return { ok: false, message: `${where}: url must be http or https` };
  const format = (decode(found, 'format') ?? 'json') as WebhookFormat;
  if (!WEBHOOK_FORMATS.includes(format))
    return { ok: false, message: `${where}: format must be one of ${WEBHOOK_FORMATS.join(', ')}` };
  const headers: Record<string, string> = {};
  const token = decode(found, 'token');
  const username = decode(found, 'username');
  const password = decode(found, 'password');
  if (token !== undefined && username !== undefined)
    return { ok: false, message: `${where} has both token and username: use one` };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  else if (username !== undefined) {
    if (password === undefined) return { ok: false, message: `${where} has username but no password` };
    headers.authorization = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
  } else if (url.username || url.password) {
    // Credentials in the URL go into the header, never into a request line a proxy might log.
    headers.authorization = `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`;
  }
  url.username = '';
  url.password = '';
  const caPem = decode(found, 'ca.crt');
  return {
    ok: true,
    target: {
      name,
      url,
      format,
      headers,
      ...(caPem ? { caPem } : {}),
      version: found.metadata.resourceVersion ?? '',
    },
  };
}
