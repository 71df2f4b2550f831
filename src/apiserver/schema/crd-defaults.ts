// The defaults apiextensions.k8s.io/v1 fills into a CustomResourceDefinition before validating it
// (SetDefaults_CustomResourceDefinitionSpec and SetDefaults_ServiceReference).

import { isJsonObject } from './json-value.ts';

/** Fills v1 defaults in place: names.singular, names.listKind, conversion.strategy, webhook port. */
export function applyCustomResourceDefinitionDefaults<T>(crd: T): T {
  if (!isJsonObject(crd) || !isJsonObject(crd.spec)) return crd;
  const spec = crd.spec;
  if (isJsonObject(spec.names)) {
    const names = spec.names;
    const kind = typeof names.kind === 'string' ? names.kind : '';
    if (typeof names.singular !== 'string' || names.singular === '') names.singular = kind.toLowerCase();
    if ((typeof names.listKind !== 'string' || names.listKind === '') && kind !== '')
      names.listKind = `${kind}List`;
  }
  if (spec.conversion === undefined || spec.conversion === null) spec.conversion = { strategy: 'None' };
  const webhook =
    isJsonObject(spec.conversion) && isJsonObject(spec.conversion.webhook)
      ? spec.conversion.webhook
      : undefined;
  const service = webhook && isJsonObject(webhook.clientConfig) ? webhook.clientConfig.service : undefined;
  if (isJsonObject(service) && service.port === undefined) service.port = 443;
  return crd;
}
