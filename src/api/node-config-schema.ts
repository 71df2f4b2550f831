// NodeConfig: the files, systemd units, apt repositories and packages a set of nodes should have.
// This schema is the single source of truth for the CRD, the TypeScript types and the API reference.

import { SECRETS_NAMESPACE } from './group.ts';
import {
  MAX_CONTENT_BYTES_PER_OBJECT,
  MAX_DROP_INS,
  MAX_FILES,
  MAX_PACKAGES,
  MAX_PATH_LENGTH,
  MAX_POLICIES,
  MAX_PROBE_ARGUMENTS,
  MAX_PROBE_TIMEOUT_SECONDS,
  MAX_REPOSITORIES,
  MAX_UNIT_NAME_LENGTH,
  MAX_UNIT_REFERENCES,
  MAX_UNITS,
  MAX_URL_LENGTH,
} from './limits.ts';
import {
  DEFAULT_PACKAGE_MANAGER,
  PACKAGE_MANAGER_NAMES,
  PACKAGE_RULES,
  REPOSITORY_FIELDS,
  REPOSITORY_FILE_RULES,
  REPOSITORY_RULES,
} from './packages/registry.ts';
import { REFUSED_PATH_PREFIXES, SYSTEMD_UNIT_DIRS } from './paths.ts';
import {
  BASE64_TEXT,
  DNS1123_SUBDOMAIN,
  DROP_IN_NAME,
  FILE_PATH,
  HTTP_URL,
  NORMALISED_PATH,
  OWNER,
  PACKAGE_NAME,
  PACKAGE_VERSION,
  POLICY_PATH,
  REPOSITORY_NAME,
  SECRET_KEY,
  UNIT_NAME,
} from './patterns.ts';
import {
  array,
  boolean,
  celString,
  defaulted,
  integer,
  keyedBy,
  object,
  optional,
  type Rule,
  string,
  stringEnum,
  withRules,
} from './schema-builder.ts';

/** What a change does to a node, from least to most disruptive (DaemonReload only reloads systemd). */
export const DISRUPTION_ACTIONS = ['None', 'DaemonReload', 'Reload', 'Restart', 'Drain', 'Reboot'] as const;

/** An absolute, normalised path (a unit's filePaths). */
const normalisedPath = (description: string) =>
  string(description, { pattern: NORMALISED_PATH, maxLength: MAX_PATH_LENGTH });

const unitNameBody = UNIT_NAME.slice(1, -1);
const unitDirs = `(${SYSTEMD_UNIT_DIRS.map((d) => d.replaceAll('.', '\\.')).join('|')})`;

/**
 * The rules of filePathProblem (config-rules.ts) a pattern cannot say: the refused trees, systemd's
 * unit files and drop-ins, and package managers' repository files.
 */
export const FILE_PATH_RULES = [
  {
    rule: `!(${REFUSED_PATH_PREFIXES.map((p) => `self == ${celString(p)} || self.startsWith(${celString(`${p}/`)})`).join(' || ')})`,
    message: `nodeherd does not write under ${REFUSED_PATH_PREFIXES.join(', ')}`,
    reason: 'FieldValueForbidden',
  },
  {
    rule: `!self.matches(${celString(`^${unitDirs}/${unitNameBody}$`)})`,
    message: 'systemd units are declared in spec.units, so that changes reload systemd and restart them',
    reason: 'FieldValueForbidden',
  },
  {
    rule: `!self.matches(${celString(`^${unitDirs}/[^/]*\\.d/[^/]*\\.conf$`)})`,
    message:
      'drop-ins are declared in spec.units[].dropIns, so that changes reload systemd and restart the unit',
    reason: 'FieldValueForbidden',
  },
  ...REPOSITORY_FILE_RULES,
] as const satisfies Rule[];

const filePath = (description: string) =>
  withRules(string(description, { pattern: FILE_PATH, maxLength: MAX_PATH_LENGTH }), [...FILE_PATH_RULES]);
const unitName = (description: string) =>
  string(description, { pattern: UNIT_NAME, maxLength: MAX_UNIT_NAME_LENGTH });
const disruptionAction = (description: string) => stringEnum(DISRUPTION_ACTIONS, description);
const packageName = (description: string) => string(description, { pattern: PACKAGE_NAME, maxLength: 255 });
const packageManager = (description: string) =>
  optional(stringEnum(PACKAGE_MANAGER_NAMES, `${description} Unset: ${DEFAULT_PACKAGE_MANAGER}.`));
const content = (description: string) => string(description, { maxLength: MAX_CONTENT_BYTES_PER_OBJECT });

export const inlineContentSchema = object(
  {
    data: content('The file content, encoded as `encoding` says.'),
    encoding: defaulted(
      stringEnum(['plain', 'base64'], '`plain` stores data as UTF-8 text; `base64` for binary content.'),
      'plain',
    ),
  },
  'Content stored in the NodeConfig itself.',
  // base64 data must decode: a pattern (free of CEL cost, which a rule over 1 MiB of data in each of
  // many files would exceed), conditional on the encoding through anyOf.
  {
    anyOf: [
      // The data branch first: where neither holds, its cause (the data) is the one reported.
      { properties: { data: { pattern: BASE64_TEXT } } },
      { properties: { encoding: { enum: ['plain'] } } },
    ],
  },
);

/**
 * A Secret reference's namespace: only SECRETS_NAMESPACE, as an enum so a real cluster's
 * kube-apiserver refuses any other from the CRD alone.
 */
export const secretNamespaceSchema = stringEnum(
  [SECRETS_NAMESPACE],
  `Namespace of the Secret: always ${SECRETS_NAMESPACE}, the only namespace whose Secrets nodeherd reads.`,
);

export const secretRefSchema = object(
  {
    namespace: secretNamespaceSchema,
    name: string('Name of the Secret.', { pattern: DNS1123_SUBDOMAIN, maxLength: 253 }),
    key: string('Key in the Secret whose value is the file content.', {
      pattern: SECRET_KEY,
      maxLength: 253,
    }),
    uid: optional(
      string(
        'Set by the renderer in NodeConfigRevisions only: the uid of the Secret rendered, so the agent ' +
          'refuses a Secret deleted and created again. Never set it in a NodeConfig.',
        { maxLength: 128 },
      ),
    ),
    resourceVersion: optional(
      string(
        'Set by the renderer in NodeConfigRevisions only: the resourceVersion of the Secret rendered, so a ' +
          'changed Secret yields a new revision and the agent refuses a value it was not rendered with. ' +
          'Never set it in a NodeConfig.',
        { maxLength: 128 },
      ),
    ),
  },
  'Content read by the agent from a Secret at apply time; never copied into revisions in clear.',
  {
    'x-kubernetes-validations': (['uid', 'resourceVersion'] as const).map((field) => ({
      rule: `!has(self.${field})`,
      message: 'set by the renderer in NodeConfigRevisions only',
      fieldPath: `.${field}`,
      reason: 'FieldValueForbidden',
    })),
  },
);

export const fileContentSchema = object(
  {
    inline: optional(inlineContentSchema),
    secretRef: optional(secretRefSchema),
  },
  'Exactly one of inline or secretRef.',
  {
    oneOf: [{ required: ['inline'] }, { required: ['secretRef'] }],
    // The same as a rule, for a field path (kube files oneOf's failure under no field).
    'x-kubernetes-validations': [
      { rule: 'has(self.inline) != has(self.secretRef)', message: 'exactly one of inline or secretRef' },
    ],
  },
);

export const fileSchema = object(
  {
    path: filePath('Absolute, normalised path of the file on the node.'),
    mode: defaulted(
      integer('Permission bits, 0 to 07777 (decimal in JSON: 420 is 0644).', { minimum: 0, maximum: 0o7777 }),
      0o644,
    ),
    owner: defaulted(
      string('User name or numeric uid owning the file.', { pattern: OWNER, maxLength: 32 }),
      'root',
    ),
    group: defaulted(
      string('Group name or numeric gid of the file.', { pattern: OWNER, maxLength: 32 }),
      'root',
    ),
    content: fileContentSchema,
  },
  'A file nodeherd writes (atomically) and removes again when it leaves the config.',
);

export const dropInSchema = object(
  {
    name: string('File name in the unit’s .d directory; must end in .conf.', {
      pattern: DROP_IN_NAME,
      maxLength: MAX_UNIT_NAME_LENGTH,
    }),
    content: content('The drop-in’s content.'),
  },
  'A systemd drop-in for a unit.',
);

export const healthProbeSchema = object(
  {
    http: optional(
      object(
        {
          url: string('http:// or https:// URL queried on the node.', {
            pattern: HTTP_URL,
            maxLength: MAX_URL_LENGTH,
          }),
          expectStatus: optional(
            integer('Expected HTTP status; any 2xx when unset.', { minimum: 100, maximum: 599 }),
          ),
        },
        'Probe by HTTP GET.',
      ),
    ),
    exec: optional(
      object(
        {
          command: array(string('An argument.'), 'Command and arguments; exit status 0 means healthy.', {
            minItems: 1,
            maxItems: MAX_PROBE_ARGUMENTS,
          }),
        },
        'Probe by running a command (no shell).',
      ),
    ),
    timeoutSeconds: defaulted(
      integer('Seconds before the probe counts as failed.', {
        minimum: 1,
        maximum: MAX_PROBE_TIMEOUT_SECONDS,
      }),
      10,
    ),
  },
  'How the agent checks that the unit works after it was (re)started. Exactly one of http or exec.',
  { oneOf: [{ required: ['http'] }, { required: ['exec'] }] },
);

export const unitSchema = object(
  {
    name: unitName('Unit name, e.g. kubelet.service, foo@.service (template) or foo@bar.service.'),
    content: optional(
      content(
        'The unit file. Absent: a unit nodeherd did not create (e.g. from a package); nodeherd then only ' +
          'manages its drop-ins, enablement and state, and never deletes it.',
      ),
    ),
    enabled: optional(
      boolean(
        'Whether the unit is enabled. Defaults to true for units nodeherd creates (except templates); ' +
          'absent on other units means "leave as is".',
      ),
    ),
    state: optional(
      stringEnum(
        ['running', 'stopped'],
        'Whether the unit should run. Defaults to running for units nodeherd creates (except templates); ' +
          'absent on other units means "leave as is".',
      ),
    ),
    dropIns: defaulted(
      array(dropInSchema, 'Drop-ins nodeherd writes for this unit.', {
        ...keyedBy('name'),
        maxItems: MAX_DROP_INS,
      }),
      [],
    ),
    filePaths: defaulted(
      array(normalisedPath('A path.'), 'Files whose change restarts this unit (or what a policy says).', {
        'x-kubernetes-list-type': 'set',
        maxItems: MAX_UNIT_REFERENCES,
      }),
      [],
    ),
    packages: defaulted(
      array(
        packageName('A package name.'),
        'Packages whose change restarts this unit (or what a policy says).',
        { 'x-kubernetes-list-type': 'set', maxItems: MAX_UNIT_REFERENCES },
      ),
      [],
    ),
    disruption: optional(
      disruptionAction(
        'What a change of this unit does instead of a restart, e.g. Reload, or Drain for a container runtime.',
      ),
    ),
    healthProbe: optional(healthProbeSchema),
  },
  'A systemd unit.',
  {
    'x-kubernetes-validations': [
      {
        rule: "!self.name.matches('@\\\\.[a-z]+$') || !has(self.state) || self.state != 'running'",
        message: 'a template unit cannot run; declare an instance such as name@x.service',
        fieldPath: '.state',
        reason: 'FieldValueForbidden',
      },
      {
        rule: "!has(self.healthProbe) || !has(self.state) || self.state != 'stopped'",
        message: 'a stopped unit cannot be probed',
        fieldPath: '.healthProbe',
        reason: 'FieldValueForbidden',
      },
    ],
  },
);

export const repositorySchema = object(
  {
    name: string('Name; also names the files under /etc/apt or /etc/yum.repos.d.', {
      pattern: REPOSITORY_NAME,
      maxLength: 63,
    }),
    manager: packageManager('The package manager the repository is for.'),
    // The fields of every manager's repositories (src/api/packages/registry.ts).
    ...REPOSITORY_FIELDS,
  },
  'A package repository: for apt a deb822 sources file, for dnf a .repo file (`uri` is its baseurl). ' +
    'Without signingKey the manager verifies it with the system keyrings (/etc/apt/trusted.gpg.d, or the ' +
    'keys in the RPM database): meant for mirrors of the distribution, whose key the nodes already trust.',
  // Each manager's rules, applied to its own repositories (packages/<manager>/).
  { 'x-kubernetes-validations': REPOSITORY_RULES },
);

export const packageSchema = object(
  {
    name: packageName('Package name, optionally with :architecture.'),
    manager: packageManager('The package manager that installs the package.'),
    version: optional(
      string(
        'Exact version, `*` allowed: apt `=` syntax, or dnf `[epoch:]version[-release]` (a version without ' +
          'release matches any release). Unset: any installed version is fine.',
        { pattern: PACKAGE_VERSION, maxLength: 255 },
      ),
    ),
    state: defaulted(
      stringEnum(['present', 'absent'], 'Whether the package should be installed.'),
      'present',
    ),
  },
  'A package. Removing it from the config stops managing it; `state: absent` uninstalls it.',
  {
    'x-kubernetes-validations': [
      {
        rule: "!has(self.version) || !has(self.state) || self.state != 'absent'",
        message: 'a package to be removed has no version',
        fieldPath: '.version',
        reason: 'FieldValueForbidden',
      },
      ...PACKAGE_RULES,
    ],
  },
);

export const disruptionPoliciesSchema = object(
  {
    files: defaulted(
      array(
        object(
          {
            path: string('An exact path, or a directory followed by /** for everything below it.', {
              pattern: POLICY_PATH,
              maxLength: MAX_PATH_LENGTH,
            }),
            action: disruptionAction('What a change of a matching file does.'),
          },
          'Policy for files; the most specific path wins.',
        ),
        'Policies by file path.',
        { ...keyedBy('path'), maxItems: MAX_POLICIES },
      ),
      [],
    ),
    units: defaulted(
      array(
        object(
          { name: unitName('A unit name.'), action: disruptionAction('What a change of the unit does.') },
          'Policy for a unit (a unit’s own `disruption` takes precedence).',
        ),
        'Policies by unit.',
        { ...keyedBy('name'), maxItems: MAX_POLICIES },
      ),
      [],
    ),
    packages: defaulted(
      array(
        object(
          {
            name: packageName('A package name.'),
            action: disruptionAction('What a change of the package does.'),
          },
          'Policy for a package.',
        ),
        'Policies by package.',
        { ...keyedBy('name'), maxItems: MAX_POLICIES },
      ),
      [],
    ),
    default: optional(
      stringEnum(
        ['None', 'DaemonReload', 'Drain', 'Reboot'],
        'What a change no unit depends on and no policy names does. Unset: None (the file is just written).',
      ),
    ),
  },
  'How changes disrupt a node. Without a policy a change restarts the units that depend on it, and nothing else.',
);

export const nodeConfigSpecSchema = object(
  {
    files: defaulted(array(fileSchema, 'Files.', { ...keyedBy('path'), maxItems: MAX_FILES }), []),
    units: defaulted(array(unitSchema, 'systemd units.', { ...keyedBy('name'), maxItems: MAX_UNITS }), []),
    repositories: defaulted(
      array(repositorySchema, 'Package repositories (apt or dnf).', {
        ...keyedBy('name'),
        maxItems: MAX_REPOSITORIES,
      }),
      [],
    ),
    packages: defaulted(
      array(packageSchema, 'Packages.', { ...keyedBy('name'), maxItems: MAX_PACKAGES }),
      [],
    ),
    disruptionPolicies: defaulted(disruptionPoliciesSchema, {}),
  },
  'Desired operating-system configuration. NodeConfigs selected by a NodeConfigPool are merged in name order.',
  {
    // Content of the whole object, in characters (CEL has no cheap byte count; nodeherd's validator
    // counts UTF-8 bytes and drop-ins too).
    'x-kubernetes-validations': [
      {
        rule:
          'self.files.map(f, has(f.content.inline) ? size(f.content.inline.data) : 0).sum() + ' +
          `self.units.map(u, has(u.content) ? size(u.content) : 0).sum() <= ${MAX_CONTENT_BYTES_PER_OBJECT}`,
        message: `files and units may hold at most ${MAX_CONTENT_BYTES_PER_OBJECT} characters of content in all`,
      },
    ],
  },
);

export const nodeConfigStatusSchema = object(
  {
    observedGeneration: optional(integer('Generation the controller last looked at.')),
    pools: optional(
      array(string('A pool name.'), 'NodeConfigPools whose configSelector selects this NodeConfig.'),
    ),
  },
  'Observed state, written by the controller.',
);
