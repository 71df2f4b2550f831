// How Prometheus watches nodeherd, in the two forms deploy/ ships (generate-deploy.ts writes them):
//   deploy/components/prometheus/  a kustomize component for the Prometheus Operator: a ServiceMonitor
//                                  scraping the controller with the nodeherd-metrics-reader token, and
//                                  the alerting rules as a PrometheusRule;
//   deploy/prometheus/             for a Prometheus configured by file: the same rules as a rule file,
//                                  and the scrape job that authenticates with that token.
// The rules come from one source (alert-rules.ts), so the two cannot differ.

import { ALERT_RULE_GROUPS, CONTROLLER_JOB } from './alert-rules.ts';
import type { ManifestFile } from './deploy-manifests.ts';
import { CONTROLLER_NAMESPACE, CONTROLLER_SERVICE_ACCOUNT } from './users.ts';

export const PROMETHEUS_COMPONENT = 'deploy/components/prometheus';
export const PROMETHEUS_FILES_DIRECTORY = 'deploy/prometheus';
export const PROMETHEUS_RULE_FILE = `${PROMETHEUS_FILES_DIRECTORY}/nodeherd-rules.yaml`;

/** The token of this ServiceAccount's Secret (deploy/controller/35-metrics-reader.yaml) may read /metrics. */
const READER_TOKEN_SECRET = 'nodeherd-metrics-reader-token';
/** Where the file-configured Prometheus finds that token (a volume from the Secret). */
const READER_TOKEN_FILE = '/etc/prometheus/nodeherd/token';

const labels = {
  'app.kubernetes.io/name': CONTROLLER_SERVICE_ACCOUNT,
  'app.kubernetes.io/part-of': 'nodeherd',
};

if (CONTROLLER_JOB !== `${CONTROLLER_SERVICE_ACCOUNT}-metrics`) {
  throw new Error('CONTROLLER_JOB must be the metrics Service name: a ServiceMonitor makes it the job label');
}

function serviceMonitor(): Record<string, unknown> {
  return {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'ServiceMonitor',
    metadata: { name: CONTROLLER_SERVICE_ACCOUNT, namespace: CONTROLLER_NAMESPACE, labels },
    spec: {
      selector: { matchLabels: labels },
      namespaceSelector: { matchNames: [CONTROLLER_NAMESPACE] },
      endpoints: [
        {
          port: 'metrics',
          path: '/metrics',
          scheme: 'http',
          interval: '30s',
          authorization: { type: 'Bearer', credentials: { name: READER_TOKEN_SECRET, key: 'token' } },
        },
      ],
    },
  };
}

function prometheusRule(): Record<string, unknown> {
  return {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'PrometheusRule',
    metadata: { name: 'nodeherd', namespace: CONTROLLER_NAMESPACE, labels },
    spec: { groups: ALERT_RULE_GROUPS },
  };
}

/** A scrape job for a Prometheus in the cluster configured by file (the kubernetes_sd of its Service). */
function scrapeConfig(): Record<string, unknown> {
  return {
    scrape_configs: [
      {
        job_name: CONTROLLER_JOB,
        scheme: 'http',
        metrics_path: '/metrics',
        authorization: { type: 'Bearer', credentials_file: READER_TOKEN_FILE },
        kubernetes_sd_configs: [{ role: 'endpoints', namespaces: { names: [CONTROLLER_NAMESPACE] } }],
        relabel_configs: [
          {
            source_labels: ['__meta_kubernetes_service_name', '__meta_kubernetes_endpoint_port_name'],
            regex: `${CONTROLLER_JOB};metrics`,
            action: 'keep',
          },
          { source_labels: ['__meta_kubernetes_pod_name'], target_label: 'pod' },
        ],
      },
    ],
  };
}

export function monitoringFiles(): ManifestFile[] {
  return [
    {
      path: `${PROMETHEUS_COMPONENT}/kustomization.yaml`,
      comment:
        "nodeherd's alerting rules and scrape for the Prometheus Operator, opt-in: add this component to an overlay\n" +
        'of deploy/ (`components: [<path>/deploy/components/prometheus]`, examples/overlays/prometheus). The\n' +
        'ServiceMonitor scrapes the controller with the token of the nodeherd-metrics-reader ServiceAccount\n' +
        '(/metrics is behind TokenReview and SubjectAccessReview); the PrometheusRule holds the rules of\n' +
        `${PROMETHEUS_RULE_FILE}. Your Prometheus must select them (its serviceMonitorSelector and ruleSelector,\n` +
        'e.g. a `release` label an overlay adds, and the nodeherd namespace). docs/operations.md, Alerts.',
      documents: [
        {
          apiVersion: 'kustomize.config.k8s.io/v1alpha1',
          kind: 'Component',
          resources: ['service-monitor.yaml', 'prometheus-rule.yaml'],
        },
      ],
    },
    {
      path: `${PROMETHEUS_COMPONENT}/service-monitor.yaml`,
      comment: `Scrapes the controller's /metrics (Service ${CONTROLLER_JOB}, so job="${CONTROLLER_JOB}") with the token in Secret ${READER_TOKEN_SECRET}.`,
      documents: [serviceMonitor()],
    },
    {
      path: `${PROMETHEUS_COMPONENT}/prometheus-rule.yaml`,
      comment: 'The alerting rules of src/api/alert-rules.ts (docs/operations.md, Alerts).',
      documents: [prometheusRule()],
    },
    {
      path: PROMETHEUS_RULE_FILE,
      comment:
        "nodeherd's alerting rules as a Prometheus rule file (rule_files:), the same rules as the PrometheusRule of\n" +
        'deploy/components/prometheus. They expect the controller scraped as job="nodeherd-controller-metrics"\n' +
        `(${PROMETHEUS_FILES_DIRECTORY}/scrape-config.yaml). Check: promtool check rules; docs/operations.md, Alerts.`,
      documents: [{ groups: ALERT_RULE_GROUPS }],
    },
    {
      path: `${PROMETHEUS_FILES_DIRECTORY}/scrape-config.yaml`,
      comment:
        'The scrape job the rules expect, for a Prometheus in the cluster configured by file: merge it into your\n' +
        "prometheus.yml's scrape_configs. /metrics answers only a token the API server authenticates and authorizes\n" +
        `for get on /metrics: mount Secret ${CONTROLLER_NAMESPACE}/${READER_TOKEN_SECRET} (its key token) at ${READER_TOKEN_FILE},\n` +
        "or bind ClusterRole nodeherd-metrics-reader to your Prometheus's ServiceAccount and name its token file instead.\n" +
        "Prometheus's ServiceAccount needs list and watch on endpoints (or endpointslices) in namespace nodeherd.",
      documents: [scrapeConfig()],
    },
  ];
}
