/** Products as a seller sends them to POST /products, for the catalogue's tests. */

/** A product with two options and four variants, as a seller would send it. */
export function tote(prefix: string) {
  return {
    title: 'Linen tote bag',
    description: 'Hand-stitched, natural linen.',
    brand: 'Ada & Co',
    currency: 'USD',
    tags: ['tote', 'linen'],
    attributes: { material: 'linen' },
    options: [
      { name: 'Color', values: ['Natural', 'Black'] },
      { name: 'Size', values: ['S', 'L'] },
    ],
    variants: [
      { sku: `${prefix}-NAT-S`, option_values: { Color: 'Natural', Size: 'S' }, price: '24', quantity: 12 },
      { sku: `${prefix}-NAT-L`, option_values: { Color: 'Natural', Size: 'L' }, price: '26.5', quantity: 3 },
      { sku: `${prefix}-BLK-S`, option_values: { Color: 'Black', Size: 'S' }, price: '24.00', quantity: 0, barcode: '0123456789012' },
      { sku: `${prefix}-BLK-L`, option_values: { Color: 'Black', Size: 'L' }, price: '999999.99', quantity: 999999 },
    ],
    images: [{ url: 'https://example.com/tote.jpg', alt: 'The natural tote' }],
    package: { weight_grams: 250, length_mm: 400, width_mm: 300, height_mm: 20 },
  };
}

/** A product without options: exactly one variant. */
export function mug(sku: string, title = 'Stoneware mug') {
  return { title, currency: 'EUR', variants: [{ sku, price: '12.00', quantity: 4 }] };
}
