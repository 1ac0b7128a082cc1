/** The checks every platform's listing passes before anything is stored (DESIGN §10), on their own. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkAttributes, checkCategory, checkSettings } from '../../src/core/listings/checks.js';
import type { CategoryAttribute } from '../../src/domain/index.js';

const color: CategoryAttribute = {
  name: '200',
  label: 'Primary color',
  required: true,
  type: 'select',
  values: [
    { value: '1', label: 'Black' },
    { value: '2', label: 'White' },
  ],
};
const occasions: CategoryAttribute = { ...color, name: '300', label: 'Occasion', required: false, type: 'multiselect' };
const material: CategoryAttribute = { name: '400', label: 'Material', required: false, type: 'text', values: [] };

const fields = (issues: { field: string | null }[]) => issues.map((i) => i.field);

test('a category must be known and a leaf', () => {
  assert.deepEqual(fields(checkCategory('9', null)), ['category_id']);
  const branch = { id: '1', name: 'Kitchen', path: ['Home', 'Kitchen'], leaf: false };
  assert.match(checkCategory('1', branch)[0]!.message, /^Home > Kitchen has subcategories/);
  assert.deepEqual(checkCategory('2', { ...branch, id: '2', leaf: true }), []);
});

test('attributes: required ones present, values among the choices, no unknown names, each on its own field', () => {
  assert.deepEqual(checkAttributes([color, occasions, material], { 200: '1', 300: ['1', '2'], 400: 'oak' }), []);
  assert.deepEqual(checkAttributes([color, occasions, material], { 200: '1' }), []);
  const issues = checkAttributes([color, occasions, material], { 300: ['9'], 400: '  ', 500: 'x' });
  assert.deepEqual(fields(issues), ['attributes.200', 'attributes.300', 'attributes.400', 'attributes.500']);
  assert.deepEqual(
    issues.map((i) => i.code),
    ['attribute_required', 'attribute_invalid', 'attribute_invalid', 'attribute_unknown'],
  );
  assert.ok(issues.every((i) => i.severity === 'error' && i.source === 'storelink' && i.message.length > 0));
  assert.deepEqual(fields(checkAttributes([color], { 200: 1 })), ['attributes.200']);
});

test('every missing setting is an issue on settings.<name>', () => {
  assert.deepEqual(fields(checkSettings(['shipping_profile_id', 'who_made'])), ['settings.shipping_profile_id', 'settings.who_made']);
  assert.deepEqual(checkSettings([]), []);
});
