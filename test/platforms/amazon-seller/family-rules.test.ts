/**
 * The pure rules of Amazon variation families (DESIGN §15): the theme chosen from the product type's themes by the
 * options' names, the parent SKU's name, and which listings are families.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parentSkuFor, themeAttributes, themeFor } from '../../../src/platforms/amazon-seller/listing-themes.js';
import { familyOf } from '../../../src/platforms/amazon-seller/listing-validation.js';
import { ListingRefused } from '../../../src/platforms/contracts/errors.js';
import type { ListingDraft } from '../../../src/platforms/contracts/listings.js';

const THEMES = ['SIZE_NAME', 'COLOR_NAME', 'SIZE_NAME/COLOR_NAME', 'COLOR/WATTAGE'];
const options = (...names: string[]) => names.map((name) => ({ name, values: ['a'] }));

describe('Amazon variation families: the rules', () => {
  test("a theme's parts name the attributes it varies on, with or without _NAME (the model's SIZE_NAME/COLOR_NAME is size, color)", () => {
    assert.deepEqual(themeAttributes('SIZE_NAME/COLOR_NAME'), ['size', 'color']);
    assert.deepEqual(themeAttributes('COLOR'), ['color']);
  });

  test('the theme is the first of the type that varies on exactly the options, in any order, Colour read as color', () => {
    assert.deepEqual(themeFor(options('Colour', 'Size'), THEMES), {
      theme: 'SIZE_NAME/COLOR_NAME',
      varied: { Colour: 'color', Size: 'size' },
    });
    assert.equal(themeFor(options('Color'), THEMES)?.theme, 'COLOR_NAME');
    assert.equal(themeFor(options('Color', 'Wattage'), THEMES)?.theme, 'COLOR/WATTAGE');
    assert.equal(themeFor(options('Material'), THEMES), null);
    assert.equal(themeFor(options('Color', 'Size', 'Material'), THEMES), null, 'every option must be varied on');
    assert.equal(themeFor(options('Color'), THEMES, 'SIZE_NAME'), null, 'a theme the listing names must fit too');
    assert.equal(themeFor(options('Color'), []), null);
  });

  test("a parent's SKU is the first variant's with -PARENT, shortened with a hash to Amazon's 40 characters", () => {
    assert.equal(parentSkuFor('MUG-W'), 'MUG-W-PARENT');
    const long = 'A'.repeat(38);
    const parent = parentSkuFor(long);
    assert.equal(parent.length, 40);
    assert.match(parent, /^A{26}-[0-9A-F]{6}-PARENT$/);
    assert.notEqual(parentSkuFor(`${'A'.repeat(37)}B`), parent, 'two long SKUs alike at the start name two parents');
  });

  const draft = (names: string[], attributes: Record<string, unknown> = {}) =>
    ({ options: options(...names), attributes, variants: [{ sku: 'V1' }], categoryId: 'SHIRT' }) as unknown as ListingDraft;

  test('a listing is a family when its product has options, unless it offers on an existing ASIN', () => {
    assert.equal(familyOf(draft([]), { themes: THEMES }, {}), null);
    assert.equal(familyOf(draft(['Color'], { merchant_suggested_asin: 'B0CATAL001' }), { themes: THEMES }, {}), null);
    assert.deepEqual(familyOf(draft(['Color']), { themes: THEMES }, {}), {
      theme: 'COLOR_NAME',
      varied: { Color: 'color' },
      parentSku: 'V1-PARENT',
    });
    // Its parent is the one it was made with, whatever the first variant is now.
    assert.equal(familyOf(draft(['Color']), { themes: THEMES }, { parent: 'OLD-PARENT', 'item.V1': 'x' })?.parentSku, 'OLD-PARENT');
  });

  test('a listing delivered as SKUs of their own keeps that shape; a family cannot lose its options', () => {
    assert.equal(familyOf(draft(['Color']), { themes: THEMES }, { 'item.V1': 'x' }), null);
    assert.throws(() => familyOf(draft([]), { themes: THEMES }, { parent: 'V1-PARENT' }), ListingRefused);
    assert.throws(() => familyOf(draft(['Material']), { themes: THEMES }, {}), ListingRefused);
  });
});
