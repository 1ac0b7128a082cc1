/**
 * What the tests send and expect, written once: the product builder (a stoneware mug, plain or in two colours) and
 * the catalogue's product with every field (a tote), one PNG and one GIF, the seed's common error answers, and the
 * sandbox values several suites name.
 */
import { createHash } from 'node:crypto';
import { crc32, deflateSync } from 'node:zlib';

/** A variant as POST /products takes it. */
export interface VariantBody {
  sku: string;
  price: string;
  quantity: number;
  option_values?: Record<string, string>;
  barcode?: string | null;
}

/** The body of POST /products (DESIGN §9), as a seller sends it. */
export interface ProductBody {
  title: string;
  description?: string;
  brand?: string;
  currency: string;
  tags?: string[];
  attributes?: Record<string, string>;
  options?: Array<{ name: string; values: string[] }>;
  variants: VariantBody[];
  images?: Array<{ url: string; alt?: string }>;
  package?: { weight_grams: number; length_mm: number; width_mm: number; height_mm: number };
}

export interface MugOverrides extends Partial<ProductBody> {
  /**
   * The mug the listing tests sell instead of the plain one: described, in US dollars, titled `Stoneware mug <sku>`,
   * in White (`<sku>-W` at 18.00, 4 in stock) and Blue (`<sku>-B` at 19.50, 2 in stock).
   */
  colours?: boolean;
  /** With `colours`, White's and Blue's barcodes (Amazon identifies a product by its barcode); null without. */
  barcodes?: readonly [string, string];
  /** In a package of 350 g, 12 x 9.5 x 10 cm (TikTok Shop requires one). */
  packaged?: boolean;
}

/**
 * A stoneware mug as a seller sends it to POST /products: one variant `sku` at 12.00 EUR with 4 in stock and no
 * options, or the listing tests' mug with `colours`. Every other field of `overrides` replaces the mug's.
 */
export function mug(sku: string, overrides: MugOverrides = {}): ProductBody {
  const { colours, barcodes, packaged, ...fields } = overrides;
  const plain: ProductBody = { title: 'Stoneware mug', currency: 'EUR', variants: [{ sku, price: '12.00', quantity: 4 }] };
  const coloured: ProductBody = {
    title: `Stoneware mug ${sku}`,
    description: 'Wheel-thrown, 350 ml.',
    currency: 'USD',
    options: [{ name: 'Color', values: ['White', 'Blue'] }],
    variants: [
      { sku: `${sku}-W`, option_values: { Color: 'White' }, price: '18.00', quantity: 4, barcode: barcodes?.[0] ?? null },
      { sku: `${sku}-B`, option_values: { Color: 'Blue' }, price: '19.50', quantity: 2, barcode: barcodes?.[1] ?? null },
    ],
  };
  const box = { weight_grams: 350, length_mm: 120, width_mm: 95, height_mm: 100 };
  return { ...(colours ? coloured : plain), ...(packaged ? { package: box } : {}), ...fields };
}

/** A product with every field POST /products takes: two options and four variants, for the catalogue's own tests. */
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

/** One PNG chunk: its length, type, data and CRC (PNG spec §5.3). */
function pngChunk(type: string, data: Buffer): Buffer {
  const typed = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed));
  return Buffer.concat([length, typed, crc]);
}

/**
 * A 640 x 480 PNG of four squares, blue and orange: a whole image any decoder and Chromium draw, large enough for
 * TikTok Shop's 300 x 300 minimum, and its size in the header where the catalogue and the simulators read it.
 */
export const PNG_640X480 = (() => {
  const [width, height] = [640, 480];
  const [blue, orange] = [
    [0x1f, 0x4e, 0x9c],
    [0xf2, 0x8c, 0x28],
  ];
  const rows = Array.from({ length: height }, (_, y) => {
    const row = Buffer.alloc(1 + 3 * width); // filter type 0, then RGB
    for (let x = 0; x < width; x++) row.set(x < width / 2 === y < height / 2 ? blue! : orange!, 1 + 3 * x);
    return row;
  });
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8 bits per sample, truecolour, no interlace
  return Buffer.concat([
    Buffer.from('89504e470d0a1a0a', 'hex'),
    pngChunk('IHDR', header),
    pngChunk('IDAT', deflateSync(Buffer.concat(rows))),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
})();

/** PNG_640X480 with its header claiming another width and height: all a reader of the size looks at. */
export function pngSized(width: number, height: number): Buffer {
  const bytes = Buffer.from(PNG_640X480);
  bytes.writeUInt32BE(width, 16);
  bytes.writeUInt32BE(height, 20);
  return bytes;
}

/** A 1 x 1 GIF: the smallest image the catalogue takes, and bytes other than the PNG's. */
/** A small PDF (a certificate): its header, a comment line, its end. */
export const PDF = Buffer.from('%PDF-1.4\n% Baby feeding product safety test report\n%%EOF\n');

export const GIF_1X1 = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

/** GIF_1X1 with its logical screen claiming another width and height (at most 65,535 each: two bytes, little-endian). */
export function gifSized(width: number, height: number): Buffer {
  const bytes = Buffer.from(GIF_1X1);
  bytes.writeUInt16LE(width, 6);
  bytes.writeUInt16LE(height, 8);
  return bytes;
}

/** The seed's 401 and 403 answers (DESIGN §3), and the message of every 422. */
export const UNAUTHENTICATED = { success: false, code: 401, message: 'Unauthenticated' };
export const FORBIDDEN = { success: false, code: 403, message: 'Invalid workspace or access denied' };
export const INVALID = 'The given data was invalid.';

/** The code verifier of RFC 7636's example (Appendix B), and its S256 challenge. */
export const PKCE_VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
export const PKCE_CHALLENGE = createHash('sha256').update(PKCE_VERIFIER).digest('base64url');

/** How long the simulated TikTok Shop and Amazon review a product: SANDBOX_REVIEW_SECONDS' default of 5. */
export const SANDBOX_REVIEW_MS = 5_000;

/** Leaves of the sandbox TikTok Shop's category tree (src/sandbox/tiktok-shop/categories.ts) the TikTok suites list in. */
export const TIKTOK_CATEGORY = { MUGS: '600011', BABY_BOTTLES: '600012', HOODIES: '601012', TOTE_BAGS: '602011' } as const;
