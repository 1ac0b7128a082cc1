/** The catalogue's words and rules (DESIGN §9): what a product, a variant and an image are, and their limits. */

export const PRODUCT_TITLE_MAX = 140;
export const PRODUCT_DESCRIPTION_MAX = 50_000;
export const PRODUCT_TAGS_MAX = 13;
export const PRODUCT_TAG_LENGTH_MAX = 20;
export const PRODUCT_OPTIONS_MAX = 3;
export const PRODUCT_IMAGES_MAX = 10;
/** Variants of one product: every combination of three options of up to 10 values each, well above any platform's. */
export const PRODUCT_VARIANTS_MAX = 1_000;
export const OPTION_NAME_LENGTH_MAX = 40;
export const OPTION_VALUE_LENGTH_MAX = 60;
/** Values of one option. */
export const OPTION_VALUES_MAX = 100;
export const SKU_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;
/** A price: a decimal string with at most two decimals; it must also be above 0 and below PRICE_LIMIT. */
export const PRICE_PATTERN = /^[0-9]{1,6}(\.[0-9]{1,2})?$/;
/** A product's handle (DESIGN §9): 1 to 100 lowercase letters, digits and hyphens, a hyphen never first or last. */
export const HANDLE_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,98}[a-z0-9])?$/;
export const HANDLE_LENGTH_MAX = 100;

/**
 * A handle made from any text (a title, a CSV file's handle): letters without their accents, lowercased, every run of
 * anything else one hyphen, at most 100 characters; `product` for text with no letter or digit.
 */
export function handleFrom(text: string): string {
  const slug = text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, HANDLE_LENGTH_MAX)
    .replace(/^-+|-+$/g, '');
  return slug === '' ? 'product' : slug;
}
export const PRICE_LIMIT = 1_000_000;
export const QUANTITY_MAX = 999_999;
export const BARCODE_LENGTH_MAX = 32;
export const ATTRIBUTES_MAX = 50;
export const ATTRIBUTE_KEY_LENGTH_MAX = 60;
export const ATTRIBUTE_VALUE_LENGTH_MAX = 500;
export const IMAGE_ALT_LENGTH_MAX = 500;
export const IMAGE_URL_LENGTH_MAX = 2_048;
/** Package measures: whole grams and millimetres, positive, below these. */
export const PACKAGE_WEIGHT_GRAMS_MAX = 1_000_000;
export const PACKAGE_LENGTH_MM_MAX = 10_000;

/** An uploaded image: JPEG, PNG, WebP or GIF, recognised by its bytes, at most 10 MB. */
export const IMAGE_TYPES = {
  jpg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  gif: 'image/gif',
} as const;
export type ImageExtension = keyof typeof IMAGE_TYPES;
export const IMAGE_BYTES_MAX = 10 * 1024 * 1024;
/**
 * What the media table stores: the images, and PDFs (a certificate a platform asks for, such as TikTok Shop's, which
 * takes a PDF of at most 20 MB: its Upload Product File), recognised by their bytes.
 */
export const MEDIA_TYPES = { ...IMAGE_TYPES, pdf: 'application/pdf' } as const;
export type MediaExtension = keyof typeof MEDIA_TYPES;
export const PDF_BYTES_MAX = 20 * 1024 * 1024;
/**
 * An uploaded image's pixels, read from its header before anything decodes it (a pixel flood: a few bytes claiming
 * billions of pixels, decoded by every thumbnail and platform). Product photos fit comfortably: Etsy recommends 2,000 px
 * a side, Amazon takes at most 10,000 on the longer side, and a 48-megapixel phone photo (8,000 x 6,000) is under both.
 */
export const IMAGE_SIDE_PX_MAX = 10_000;
export const IMAGE_PIXELS_MAX = 50_000_000;

export interface ProductOption {
  name: string;
  values: string[];
}

/** The packed product (DESIGN §9): each measure may be null, a weight alone being a package. */
export interface ProductPackage {
  weight_grams: number | null;
  length_mm: number | null;
  width_mm: number | null;
  height_mm: number | null;
}

/** A variant as the API shows it. `price` is a decimal string with two decimals ("19.90"). */
export interface Variant {
  id: number;
  sku: string;
  option_values: Record<string, string>;
  price: string;
  quantity: number;
  barcode: string | null;
}

export interface ProductImage {
  id: number;
  url: string;
  position: number;
  alt: string | null;
  /** Whether Storelink holds its file; false for an image given by URL (Etsy and TikTok Shop take files only). */
  uploaded: boolean;
}

/** A product as the API shows it (DESIGN §9); `price`, `sku` and `quantity` are its first variant's. */
export interface Product {
  id: number;
  title: string;
  handle: string;
  description: string;
  brand: string | null;
  tags: string[];
  attributes: Record<string, string>;
  currency: string;
  options: ProductOption[];
  variants: Variant[];
  images: ProductImage[];
  package: ProductPackage | null;
  version: number;
  price: string;
  sku: string;
  quantity: number;
  created_at: string;
  updated_at: string;
}

/** A variant as a caller writes it: with `id` it is that existing variant, kept; without, a new one. */
export interface VariantInput {
  id?: number;
  sku: string;
  option_values?: Record<string, string>;
  price: string;
  quantity: number;
  barcode?: string | null;
}

export interface ImageInput {
  id?: number;
  url?: string;
  alt?: string | null;
}

/** POST /products; PATCH /products/{id} takes any subset, `options`, `variants` and `images` replacing the whole list. */
export interface ProductInput {
  title: string;
  /** Made from the title when not given. */
  handle?: string;
  description?: string;
  brand?: string | null;
  tags?: string[];
  attributes?: Record<string, string>;
  currency: string;
  options?: ProductOption[];
  variants: VariantInput[];
  images?: ImageInput[];
  /** A measure left out is null. */
  package?: Partial<ProductPackage> | null;
}
