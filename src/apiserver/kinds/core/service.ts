// Service (core/v1): stored, with kubectl's columns, so deploy/'s metrics Service applies to the
// embedded server. No cluster IPs are allocated and nothing proxies: spec is kept as written.

import { builtinPatchMeta } from '../../patch/builtin-patch-meta.ts';
import type { BuiltinKind } from '../builtin-kind.ts';
import { age, selectorText } from '../shared/printing.ts';
import { builtin, withStatus } from '../shared/schemas.ts';

function ports(service: Record<string, any>): string {
  const list: Record<string, any>[] = Array.isArray(service.spec?.ports) ? service.spec.ports : [];
  if (list.length === 0) return '<none>';
  return list.map((p) => `${p.port}${p.nodePort ? `:${p.nodePort}` : ''}/${p.protocol ?? 'TCP'}`).join(',');
}

export const serviceKind: BuiltinKind = {
  definitions: () => [
    builtin({
      group: '',
      version: 'v1',
      resource: 'services',
      kind: 'Service',
      namespaced: true,
      shortNames: ['svc'],
      categories: ['all'],
      ...withStatus(
        'Service is a named abstraction of software service (for example, mysql) consisting of local port (for example 3306) that the proxy listens on, and the selector that determines which pods will answer requests sent through the proxy.',
        'service',
      ),
      printerColumns: [
        {
          name: 'Type',
          type: 'string',
          jsonPath: '.spec.type',
          description: 'The type of the service.',
          compute: (s) => s.spec?.type ?? 'ClusterIP',
        },
        {
          name: 'Cluster-IP',
          type: 'string',
          jsonPath: '.spec.clusterIP',
          description: 'The cluster IP (none allocated here).',
          compute: (s) => s.spec?.clusterIP ?? '<none>',
        },
        {
          name: 'External-IP',
          type: 'string',
          jsonPath: '.spec.externalIPs',
          description: 'External IPs.',
          compute: (s) =>
            Array.isArray(s.spec?.externalIPs) && s.spec.externalIPs.length > 0
              ? s.spec.externalIPs.join(',')
              : '<none>',
        },
        { name: 'Port(s)', type: 'string', jsonPath: '.spec.ports', description: 'Ports.', compute: ports },
        age,
        {
          name: 'Selector',
          type: 'string',
          priority: 1,
          jsonPath: '.spec.selector',
          description: 'The pod selector.',
          compute: (s) => selectorText(s.spec?.selector),
        },
      ],
      patchMeta: builtinPatchMeta('Service'),
    }),
  ],
};
