/**
 * TikTok Shop's rules a listing can be checked against before anything is sent (listings.md §2.4–2.5): a title of at
 * most 255 characters, a description of at most 10,000 characters of HTML, the market's currency, at most three sales attributes, one to nine main images it can upload (files, not links), at
 * most 300 SKUs with seller skus TikTok takes, stock of at least 1 per SKU on creation, prices in its range, a package
 * weight, and a brand only from its list. Each problem is an issue on the product field that breaks it.
 */
import { type ListingIssue, storelinkIssue } from '../../domain/index.js';
import type { ListingDraft } from '../platform.js';
import { htmlOf, MAIN_IMAGES_MAX } from './listing-requests.js';

const TITLE_MAX = 255;
const DESCRIPTION_MAX = 10_000;
const OPTIONS_MAX = 3;
const SKUS_MAX = 300;
const QUANTITY_MAX = 99_999;
/** Option names and values TikTok takes as custom sales attributes (listings.md §2.5: ≤20 and ≤50 characters). */
const OPTION_NAME_MAX = 20;
const OPTION_VALUE_MAX = 50;

/** The currency each market sells in (listings.md §2.5: by region; USD, GBP, EUR, …). */
const CURRENCIES: Readonly<Record<string, string>> = {
  US: 'USD',
  GB: 'GBP',
  DE: 'EUR',
  FR: 'EUR',
  ES: 'EUR',
  IT: 'EUR',
  IE: 'EUR',
  MX: 'MXN',
  BR: 'BRL',
  JP: 'JPY',
};

/** The draft against TikTok's rules; `region` is the shop's market (the site's data), null where unknown. */
export function checkTikTokDraft(draft: ListingDraft, region: string | null): ListingIssue[] {
  const issues: ListingIssue[] = [];
  const issue = (field: string, code: string, message: string) => issues.push(storelinkIssue(field, code, message));
  const currency = region ? CURRENCIES[region] : undefined;
  if (currency && draft.currency !== currency)
    issue(
      'product.currency',
      'tiktok_currency',
      `TikTok Shop's ${region} market sells in ${currency}; this product is priced in ${draft.currency}.`,
    );
  if (draft.title.length > TITLE_MAX)
    issue('product.title', 'tiktok_title_length', `TikTok Shop titles have at most ${TITLE_MAX} characters.`);
  if (draft.description.trim() === '')
    issue('product.description', 'tiktok_description_required', 'TikTok Shop needs a description to list a product.');
  else if (htmlOf(draft.description).length > DESCRIPTION_MAX)
    issue(
      'product.description',
      'tiktok_description_length',
      `TikTok Shop descriptions have at most ${DESCRIPTION_MAX} characters (as HTML).`,
    );
  if (draft.options.length > OPTIONS_MAX)
    issue(
      'product.options',
      'tiktok_too_many_options',
      `TikTok Shop lists at most ${OPTIONS_MAX} options; this product has ${draft.options.length}.`,
    );
  draft.options.forEach((option, i) => {
    if (option.name.length > OPTION_NAME_MAX)
      issue(`product.options.${i}.name`, 'tiktok_option_name', `TikTok Shop takes option names of at most ${OPTION_NAME_MAX} characters.`);
    if (option.values.some((value) => value.length > OPTION_VALUE_MAX))
      issue(
        `product.options.${i}.values`,
        'tiktok_option_value',
        `TikTok Shop takes option values of at most ${OPTION_VALUE_MAX} characters.`,
      );
  });
  if (draft.images.length === 0)
    issue('product.images', 'tiktok_image_required', 'TikTok Shop needs at least one image to list a product.');
  if (draft.images.length > MAIN_IMAGES_MAX)
    issue(
      'product.images',
      'tiktok_too_many_images',
      `TikTok Shop holds at most ${MAIN_IMAGES_MAX} images; remove ${draft.images.length - MAIN_IMAGES_MAX}.`,
    );
  draft.images.forEach((image, i) => {
    if (!image.stored)
      issue(
        `product.images.${i}`,
        'tiktok_image_file',
        'TikTok Shop only shows images it hosts: upload this image to the product (POST /products/{product_id}/images) so Storelink can send it.',
      );
  });
  if (draft.variants.length > SKUS_MAX)
    issue('product.variants', 'tiktok_too_many_skus', `TikTok Shop lists at most ${SKUS_MAX} variants.`);
  draft.variants.forEach((variant, i) => {
    if (!/^\S{1,50}$/.test(variant.sku))
      issue(`product.variants.${i}.sku`, 'tiktok_seller_sku', 'TikTok Shop takes skus of 1 to 50 characters without spaces.');
    if (variant.quantity < 1 || variant.quantity > QUANTITY_MAX)
      issue(
        `product.variants.${i}.quantity`,
        'tiktok_stock_range',
        `TikTok Shop lists a variant with 1 to ${QUANTITY_MAX} in stock (after the site's stock buffer); this one has ${variant.quantity}.`,
      );
    if (Number(variant.price) < 0.01)
      issue(
        `product.variants.${i}.price`,
        'tiktok_price',
        `TikTok Shop's lowest price is 0.01; this variant would list at ${variant.price}.`,
      );
  });
  if (!draft.package)
    issue('product.package', 'tiktok_package_required', 'TikTok Shop needs the package weight and size: set the product’s package.');
  return issues;
}
