import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isSupportedFormat, matchesFormat } from '../../../src/apiserver/schema/string-formats.ts';

test('only apiextensions-supported formats are checked', () => {
  for (const f of ['date-time', 'datetime', 'uuid', 'ipv4', 'byte', 'hostname', 'cidr'])
    assert.ok(isSupportedFormat(f), f);
  for (const f of ['int32', 'int64', 'float', 'double', 'quantity', 'k8s-short-name', undefined]) {
    assert.ok(!isSupportedFormat(f), String(f));
  }
  assert.equal(matchesFormat('int32', 'anything'), undefined);
});

test('formats accept and reject like kube-openapi strfmt', () => {
  const cases: [string, string, boolean][] = [
    ['date-time', '2024-02-29T13:04:05Z', true],
    ['date-time', '2024-02-29t13:04:05.123+02:00', true],
    ['date-time', '2023-02-29T13:04:05Z', false],
    ['date-time', '2024-01-01 13:04:05Z', false],
    ['date-time', '2024-01-01T25:00:00Z', false],
    ['date-time', '2024-01-01T10:00:00', false],
    ['date', '2024-12-31', true],
    ['date', '2024-13-01', false],
    ['uuid', '123e4567-e89b-12d3-a456-426614174000', true],
    ['uuid', '123E4567E89B12D3A456426614174000', true],
    ['uuid', 'not-a-uuid', false],
    ['uuid4', '123e4567-e89b-42d3-a456-426614174000', true],
    ['uuid4', '123e4567-e89b-12d3-a456-426614174000', false],
    ['ipv4', '10.0.0.1', true],
    ['ipv4', '10.0.0.256', false],
    ['ipv6', 'fd00::1', true],
    ['ipv6', '10.0.0.1', false],
    ['cidr', '10.0.0.0/8', true],
    ['cidr', 'fd00::/64', true],
    ['cidr', '10.0.0.0/33', false],
    ['mac', '00:1a:2b:3c:4d:5e', true],
    ['mac', '001a.2b3c.4d5e', true],
    ['mac', '00:1a:2b', false],
    ['hostname', 'node-1.example.com', true],
    ['hostname', '-node', false],
    ['email', 'ops@example.com', true],
    ['email', 'Ops <ops@example.com>', true],
    ['email', 'ops', false],
    ['uri', 'https://example.com/x', true],
    ['uri', '/relative/path', true],
    ['uri', 'example.com', false],
    ['byte', 'aGVsbG8=', true],
    ['byte', 'aGVsbG8', false],
    ['duration', '1h30m', true],
    ['duration', '5 days', true],
    ['duration', 'soon', false],
    ['hexcolor', '#ff00AA', true],
    ['rgbcolor', 'rgb(255, 0, 10)', true],
    ['rgbcolor', 'rgb(256,0,0)', false],
    ['isbn10', '0321751043', true],
    ['isbn13', '978-0321751041', true],
    ['isbn13', '978-0321751042', false],
    ['creditcard', '4111 1111 1111 1111', true],
    ['creditcard', '4111 1111 1111 1112', false],
    ['ssn', '123-45-6789', true],
    ['bsonobjectid', '507f1f77bcf86cd799439011', true],
    ['password', '', true],
  ];
  for (const [format, value, want] of cases)
    assert.equal(matchesFormat(format, value), want, `${format}: ${value}`);
});
