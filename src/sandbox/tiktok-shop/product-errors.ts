/**
 * The product API's error codes (listings.md §2.4–2.7, from TikTok's Create Product, Upload Product Image, Update
 * Price/Inventory and batch-call pages). TikTok documents the codes with a short meaning, not the exact message, so every
 * message here is written from that meaning; a code TikTok does not document for the case is marked ASSUMPTION.
 */
import type { TikTokError } from './errors.js';

export const PRODUCT_ERRORS = {
  categoryMissing: [12_052_023, 'The category does not exist.'],
  categoryNotLeaf: [12_052_024, 'The category is not a leaf category.'],
  mainImageRequired: [12_052_028, 'The main image is required.'],
  // ASSUMPTION: an image TikTok does not host is answered with the main-image code (listings.md §2.4 says only that such
  // URLs cannot be used).
  mainImageNotHosted: (uri: string): TikTokError => [
    12_052_028,
    `The main image ${uri} is not an image uploaded to TikTok Shop. Upload it with Upload Product Image first.`,
  ],
  tooManySkus: [12_052_050, 'The product has too many SKUs.'],
  titleTooLong: [12_052_051, 'The product title is too long.'],
  stockOutOfRange: [12_052_055, 'The stock quantity is out of range.'],
  priceInvalid: [12_052_073, 'The price is invalid.'],
  currencyUnavailable: [12_052_084, 'The currency is not available in this market.'],
  packageWeightInvalid: [12_019_011, 'The package weight is invalid.'],
  packageSizeInvalid: [12_019_012, 'The package size is invalid.'],
  otherSellersProduct: [12_052_048, "You can't edit other sellers' products."],
  wrongStatus: [12_052_901, 'The product is not available for this operation in its current status.'],
  allWarehouses: [12_019_028, 'Every warehouse of a multi-warehouse SKU must be sent.'],
  internal: [12_001_000, 'Internal error.'],
  imageInvalid: [12_038_002, 'The file is not a valid image.'],
  imageUnsupported: [12_038_004, 'The image format is not supported.'],
  imageTooBig: [12_038_005, 'The image is too big.'],
  imageDimensions: [12_019_116, 'The image dimensions are out of range.'],
  // ASSUMPTION: codes TikTok does not document for these cases; 36009004 is its common parameter-error code.
  fieldInvalid: (field: string, rule: string): TikTokError => [36_009_004, `Invalid parameter. \`${field}\` ${rule}`],
  attributeRequired: (name: string): TikTokError => [36_009_004, `Invalid parameter. The product attribute ${name} is required.`],
  warehouseUnknown: (id: string): TikTokError => [36_009_004, `Invalid parameter. The warehouse ${id} is not a warehouse of this shop.`],
  // ASSUMPTION: the code of a product id that names no product at all (the batch pages show only 12052048).
  productMissing: [12_052_700, 'The product does not exist.'],
  // ASSUMPTION: the wording of a shop_cipher the token does not cover, and of a body that is not JSON (36009022 is the
  // common "Invalid request format").
  shopCipher: [36_009_004, 'Invalid shop_cipher. The `shop_cipher` query parameter is missing or not a shop this access token authorizes.'],
  requestFormat: [36_009_022, 'Invalid request format. The request body must be a JSON object.'],
} as const satisfies Record<string, TikTokError | ((...args: string[]) => TikTokError)>;
