/** The catalogue's CSV template the dashboard offers ("Import CSV…"), apart so a test imports it as it is. */

/** The columns a file may have (docs/catalogue.md, "CSV"), in the export's order. */
export const TEMPLATE_COLUMNS = [
  'handle',
  'title',
  'description',
  'brand',
  'tags',
  'currency',
  'option1_name',
  'option1_value',
  'option2_name',
  'option2_value',
  'option3_name',
  'option3_value',
  'sku',
  'price',
  'quantity',
  'barcode',
  'weight_grams',
  'length_mm',
  'width_mm',
  'height_mm',
  'image_urls',
];

/** A template to fill in: the columns, and a product of two sizes as an example (its second row repeats the handle alone). */
export const TEMPLATE = [
  TEMPLATE_COLUMNS.join(','),
  'linen-tote,Linen tote bag,Hand-stitched natural linen.,Ada & Co,"tote, linen",USD,Size,S,,,,,TOTE-S,24.00,10,,250,400,300,20,https://example.com/tote.jpg',
  'linen-tote,,,,,,,L,,,,,TOTE-L,26.00,5,,,,,,',
].join('\r\n');
