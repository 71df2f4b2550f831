import assert from 'node:assert/strict';
import { test } from 'node:test';
import { applyCustomResourceDefinitionDefaults } from '../../../src/apiserver/schema/crd-defaults.ts';
import { validateCustomResourceDefinition } from '../../../src/apiserver/schema/crd-validation.ts';
import { goJson } from '../../../src/apiserver/schema/go-format.ts';
import { nodeConfigSchema } from './node-config-fixture.ts';

function crd(): Record<string, any> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'nodeconfigs.nodeherd.io' },
    spec: {
      group: 'nodeherd.io',
      scope: 'Cluster',
      names: {
        plural: 'nodeconfigs',
        singular: 'nodeconfig',
        kind: 'NodeConfig',
        listKind: 'NodeConfigList',
        shortNames: ['nc'],
      },
      versions: [
        {
          name: 'v1alpha1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: structuredClone(nodeConfigSchema) },
          subresources: { status: {} },
          additionalPrinterColumns: [
            { name: 'Files', type: 'integer', jsonPath: '.status.fileCount' },
            { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
          ],
        },
      ],
    },
  };
}

function texts(obj: unknown): string[] {
  return validateCustomResourceDefinition(obj).map((c) => `${c.field}: ${c.message}`);
}

function after(mutate: (c: Record<string, any>) => void): string[] {
  const c = crd();
  mutate(c);
  return texts(c);
}

const schemaAt = 'spec.validation.openAPIV3Schema';

test('a valid NodeConfig CRD has no causes', () => {
  assert.deepEqual(texts(crd()), []);
});

test('v1 defaults fill singular, listKind and conversion', () => {
  const c = crd();
  delete c.spec.names.singular;
  delete c.spec.names.listKind;
  applyCustomResourceDefinitionDefaults(c);
  assert.equal(c.spec.names.singular, 'nodeconfig');
  assert.equal(c.spec.names.listKind, 'NodeConfigList');
  assert.deepEqual(c.spec.conversion, { strategy: 'None' });
  assert.deepEqual(texts(c), []);
  const webhook = {
    strategy: 'Webhook',
    webhook: { clientConfig: { service: { namespace: 'n', name: 's' } }, conversionReviewVersions: ['v1'] },
  };
  const d = crd();
  d.spec.conversion = webhook;
  applyCustomResourceDefinitionDefaults(d);
  assert.equal(d.spec.conversion.webhook.clientConfig.service.port, 443);
});

test('metadata, group, scope and names', () => {
  const cases: [string, (c: Record<string, any>) => void, string[]][] = [
    [
      'name must be plural.group',
      (c) => {
        c.metadata.name = 'configs.nodeherd.io';
      },
      ['metadata.name: Invalid value: "configs.nodeherd.io": must be spec.names.plural+"."+spec.group'],
    ],
    [
      'group with one label',
      (c) => {
        c.spec.group = 'nodeherd';
        c.metadata.name = 'nodeconfigs.nodeherd';
      },
      ['spec.group: Invalid value: "nodeherd": should be a domain with at least one dot'],
    ],
    [
      'missing group',
      (c) => {
        delete c.spec.group;
        c.metadata.name = 'nodeconfigs.';
      },
      [
        `metadata.name: Invalid value: "nodeconfigs.": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
        'spec.group: Required value',
      ],
    ],
    [
      'scope',
      (c) => {
        c.spec.scope = 'Global';
      },
      ['spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"'],
    ],
    [
      'names required and DNS-1035',
      (c) => {
        c.spec.names = { plural: 'nodeconfigs', kind: 'Node_Config', shortNames: ['n c'] };
      },
      [
        'spec.names.singular: Required value',
        'spec.names.listKind: Required value',
        "spec.names.kind: Invalid value: \"Node_Config\": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
        "spec.names.shortNames[0]: Invalid value: \"n c\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
      ],
    ],
    [
      'kind equals listKind',
      (c) => {
        c.spec.names.listKind = 'NodeConfig';
      },
      ['spec.names.listKind: Invalid value: "NodeConfig": kind and listKind may not be the same'],
    ],
    [
      'protected group without approval',
      (c) => {
        c.spec.group = 'x.k8s.io';
        c.metadata.name = 'nodeconfigs.x.k8s.io';
      },
      [
        'metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111',
      ],
    ],
    [
      'preserveUnknownFields true',
      (c) => {
        c.spec.preserveUnknownFields = true;
      },
      [
        'spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead',
      ],
    ],
  ];
  for (const [name, mutate, want] of cases) assert.deepEqual(after(mutate), want, name);
});

test('versions: exactly one storage version, unique DNS-1035 names, schemas required', () => {
  const noStorage = crd();
  noStorage.spec.versions[0].storage = false;
  assert.deepEqual(texts(noStorage), [
    `spec.versions: Invalid value: ${goJson(noStorage.spec.versions)}: must have exactly one version marked as storage version`,
  ]);

  const twice = crd();
  twice.spec.versions.push({ ...structuredClone(twice.spec.versions[0]), storage: false });
  assert.deepEqual(texts(twice), [
    `spec.versions: Invalid value: ${goJson(twice.spec.versions)}: must contain unique version names`,
  ]);

  assert.deepEqual(
    after((c) => {
      c.spec.versions[0].name = 'V1';
    }),
    [
      "spec.versions[0].name: Invalid value: \"V1\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
    ],
  );
  assert.deepEqual(
    after((c) => {
      delete c.spec.versions[0].schema;
    }),
    ['spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required'],
  );
  assert.deepEqual(
    after((c) => {
      c.spec.versions[0].deprecationWarning = 'old';
    }),
    ['spec.versions[0].deprecationWarning: Invalid value: "old": can only be set for deprecated versions'],
  );
  assert.deepEqual(
    after((c) => {
      c.spec.versions[0].served = 'yes';
    }),
    ['spec.versions[0].served: Invalid value: "yes": must be a boolean'],
  );
});

test('schema errors sit under spec.validation when every version shares the schema', () => {
  const single = after((c) => {
    c.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.bad = { properties: {} };
  });
  assert.deepEqual(single, [
    `${schemaAt}.properties[spec].properties[bad].type: Required value: must not be empty for specified object fields`,
  ]);

  const twoSame = after((c) => {
    c.spec.versions.push({ ...structuredClone(c.spec.versions[0]), name: 'v1beta1', storage: false });
    for (const v of c.spec.versions) v.schema.openAPIV3Schema.properties.spec.type = undefined;
  });
  assert.deepEqual(twoSame, [
    `${schemaAt}.properties[spec].type: Required value: must not be empty for specified object fields`,
  ]);

  const different = after((c) => {
    const v2 = structuredClone(c.spec.versions[0]);
    v2.name = 'v1beta1';
    v2.storage = false;
    v2.schema.openAPIV3Schema.properties.spec.type = undefined;
    c.spec.versions.push(v2);
  });
  assert.deepEqual(different, [
    'spec.versions[1].schema.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields',
  ]);
});

test('OpenAPI keywords CRDs do not allow', () => {
  const on = (mutate: (spec: Record<string, any>) => void) =>
    after((c) => mutate(c.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties));
  const cases: [string, (p: Record<string, any>) => void, string[]][] = [
    [
      'uniqueItems',
      (p) => {
        p.units.uniqueItems = true;
      },
      [
        `${schemaAt}.properties[spec].properties[units].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic`,
      ],
    ],
    [
      'additionalProperties with properties',
      (p) => {
        p.labels.properties = { a: { type: 'string' } };
      },
      [
        `${schemaAt}.properties[spec].properties[labels].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive`,
      ],
    ],
    [
      '$ref',
      (p) => {
        p.paused.$ref = '#/definitions/x';
      },
      [`${schemaAt}.properties[spec].properties[paused].$ref: Forbidden: $ref is not supported`],
    ],
    [
      'unknown type',
      (p) => {
        p.paused.type = 'bool';
      },
      [
        `${schemaAt}.properties[spec].properties[paused].type: Unsupported value: "bool": supported values: "array", "boolean", "integer", "number", "object", "string"`,
      ],
    ],
    [
      'preserve-unknown-fields false',
      (p) => {
        p.extra['x-kubernetes-preserve-unknown-fields'] = false;
      },
      [
        `${schemaAt}.properties[spec].properties[extra].x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined`,
      ],
    ],
    [
      'list-map key neither required nor defaulted',
      (p) => {
        p.units.items.required = [];
      },
      [
        `${schemaAt}.properties[spec].properties[units].items.properties[name].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property`,
      ],
    ],
    [
      'list-map keys must be item properties and the list needs list-type map',
      (p) => {
        p.units['x-kubernetes-list-map-keys'] = ['id'];
      },
      [
        `${schemaAt}.properties[spec].properties[units].x-kubernetes-list-map-keys: Invalid value: ["id"]: entries must all be names of item properties`,
      ],
    ],
    [
      'list-type on a non-array',
      (p) => {
        p.labels['x-kubernetes-list-type'] = 'set';
      },
      [
        `${schemaAt}.properties[spec].properties[labels].type: Invalid value: "object": must be array if x-kubernetes-list-type is specified`,
      ],
    ],
    [
      'default that does not validate',
      (p) => {
        p.files.items.properties.mode.default = 'rw';
      },
      [
        `${schemaAt}.properties[spec].properties[files].items.properties[mode].default: Invalid value: "string":  in body must be of type integer: "string"`,
      ],
    ],
    [
      'default with unknown fields',
      (p) => {
        p.rollout.default = { surge: 1 };
      },
      [
        `${schemaAt}.properties[spec].properties[rollout].default: Invalid value: {"surge":1}: must not have unknown fields`,
      ],
    ],
    [
      'CEL rule shape',
      (p) => {
        p.files['x-kubernetes-validations'] = [{ rule: '  ' }];
      },
      [
        `${schemaAt}.properties[spec].properties[files].x-kubernetes-validations[0].rule: Required value: rule is not specified`,
      ],
    ],
    [
      'CEL rule that does not compile',
      (p) => {
        p.files['x-kubernetes-validations'] = [{ rule: 'self.size() >' }, { rule: 'self.size() < 5' }];
      },
      [
        `${schemaAt}.properties[spec].properties[files].x-kubernetes-validations[0].rule: Invalid value: "self.size() >": compilation failed: Unexpected token: EOF`,
      ],
    ],
    [
      'CEL messageExpression that does not compile, unknown function, bad RE2 pattern',
      (p) => {
        p.files['x-kubernetes-validations'] = [
          { rule: 'self.size() < 5', messageExpression: "'n=' +" },
          { rule: 'self.noSuchFunction()' },
          { rule: "self.all(f, f.path.matches('(?=x)'))" },
        ];
      },
      [
        `${schemaAt}.properties[spec].properties[files].x-kubernetes-validations[0].messageExpression: Invalid value: "'n=' +": messageExpression compilation failed: Unexpected token: EOF`,
        `${schemaAt}.properties[spec].properties[files].x-kubernetes-validations[1].rule: Invalid value: "self.noSuchFunction()": compilation failed: found no matching overload for 'dyn.noSuchFunction()'`,
        `${schemaAt}.properties[spec].properties[files].x-kubernetes-validations[2].rule: Invalid value: "self.all(f, f.path.matches('(?=x)'))": compilation failed: invalid regular expression '(?=x)': error parsing regexp: invalid or unsupported Perl syntax: \`(?=\``,
      ],
    ],
    [
      'CEL field not in the schema (on self, through items and map values; the metadata CEL sees)',
      (p) => {
        p.files['x-kubernetes-validations'] = [
          { rule: "self.all(f, f.path != '')" }, // comprehension variables are not checked
          { rule: "self[0].content.inline.dataa == ''" },
          { rule: "self[0].mode > 0 && self[0].owner != ''" },
        ];
        p.labels['x-kubernetes-validations'] = [{ rule: "self.anyKey == 'x'" }];
        p.extra['x-kubernetes-validations'] = [{ rule: 'self.anything.goes == 1' }];
        p.template['x-kubernetes-validations'] = [
          { rule: "self.kind == 'Pod' && self.metadata.name != '' && self.spec.x == 1" },
          { rule: 'self.metadata.labels.size() > 0', messageExpression: 'self.metadata.annotations' },
        ];
      },
      [
        `${schemaAt}.properties[spec].properties[files].x-kubernetes-validations[1].rule: Invalid value: "self[0].content.inline.dataa == ''": compilation failed: undefined field 'dataa'`,
        `${schemaAt}.properties[spec].properties[template].x-kubernetes-validations[1].rule: Invalid value: "self.metadata.labels.size() > 0": compilation failed: undefined field 'labels'`,
        `${schemaAt}.properties[spec].properties[template].x-kubernetes-validations[1].messageExpression: Invalid value: "self.metadata.annotations": messageExpression compilation failed: undefined field 'annotations'`,
      ],
    ],
    [
      'CEL oldSelf under items of an atomic list; optionalOldSelf without oldSelf; fieldPath not in the schema',
      (p) => {
        p.units.items.properties.name['x-kubernetes-validations'] = [{ rule: 'self == oldSelf' }]; // a map list: fine
        p.units.items['x-kubernetes-validations'] = [
          { rule: 'true', optionalOldSelf: true, fieldPath: '.nope' },
        ];
        p.tags = {
          type: 'array',
          items: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self == oldSelf' }] },
        };
      },
      [
        `${schemaAt}.properties[spec].properties[units].items.x-kubernetes-validations[0].optionalOldSelf: Forbidden: may not be set if oldSelf is not used in rule`,
        `${schemaAt}.properties[spec].properties[units].items.x-kubernetes-validations[0].fieldPath: Invalid value: ".nope": does not refer to a valid field: nope is not in the schema`,
        `${schemaAt}.properties[spec].properties[tags].items.x-kubernetes-validations[0].rule: Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within items of a list that is not a map or a set`,
      ],
    ],
  ];
  for (const [name, mutate, want] of cases) assert.deepEqual(on(mutate), want, name);
});

test('root schema rules: defaults in metadata, status subresource, nullable', () => {
  assert.deepEqual(
    after((c) => {
      c.spec.versions[0].schema.openAPIV3Schema.properties.metadata = { type: 'object', default: {} };
    }),
    [`${schemaAt}.properties[metadata].default: Forbidden: must not be set in top-level metadata`],
  );
  const withStatus = after((c) => {
    c.spec.versions[0].schema.openAPIV3Schema.description = 'fine';
    c.spec.versions[0].schema.openAPIV3Schema.maxProperties = 9;
  });
  assert.equal(withStatus.length, 1);
  assert.ok(
    withStatus[0]!.startsWith(`${schemaAt}: Invalid value: {"description":"fine","maxProperties":9,`),
  );
  assert.ok(
    withStatus[0]!.endsWith(
      ': only [Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations] fields are allowed at the root of the schema if the status subresource is enabled',
    ),
  );
  assert.deepEqual(
    after((c) => {
      delete c.spec.versions[0].subresources;
      c.spec.versions[0].schema.openAPIV3Schema.nullable = true;
    }),
    [`${schemaAt}.nullable: Forbidden: nullable cannot be true at the root`],
  );
});

test('subresources and printer columns are validated, hoisted like schemas', () => {
  assert.deepEqual(
    after((c) => {
      c.spec.versions[0].additionalPrinterColumns = [
        { name: '', type: 'float', format: 'hex', jsonPath: 'status.x' },
        { name: 'Bad', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready"' },
      ];
      c.spec.versions[0].subresources = { status: {}, scale: { specReplicasPath: '.status.replicas' } };
    }),
    [
      'spec.subresources.scale.specReplicasPath: Invalid value: ".status.replicas": should be a json path under .spec',
      'spec.subresources.scale.statusReplicasPath: Required value',
      'spec.additionalPrinterColumns[0].name: Required value',
      'spec.additionalPrinterColumns[0].type: Invalid value: "float": must be one of boolean,date,integer,number,string',
      'spec.additionalPrinterColumns[0].format: Invalid value: "hex": must be one of byte,date,date-time,double,float,int32,int64,password',
      'spec.additionalPrinterColumns[0].JSONPath: Invalid value: "status.x": must be a simple json path starting with .',
      'spec.additionalPrinterColumns[1].JSONPath: Invalid value: ".status.conditions[?(@.type==\\"Ready\\"": must be a valid JSONPath: unterminated array in ".status.conditions[?(@.type==\\"Ready\\"" at 36',
    ],
  );
});

test('conversion strategy and webhook configuration', () => {
  assert.deepEqual(
    after((c) => {
      c.spec.conversion = { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v2'] } };
    }),
    [
      'spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook',
      'spec.conversion.conversionReviewVersions: Invalid value: ["v2"]: must include at least one of v1, v1beta1',
    ],
  );
  assert.deepEqual(
    after((c) => {
      c.spec.conversion = { strategy: 'None', webhook: { clientConfig: { url: 'https://x' } } };
    }),
    ['spec.conversion.webhookClientConfig: Forbidden: should not be set when strategy is not set to Webhook'],
  );
});
