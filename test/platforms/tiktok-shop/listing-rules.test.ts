/** TikTok Shop's category rules Storelink checks itself (listings.md §2.3, Get Category Rules): certificates and empty choices. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CategoryAttribute } from '../../../src/domain/index.js';
import { type ListingDraft, noFile } from '../../../src/platforms/contracts/listings.js';
import { checkCertifications, checkEmptyChoices } from '../../../src/platforms/tiktok-shop/listing-rules.js';

const draft: ListingDraft = {
  title: 'Market tote bag',
  description: 'A bag.',
  tags: [],
  brand: null,
  currency: 'GBP',
  categoryId: '602011',
  attributes: {},
  options: [],
  variants: [{ sku: 'A', optionValues: {}, price: '24.00', quantity: 3, barcode: null }],
  images: [],
  package: null,
  file: noFile,
};
const material: CategoryAttribute = {
  name: '100392',
  label: 'Material',
  required: false,
  type: 'text',
  values: [
    { value: '1001536', label: 'Canvas' },
    { value: '1001539', label: 'Leather' },
  ],
};
const leatherRule = {
  id: '700103',
  name: 'Leather REACH declaration',
  is_required: false,
  requirement_conditions: [{ condition_type: 'VALUE_ID_MATCH', attribute_id: '100392', attribute_value_id: '1001539' }],
};
const rules = {
  product_certifications: [{ id: '700101', name: 'Optional certificate', is_required: false, requirement_conditions: [] }, leatherRule],
};
const fieldsOf = (issues: { field: string | null; code: string }[]) => issues.map((issue) => [issue.field, issue.code]);

test('an optional certification, or one whose condition is not met, says nothing', () => {
  assert.deepEqual(checkCertifications(rules, { ...draft, attributes: { 100392: '1001536' } }, [material]), []);
  assert.deepEqual(checkCertifications(null, draft, [material]), []);
});

test('a condition is met by the value id, or by its name given as text', () => {
  for (const value of ['1001539', 'leather', ['1001539']]) {
    const issues = checkCertifications(rules, { ...draft, attributes: { 100392: value } }, [material]);
    assert.deepEqual(fieldsOf(issues), [['attributes.certification:700103', 'tiktok_certification_required']], JSON.stringify(value));
    assert.match(issues[0]!.message, /"Leather REACH declaration" for a product in this category when Material is Leather\. Upload it/);
    assert.match(issues[0]!.message, /, or choose another Material\.$/);
  }
});

test('a certification always required is one error on its attribute, whatever the attributes, its conditions ignored', () => {
  const always = { product_certifications: [{ ...leatherRule, is_required: true }] };
  const issues = checkCertifications(always, draft, [material]);
  assert.deepEqual(fieldsOf(issues), [['attributes.certification:700103', 'tiktok_certification_required']]);
  assert.match(
    issues[0]!.message,
    /^TikTok Shop needs the certificate "Leather REACH declaration" for a product in this category\. Upload it \(a PDF of at most 20 MB, or an image\) as “Leather REACH declaration” in the publish form\.$/,
  );
});

test('a required certification the listing names a file for says nothing', () => {
  const always = { product_certifications: [{ ...leatherRule, is_required: true }] };
  const named = { 'certification:700103': `${'a'.repeat(64)}.pdf`, 100392: '1001539' };
  assert.deepEqual(checkCertifications(always, { ...draft, attributes: named }, [material]), []);
  assert.deepEqual(checkCertifications(rules, { ...draft, attributes: named }, [material]), []);
});

test('a required size chart, responsible person or manufacturer the seller has none of says where to make one', () => {
  const none = (name: string, type: CategoryAttribute['type']): CategoryAttribute => ({
    name,
    label: name,
    required: true,
    type,
    values: [],
  });
  const attributes = [none('size_chart', 'select'), none('responsible_person_ids', 'multiselect'), none('manufacturer_ids', 'multiselect')];
  const issues = checkEmptyChoices(draft, attributes);
  assert.deepEqual(fieldsOf(issues), [
    ['attributes.size_chart', 'tiktok_choice_missing'],
    ['attributes.responsible_person_ids', 'tiktok_choice_missing'],
    ['attributes.manufacturer_ids', 'tiktok_choice_missing'],
  ]);
  assert.match(issues[0]!.message, /Seller Center \(Manage Products > Bulk action > Batch manage size charts\)/);
  // With choices to pick from, the engine's own "is required" is enough.
  assert.deepEqual(checkEmptyChoices(draft, [{ ...attributes[0]!, values: [{ value: '1', label: 'Tops' }] }]), []);
});
