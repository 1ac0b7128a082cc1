/**
 * What a product change changed, in the audit log's words (docs/catalogue.md, "The audit log"): the title it had, each
 * field from → to, each variant's price and stock by its sku, variants added and removed, the images' count. At most CHANGES_MAX are
 * named; the rest are counted.
 */
import type { ProductRecord } from '../../db/products.repo.js';

const CHANGES_MAX = 12;
/** Long text is cut to this many characters in the log. */
const TEXT_MAX = 60;

const shown = (value: unknown): string => {
  if (value === null || value === undefined || value === '') return '(none)';
  const text = Array.isArray(value) ? value.join(', ') : typeof value === 'object' ? JSON.stringify(value) : String(value);
  return text.length > TEXT_MAX ? `${text.slice(0, TEXT_MAX - 1)}\u2026` : text;
};

/** The changes from `before` to `after`, as audit details: `{"<what>": "<from> → <to>"}`. */
export function productChanges(before: ProductRecord, after: ProductRecord): Record<string, string> {
  const changes: [string, string][] = [];
  const field = (name: string, from: unknown, to: unknown) => {
    if (JSON.stringify(from) !== JSON.stringify(to)) changes.push([name, `${shown(from)} \u2192 ${shown(to)}`]);
  };
  // The entry names the product by its title now: a new title says the one it had.
  if (before.title !== after.title) changes.push(['renamed from', shown(before.title)]);
  field('description', before.description, after.description);
  field('brand', before.brand, after.brand);
  field('currency', before.currency, after.currency);
  field('tags', before.tags, after.tags);
  field('handle', before.handle, after.handle);
  field('attributes', before.attributes, after.attributes);
  field('options', before.options, after.options);
  field('package', before.package, after.package);
  const old = new Map(before.variants.map((v) => [v.sku, v]));
  const now = new Set(after.variants.map((v) => v.sku));
  for (const variant of after.variants) {
    const was = old.get(variant.sku);
    if (!was) {
      changes.push([variant.sku, `added at ${variant.price}, ${variant.quantity} in stock`]);
      continue;
    }
    field(`${variant.sku} price`, was.price, variant.price);
    field(`${variant.sku} stock`, was.quantity, variant.quantity);
    field(`${variant.sku} barcode`, was.barcode, variant.barcode);
  }
  for (const variant of before.variants) if (!now.has(variant.sku)) changes.push([variant.sku, 'removed']);
  if (before.images.length !== after.images.length) changes.push(['images', `${before.images.length} \u2192 ${after.images.length}`]);
  else if (before.images.some((image, i) => image.url !== after.images[i]?.url || image.alt !== after.images[i]?.alt))
    changes.push(['images', 'reordered or changed']);
  const named = Object.fromEntries(changes.slice(0, CHANGES_MAX));
  if (changes.length > CHANGES_MAX) named['and more'] = `${changes.length - CHANGES_MAX} other changes`;
  return named;
}
