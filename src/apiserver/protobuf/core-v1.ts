// Field tables for k8s.io/api/core/v1 (generated.proto): the kinds kubectl's generators and typed
// clients send (ConfigMap, Secret, Namespace, ServiceAccount, Event) and Pod with the spec fields
// in common use. JSON presence follows the json tags of k8s.io/api/core/v1/types.go.
// Table data, transcribed message by message; each built-in kind names the messages it is sent as
// (BuiltinKind.protobuf in src/apiserver/kinds/), and decode.ts decodes with that table.

import {
  BOOL,
  BYTES,
  field,
  INT_OR_STRING,
  INT32,
  INT64,
  inline,
  list,
  MICRO_TIME,
  map,
  message,
  msg,
  ptr,
  QUANTITY,
  STRING,
  struct,
  TIME,
  unsupported,
} from './message.ts';
import { LabelSelector, ObjectMeta } from './meta-v1.ts';

const CORE = 'k8s.io.api.core.v1';

// ---- references ----

export const ObjectReference = message(`${CORE}.ObjectReference`, () => [
  field(1, 'kind', STRING),
  field(2, 'namespace', STRING),
  field(3, 'name', STRING),
  field(4, 'uid', STRING),
  field(5, 'apiVersion', STRING),
  field(6, 'resourceVersion', STRING),
  field(7, 'fieldPath', STRING),
]);

export const LocalObjectReference = message(`${CORE}.LocalObjectReference`, () => [field(1, 'name', STRING)]);

// ---- ConfigMap, Secret ----

export const ConfigMap = message(`${CORE}.ConfigMap`, () => [
  struct(1, 'metadata', ObjectMeta),
  ptr(4, 'immutable', BOOL),
  map(2, 'data', STRING),
  map(3, 'binaryData', BYTES),
]);

export const Secret = message(`${CORE}.Secret`, () => [
  struct(1, 'metadata', ObjectMeta),
  ptr(5, 'immutable', BOOL),
  map(2, 'data', BYTES),
  map(4, 'stringData', STRING),
  field(3, 'type', STRING),
]);

// ---- Namespace ----

export const NamespaceCondition = message(`${CORE}.NamespaceCondition`, () => [
  field(1, 'type', STRING, 'always'),
  field(2, 'status', STRING, 'always'),
  field(4, 'lastTransitionTime', TIME),
  field(5, 'reason', STRING),
  field(6, 'message', STRING),
]);

export const NamespaceSpec = message(`${CORE}.NamespaceSpec`, () => [list(1, 'finalizers', STRING)]);

export const NamespaceStatus = message(`${CORE}.NamespaceStatus`, () => [
  field(1, 'phase', STRING),
  list(2, 'conditions', msg(NamespaceCondition)),
]);

export const Namespace = message(`${CORE}.Namespace`, () => [
  struct(1, 'metadata', ObjectMeta),
  struct(2, 'spec', NamespaceSpec),
  struct(3, 'status', NamespaceStatus),
]);

// ---- ServiceAccount ----

export const ServiceAccount = message(`${CORE}.ServiceAccount`, () => [
  struct(1, 'metadata', ObjectMeta),
  list(2, 'secrets', msg(ObjectReference)),
  list(3, 'imagePullSecrets', msg(LocalObjectReference)),
  ptr(4, 'automountServiceAccountToken', BOOL),
]);

// ---- Event ----

export const EventSource = message(`${CORE}.EventSource`, () => [
  field(1, 'component', STRING),
  field(2, 'host', STRING),
]);

export const EventSeries = message(`${CORE}.EventSeries`, () => [
  field(1, 'count', INT32),
  field(2, 'lastObservedTime', MICRO_TIME),
]);

export const Event = message(`${CORE}.Event`, () => [
  struct(1, 'metadata', ObjectMeta),
  struct(2, 'involvedObject', ObjectReference),
  field(3, 'reason', STRING),
  field(4, 'message', STRING),
  struct(5, 'source', EventSource),
  field(6, 'firstTimestamp', TIME),
  field(7, 'lastTimestamp', TIME),
  field(8, 'count', INT32),
  field(9, 'type', STRING),
  field(10, 'eventTime', MICRO_TIME),
  ptr(11, 'series', msg(EventSeries)),
  field(12, 'action', STRING),
  ptr(13, 'related', msg(ObjectReference)),
  field(14, 'reportingComponent', STRING, 'always'),
  field(15, 'reportingInstance', STRING, 'always'),
]);

// ---- Pod: environment ----

export const ObjectFieldSelector = message(`${CORE}.ObjectFieldSelector`, () => [
  field(1, 'apiVersion', STRING),
  field(2, 'fieldPath', STRING, 'always'),
]);

export const ResourceFieldSelector = message(`${CORE}.ResourceFieldSelector`, () => [
  field(1, 'containerName', STRING),
  field(2, 'resource', STRING, 'always'),
  field(3, 'divisor', QUANTITY, 'always'),
]);

export const ConfigMapKeySelector = message(`${CORE}.ConfigMapKeySelector`, () => [
  inline(1, LocalObjectReference),
  field(2, 'key', STRING, 'always'),
  ptr(3, 'optional', BOOL),
]);

export const SecretKeySelector = message(`${CORE}.SecretKeySelector`, () => [
  inline(1, LocalObjectReference),
  field(2, 'key', STRING, 'always'),
  ptr(3, 'optional', BOOL),
]);

export const EnvVarSource = message(`${CORE}.EnvVarSource`, () => [
  ptr(1, 'fieldRef', msg(ObjectFieldSelector)),
  ptr(2, 'resourceFieldRef', msg(ResourceFieldSelector)),
  ptr(3, 'configMapKeyRef', msg(ConfigMapKeySelector)),
  ptr(4, 'secretKeyRef', msg(SecretKeySelector)),
  unsupported(5, 'fileKeyRef'),
]);

export const EnvVar = message(`${CORE}.EnvVar`, () => [
  field(1, 'name', STRING, 'always'),
  field(2, 'value', STRING),
  ptr(3, 'valueFrom', msg(EnvVarSource)),
]);

export const ConfigMapEnvSource = message(`${CORE}.ConfigMapEnvSource`, () => [
  inline(1, LocalObjectReference),
  ptr(2, 'optional', BOOL),
]);

export const SecretEnvSource = message(`${CORE}.SecretEnvSource`, () => [
  inline(1, LocalObjectReference),
  ptr(2, 'optional', BOOL),
]);

export const EnvFromSource = message(`${CORE}.EnvFromSource`, () => [
  field(1, 'prefix', STRING),
  ptr(2, 'configMapRef', msg(ConfigMapEnvSource)),
  ptr(3, 'secretRef', msg(SecretEnvSource)),
]);

// ---- Pod: containers ----

export const ContainerPort = message(`${CORE}.ContainerPort`, () => [
  field(1, 'name', STRING),
  field(2, 'hostPort', INT32),
  field(3, 'containerPort', INT32, 'always'),
  field(4, 'protocol', STRING),
  field(5, 'hostIP', STRING),
]);

export const ResourceClaim = message(`${CORE}.ResourceClaim`, () => [
  field(1, 'name', STRING, 'always'),
  field(2, 'request', STRING),
]);

export const ResourceRequirements = message(`${CORE}.ResourceRequirements`, () => [
  map(1, 'limits', QUANTITY),
  map(2, 'requests', QUANTITY),
  list(3, 'claims', msg(ResourceClaim)),
]);

export const ContainerResizePolicy = message(`${CORE}.ContainerResizePolicy`, () => [
  field(1, 'resourceName', STRING, 'always'),
  field(2, 'restartPolicy', STRING, 'always'),
]);

export const VolumeMount = message(`${CORE}.VolumeMount`, () => [
  field(1, 'name', STRING, 'always'),
  field(2, 'readOnly', BOOL),
  ptr(7, 'recursiveReadOnly', STRING),
  field(3, 'mountPath', STRING, 'always'),
  field(4, 'subPath', STRING),
  ptr(5, 'mountPropagation', STRING),
  field(6, 'subPathExpr', STRING),
]);

export const VolumeDevice = message(`${CORE}.VolumeDevice`, () => [
  field(1, 'name', STRING, 'always'),
  field(2, 'devicePath', STRING, 'always'),
]);

export const ExecAction = message(`${CORE}.ExecAction`, () => [list(1, 'command', STRING)]);

export const HTTPHeader = message(`${CORE}.HTTPHeader`, () => [
  field(1, 'name', STRING, 'always'),
  field(2, 'value', STRING, 'always'),
]);

export const HTTPGetAction = message(`${CORE}.HTTPGetAction`, () => [
  field(1, 'path', STRING),
  field(2, 'port', INT_OR_STRING, 'always'),
  field(3, 'host', STRING),
  field(4, 'scheme', STRING),
  list(5, 'httpHeaders', msg(HTTPHeader)),
]);

export const TCPSocketAction = message(`${CORE}.TCPSocketAction`, () => [
  field(1, 'port', INT_OR_STRING, 'always'),
  field(2, 'host', STRING),
]);

export const GRPCAction = message(`${CORE}.GRPCAction`, () => [
  field(1, 'port', INT32, 'always'),
  ptr(2, 'service', STRING),
]);

export const SleepAction = message(`${CORE}.SleepAction`, () => [field(1, 'seconds', INT64, 'always')]);

export const ProbeHandler = message(`${CORE}.ProbeHandler`, () => [
  ptr(1, 'exec', msg(ExecAction)),
  ptr(2, 'httpGet', msg(HTTPGetAction)),
  ptr(3, 'tcpSocket', msg(TCPSocketAction)),
  ptr(4, 'grpc', msg(GRPCAction)),
]);

export const Probe = message(`${CORE}.Probe`, () => [
  inline(1, ProbeHandler),
  field(2, 'initialDelaySeconds', INT32),
  field(3, 'timeoutSeconds', INT32),
  field(4, 'periodSeconds', INT32),
  field(5, 'successThreshold', INT32),
  field(6, 'failureThreshold', INT32),
  ptr(7, 'terminationGracePeriodSeconds', INT64),
]);

export const LifecycleHandler = message(`${CORE}.LifecycleHandler`, () => [
  ptr(1, 'exec', msg(ExecAction)),
  ptr(2, 'httpGet', msg(HTTPGetAction)),
  ptr(3, 'tcpSocket', msg(TCPSocketAction)),
  ptr(4, 'sleep', msg(SleepAction)),
]);

export const Lifecycle = message(`${CORE}.Lifecycle`, () => [
  ptr(1, 'postStart', msg(LifecycleHandler)),
  ptr(2, 'preStop', msg(LifecycleHandler)),
  ptr(3, 'stopSignal', STRING),
]);

export const Capabilities = message(`${CORE}.Capabilities`, () => [
  list(1, 'add', STRING),
  list(2, 'drop', STRING),
]);

export const SELinuxOptions = message(`${CORE}.SELinuxOptions`, () => [
  field(1, 'user', STRING),
  field(2, 'role', STRING),
  field(3, 'type', STRING),
  field(4, 'level', STRING),
]);

export const SeccompProfile = message(`${CORE}.SeccompProfile`, () => [
  field(1, 'type', STRING, 'always'),
  ptr(2, 'localhostProfile', STRING),
]);

export const AppArmorProfile = message(`${CORE}.AppArmorProfile`, () => [
  field(1, 'type', STRING, 'always'),
  ptr(2, 'localhostProfile', STRING),
]);

export const SecurityContext = message(`${CORE}.SecurityContext`, () => [
  ptr(1, 'capabilities', msg(Capabilities)),
  ptr(2, 'privileged', BOOL),
  ptr(3, 'seLinuxOptions', msg(SELinuxOptions)),
  unsupported(10, 'windowsOptions'),
  ptr(4, 'runAsUser', INT64),
  ptr(8, 'runAsGroup', INT64),
  ptr(5, 'runAsNonRoot', BOOL),
  ptr(6, 'readOnlyRootFilesystem', BOOL),
  ptr(7, 'allowPrivilegeEscalation', BOOL),
  ptr(9, 'procMount', STRING),
  ptr(11, 'seccompProfile', msg(SeccompProfile)),
  ptr(12, 'appArmorProfile', msg(AppArmorProfile)),
]);

function containerFields() {
  return [
    field(1, 'name', STRING, 'always'),
    field(2, 'image', STRING),
    list(3, 'command', STRING),
    list(4, 'args', STRING),
    field(5, 'workingDir', STRING),
    list(6, 'ports', msg(ContainerPort)),
    list(19, 'envFrom', msg(EnvFromSource)),
    list(7, 'env', msg(EnvVar)),
    struct(8, 'resources', ResourceRequirements),
    list(23, 'resizePolicy', msg(ContainerResizePolicy)),
    ptr(24, 'restartPolicy', STRING),
    unsupported(25, 'restartPolicyRules'),
    list(9, 'volumeMounts', msg(VolumeMount)),
    list(21, 'volumeDevices', msg(VolumeDevice)),
    ptr(10, 'livenessProbe', msg(Probe)),
    ptr(11, 'readinessProbe', msg(Probe)),
    ptr(22, 'startupProbe', msg(Probe)),
    ptr(12, 'lifecycle', msg(Lifecycle)),
    field(13, 'terminationMessagePath', STRING),
    field(20, 'terminationMessagePolicy', STRING),
    field(14, 'imagePullPolicy', STRING),
    ptr(15, 'securityContext', msg(SecurityContext)),
    field(16, 'stdin', BOOL),
    field(17, 'stdinOnce', BOOL),
    field(18, 'tty', BOOL),
  ];
}

export const Container = message(`${CORE}.Container`, containerFields);

/** EphemeralContainerCommon has Container's fields and numbers. */
export const EphemeralContainerCommon = message(`${CORE}.EphemeralContainerCommon`, containerFields);

export const EphemeralContainer = message(`${CORE}.EphemeralContainer`, () => [
  inline(1, EphemeralContainerCommon),
  field(2, 'targetContainerName', STRING),
]);

// ---- Pod: volumes ----

export const KeyToPath = message(`${CORE}.KeyToPath`, () => [
  field(1, 'key', STRING, 'always'),
  field(2, 'path', STRING, 'always'),
  ptr(3, 'mode', INT32),
]);

export const HostPathVolumeSource = message(`${CORE}.HostPathVolumeSource`, () => [
  field(1, 'path', STRING, 'always'),
  ptr(2, 'type', STRING),
]);

export const EmptyDirVolumeSource = message(`${CORE}.EmptyDirVolumeSource`, () => [
  field(1, 'medium', STRING),
  ptr(2, 'sizeLimit', QUANTITY),
]);

export const SecretVolumeSource = message(`${CORE}.SecretVolumeSource`, () => [
  field(1, 'secretName', STRING),
  list(2, 'items', msg(KeyToPath)),
  ptr(3, 'defaultMode', INT32),
  ptr(4, 'optional', BOOL),
]);

export const ConfigMapVolumeSource = message(`${CORE}.ConfigMapVolumeSource`, () => [
  inline(1, LocalObjectReference),
  list(2, 'items', msg(KeyToPath)),
  ptr(3, 'defaultMode', INT32),
  ptr(4, 'optional', BOOL),
]);

export const PersistentVolumeClaimVolumeSource = message(`${CORE}.PersistentVolumeClaimVolumeSource`, () => [
  field(1, 'claimName', STRING, 'always'),
  field(2, 'readOnly', BOOL),
]);

export const DownwardAPIVolumeFile = message(`${CORE}.DownwardAPIVolumeFile`, () => [
  field(1, 'path', STRING, 'always'),
  ptr(2, 'fieldRef', msg(ObjectFieldSelector)),
  ptr(3, 'resourceFieldRef', msg(ResourceFieldSelector)),
  ptr(4, 'mode', INT32),
]);

export const DownwardAPIVolumeSource = message(`${CORE}.DownwardAPIVolumeSource`, () => [
  list(1, 'items', msg(DownwardAPIVolumeFile)),
  ptr(2, 'defaultMode', INT32),
]);

export const DownwardAPIProjection = message(`${CORE}.DownwardAPIProjection`, () => [
  list(1, 'items', msg(DownwardAPIVolumeFile)),
]);

export const SecretProjection = message(`${CORE}.SecretProjection`, () => [
  inline(1, LocalObjectReference),
  list(2, 'items', msg(KeyToPath)),
  ptr(4, 'optional', BOOL),
]);

export const ConfigMapProjection = message(`${CORE}.ConfigMapProjection`, () => [
  inline(1, LocalObjectReference),
  list(2, 'items', msg(KeyToPath)),
  ptr(4, 'optional', BOOL),
]);

export const ServiceAccountTokenProjection = message(`${CORE}.ServiceAccountTokenProjection`, () => [
  field(1, 'audience', STRING),
  ptr(2, 'expirationSeconds', INT64),
  field(3, 'path', STRING, 'always'),
]);

export const VolumeProjection = message(`${CORE}.VolumeProjection`, () => [
  ptr(1, 'secret', msg(SecretProjection)),
  ptr(2, 'downwardAPI', msg(DownwardAPIProjection)),
  ptr(3, 'configMap', msg(ConfigMapProjection)),
  ptr(4, 'serviceAccountToken', msg(ServiceAccountTokenProjection)),
  unsupported(5, 'clusterTrustBundle'),
  unsupported(6, 'podCertificate'),
]);

export const ProjectedVolumeSource = message(`${CORE}.ProjectedVolumeSource`, () => [
  list(1, 'sources', msg(VolumeProjection)),
  ptr(2, 'defaultMode', INT32),
]);

export const VolumeSource = message(`${CORE}.VolumeSource`, () => [
  ptr(1, 'hostPath', msg(HostPathVolumeSource)),
  ptr(2, 'emptyDir', msg(EmptyDirVolumeSource)),
  unsupported(3, 'gcePersistentDisk'),
  unsupported(4, 'awsElasticBlockStore'),
  unsupported(5, 'gitRepo'),
  ptr(6, 'secret', msg(SecretVolumeSource)),
  unsupported(7, 'nfs'),
  unsupported(8, 'iscsi'),
  unsupported(9, 'glusterfs'),
  ptr(10, 'persistentVolumeClaim', msg(PersistentVolumeClaimVolumeSource)),
  unsupported(11, 'rbd'),
  unsupported(12, 'flexVolume'),
  unsupported(13, 'cinder'),
  unsupported(14, 'cephfs'),
  unsupported(15, 'flocker'),
  ptr(16, 'downwardAPI', msg(DownwardAPIVolumeSource)),
  unsupported(17, 'fc'),
  unsupported(18, 'azureFile'),
  ptr(19, 'configMap', msg(ConfigMapVolumeSource)),
  unsupported(20, 'vsphereVolume'),
  unsupported(21, 'quobyte'),
  unsupported(22, 'azureDisk'),
  unsupported(23, 'photonPersistentDisk'),
  unsupported(24, 'portworxVolume'),
  unsupported(25, 'scaleIO'),
  ptr(26, 'projected', msg(ProjectedVolumeSource)),
  unsupported(27, 'storageos'),
  unsupported(28, 'csi'),
  unsupported(29, 'ephemeral'),
  unsupported(30, 'image'),
]);

export const Volume = message(`${CORE}.Volume`, () => [
  field(1, 'name', STRING, 'always'),
  inline(2, VolumeSource),
]);

// ---- Pod: scheduling ----

export const Toleration = message(`${CORE}.Toleration`, () => [
  field(1, 'key', STRING),
  field(2, 'operator', STRING),
  field(3, 'value', STRING),
  field(4, 'effect', STRING),
  ptr(5, 'tolerationSeconds', INT64),
]);

export const NodeSelectorRequirement = message(`${CORE}.NodeSelectorRequirement`, () => [
  field(1, 'key', STRING, 'always'),
  field(2, 'operator', STRING, 'always'),
  list(3, 'values', STRING),
]);

export const NodeSelectorTerm = message(`${CORE}.NodeSelectorTerm`, () => [
  list(1, 'matchExpressions', msg(NodeSelectorRequirement)),
  list(2, 'matchFields', msg(NodeSelectorRequirement)),
]);

export const NodeSelector = message(`${CORE}.NodeSelector`, () => [
  list(1, 'nodeSelectorTerms', msg(NodeSelectorTerm)),
]);

export const PreferredSchedulingTerm = message(`${CORE}.PreferredSchedulingTerm`, () => [
  field(1, 'weight', INT32, 'always'),
  struct(2, 'preference', NodeSelectorTerm),
]);

export const NodeAffinity = message(`${CORE}.NodeAffinity`, () => [
  ptr(1, 'requiredDuringSchedulingIgnoredDuringExecution', msg(NodeSelector)),
  list(2, 'preferredDuringSchedulingIgnoredDuringExecution', msg(PreferredSchedulingTerm)),
]);

export const PodAffinityTerm = message(`${CORE}.PodAffinityTerm`, () => [
  ptr(1, 'labelSelector', msg(LabelSelector)),
  list(2, 'namespaces', STRING),
  field(3, 'topologyKey', STRING, 'always'),
  ptr(4, 'namespaceSelector', msg(LabelSelector)),
  list(5, 'matchLabelKeys', STRING),
  list(6, 'mismatchLabelKeys', STRING),
]);

export const WeightedPodAffinityTerm = message(`${CORE}.WeightedPodAffinityTerm`, () => [
  field(1, 'weight', INT32, 'always'),
  struct(2, 'podAffinityTerm', PodAffinityTerm),
]);

export const PodAffinity = message(`${CORE}.PodAffinity`, () => [
  list(1, 'requiredDuringSchedulingIgnoredDuringExecution', msg(PodAffinityTerm)),
  list(2, 'preferredDuringSchedulingIgnoredDuringExecution', msg(WeightedPodAffinityTerm)),
]);

export const PodAntiAffinity = message(`${CORE}.PodAntiAffinity`, () => [
  list(1, 'requiredDuringSchedulingIgnoredDuringExecution', msg(PodAffinityTerm)),
  list(2, 'preferredDuringSchedulingIgnoredDuringExecution', msg(WeightedPodAffinityTerm)),
]);

export const Affinity = message(`${CORE}.Affinity`, () => [
  ptr(1, 'nodeAffinity', msg(NodeAffinity)),
  ptr(2, 'podAffinity', msg(PodAffinity)),
  ptr(3, 'podAntiAffinity', msg(PodAntiAffinity)),
]);

export const TopologySpreadConstraint = message(`${CORE}.TopologySpreadConstraint`, () => [
  field(1, 'maxSkew', INT32, 'always'),
  field(2, 'topologyKey', STRING, 'always'),
  field(3, 'whenUnsatisfiable', STRING, 'always'),
  ptr(4, 'labelSelector', msg(LabelSelector)),
  ptr(5, 'minDomains', INT32),
  ptr(6, 'nodeAffinityPolicy', STRING),
  ptr(7, 'nodeTaintsPolicy', STRING),
  list(8, 'matchLabelKeys', STRING),
]);

// ---- Pod: the rest of the spec ----

export const Sysctl = message(`${CORE}.Sysctl`, () => [
  field(1, 'name', STRING, 'always'),
  field(2, 'value', STRING, 'always'),
]);

export const PodSecurityContext = message(`${CORE}.PodSecurityContext`, () => [
  ptr(1, 'seLinuxOptions', msg(SELinuxOptions)),
  unsupported(8, 'windowsOptions'),
  ptr(2, 'runAsUser', INT64),
  ptr(6, 'runAsGroup', INT64),
  ptr(3, 'runAsNonRoot', BOOL),
  list(4, 'supplementalGroups', INT64),
  ptr(12, 'supplementalGroupsPolicy', STRING),
  ptr(5, 'fsGroup', INT64),
  list(7, 'sysctls', msg(Sysctl)),
  ptr(9, 'fsGroupChangePolicy', STRING),
  ptr(10, 'seccompProfile', msg(SeccompProfile)),
  ptr(11, 'appArmorProfile', msg(AppArmorProfile)),
  ptr(13, 'seLinuxChangePolicy', STRING),
]);

export const HostAlias = message(`${CORE}.HostAlias`, () => [
  field(1, 'ip', STRING, 'always'),
  list(2, 'hostnames', STRING),
]);

export const PodDNSConfigOption = message(`${CORE}.PodDNSConfigOption`, () => [
  field(1, 'name', STRING),
  ptr(2, 'value', STRING),
]);

export const PodDNSConfig = message(`${CORE}.PodDNSConfig`, () => [
  list(1, 'nameservers', STRING),
  list(2, 'searches', STRING),
  list(3, 'options', msg(PodDNSConfigOption)),
]);

export const PodReadinessGate = message(`${CORE}.PodReadinessGate`, () => [
  field(1, 'conditionType', STRING, 'always'),
]);

export const PodOS = message(`${CORE}.PodOS`, () => [field(1, 'name', STRING, 'always')]);

export const PodSchedulingGate = message(`${CORE}.PodSchedulingGate`, () => [
  field(1, 'name', STRING, 'always'),
]);

export const PodSpec = message(`${CORE}.PodSpec`, () => [
  list(1, 'volumes', msg(Volume)),
  list(20, 'initContainers', msg(Container)),
  list(2, 'containers', msg(Container)),
  list(34, 'ephemeralContainers', msg(EphemeralContainer)),
  field(3, 'restartPolicy', STRING),
  ptr(4, 'terminationGracePeriodSeconds', INT64),
  ptr(5, 'activeDeadlineSeconds', INT64),
  field(6, 'dnsPolicy', STRING),
  map(7, 'nodeSelector', STRING),
  field(8, 'serviceAccountName', STRING),
  field(9, 'serviceAccount', STRING),
  ptr(21, 'automountServiceAccountToken', BOOL),
  field(10, 'nodeName', STRING),
  field(11, 'hostNetwork', BOOL),
  field(12, 'hostPID', BOOL),
  field(13, 'hostIPC', BOOL),
  ptr(27, 'shareProcessNamespace', BOOL),
  ptr(14, 'securityContext', msg(PodSecurityContext)),
  list(15, 'imagePullSecrets', msg(LocalObjectReference)),
  field(16, 'hostname', STRING),
  field(17, 'subdomain', STRING),
  ptr(18, 'affinity', msg(Affinity)),
  field(19, 'schedulerName', STRING),
  list(22, 'tolerations', msg(Toleration)),
  list(23, 'hostAliases', msg(HostAlias)),
  field(24, 'priorityClassName', STRING),
  ptr(25, 'priority', INT32),
  ptr(26, 'dnsConfig', msg(PodDNSConfig)),
  list(28, 'readinessGates', msg(PodReadinessGate)),
  ptr(29, 'runtimeClassName', STRING),
  ptr(30, 'enableServiceLinks', BOOL),
  ptr(31, 'preemptionPolicy', STRING),
  map(32, 'overhead', QUANTITY),
  list(33, 'topologySpreadConstraints', msg(TopologySpreadConstraint)),
  ptr(35, 'setHostnameAsFQDN', BOOL),
  ptr(36, 'os', msg(PodOS)),
  ptr(37, 'hostUsers', BOOL),
  list(38, 'schedulingGates', msg(PodSchedulingGate)),
  unsupported(39, 'resourceClaims'),
  ptr(40, 'resources', msg(ResourceRequirements)),
  ptr(41, 'hostnameOverride', STRING),
  unsupported(42, 'workloadRef'),
]);

// ---- Pod: status ----

export const ContainerStateWaiting = message(`${CORE}.ContainerStateWaiting`, () => [
  field(1, 'reason', STRING),
  field(2, 'message', STRING),
]);

export const ContainerStateRunning = message(`${CORE}.ContainerStateRunning`, () => [
  field(1, 'startedAt', TIME),
]);

export const ContainerStateTerminated = message(`${CORE}.ContainerStateTerminated`, () => [
  field(1, 'exitCode', INT32, 'always'),
  field(2, 'signal', INT32),
  field(3, 'reason', STRING),
  field(4, 'message', STRING),
  field(5, 'startedAt', TIME),
  field(6, 'finishedAt', TIME),
  field(7, 'containerID', STRING),
]);

export const ContainerState = message(`${CORE}.ContainerState`, () => [
  ptr(1, 'waiting', msg(ContainerStateWaiting)),
  ptr(2, 'running', msg(ContainerStateRunning)),
  ptr(3, 'terminated', msg(ContainerStateTerminated)),
]);

export const VolumeMountStatus = message(`${CORE}.VolumeMountStatus`, () => [
  field(1, 'name', STRING, 'always'),
  field(2, 'mountPath', STRING, 'always'),
  field(3, 'readOnly', BOOL),
  ptr(4, 'recursiveReadOnly', STRING),
]);

export const ContainerStatus = message(`${CORE}.ContainerStatus`, () => [
  field(1, 'name', STRING, 'always'),
  struct(2, 'state', ContainerState),
  struct(3, 'lastState', ContainerState),
  field(4, 'ready', BOOL, 'always'),
  field(5, 'restartCount', INT32, 'always'),
  field(6, 'image', STRING, 'always'),
  field(7, 'imageID', STRING, 'always'),
  field(8, 'containerID', STRING),
  ptr(9, 'started', BOOL),
  map(10, 'allocatedResources', QUANTITY),
  ptr(11, 'resources', msg(ResourceRequirements)),
  list(12, 'volumeMounts', msg(VolumeMountStatus)),
  unsupported(13, 'user'),
  unsupported(14, 'allocatedResourcesStatus'),
  ptr(15, 'stopSignal', STRING),
]);

export const PodCondition = message(`${CORE}.PodCondition`, () => [
  field(1, 'type', STRING, 'always'),
  field(7, 'observedGeneration', INT64),
  field(2, 'status', STRING, 'always'),
  field(3, 'lastProbeTime', TIME),
  field(4, 'lastTransitionTime', TIME),
  field(5, 'reason', STRING),
  field(6, 'message', STRING),
]);

export const PodIP = message(`${CORE}.PodIP`, () => [field(1, 'ip', STRING, 'always')]);

export const HostIP = message(`${CORE}.HostIP`, () => [field(1, 'ip', STRING, 'always')]);

export const PodStatus = message(`${CORE}.PodStatus`, () => [
  field(17, 'observedGeneration', INT64),
  field(1, 'phase', STRING),
  list(2, 'conditions', msg(PodCondition)),
  field(3, 'message', STRING),
  field(4, 'reason', STRING),
  field(11, 'nominatedNodeName', STRING),
  field(5, 'hostIP', STRING),
  list(16, 'hostIPs', msg(HostIP)),
  field(6, 'podIP', STRING),
  list(12, 'podIPs', msg(PodIP)),
  ptr(7, 'startTime', TIME),
  list(10, 'initContainerStatuses', msg(ContainerStatus)),
  list(8, 'containerStatuses', msg(ContainerStatus)),
  field(9, 'qosClass', STRING),
  list(13, 'ephemeralContainerStatuses', msg(ContainerStatus)),
  field(14, 'resize', STRING),
  unsupported(15, 'resourceClaimStatuses'),
  unsupported(18, 'extendedResourceClaimStatus'),
  map(19, 'allocatedResources', QUANTITY),
  ptr(20, 'resources', msg(ResourceRequirements)),
]);

export const Pod = message(`${CORE}.Pod`, () => [
  struct(1, 'metadata', ObjectMeta),
  struct(2, 'spec', PodSpec),
  struct(3, 'status', PodStatus),
]);
