/**
 * Etsy's rules a listing can be checked against before anything is sent (listings.md §1.4–1.7): at most two variation
 * properties, a title with `% : & +` at most once each, an image to activate, the lowest price, stock to publish, and
 * no parentheses in variation values. Each problem is an issue on the product field that breaks it.
 */
import { type ListingIssue, storelinkIssue } from '../../domain/index.js';
import type { ListingDraft } from '../contracts/listings.js';

/** Etsy's lowest price, in the shop's currency ("must be above min price", listings.md §1.7). */
const MIN_PRICE_CENTS = 20;
/** Variation properties per listing (listings.md §1.6: `max_variations_supported=3` is "coming soon"). */
const MAX_VARIATIONS = 2;
/** UNCONFIRMED by Etsy's own documentation (listings.md §1.4); the catalogue's own limit is the same. */
const TITLE_MAX = 140;

const cents = (price: string) => {
  const [whole, fraction = ''] = price.split('.');
  return Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
};

export function checkEtsyDraft(draft: ListingDraft): ListingIssue[] {
  const issues: ListingIssue[] = [];
  if (draft.options.length > MAX_VARIATIONS) {
    issues.push(
      storelinkIssue(
        'product.options',
        'etsy_too_many_options',
        `Etsy lists at most ${MAX_VARIATIONS} options; this product has ${draft.options.length}.`,
      ),
    );
  }
  draft.options.forEach((option, i) => {
    if (option.values.some((value) => /[()]/.test(value)))
      issues.push(storelinkIssue(`product.options.${i}.values`, 'etsy_parentheses', 'Etsy does not take parentheses in option values.'));
  });
  if (draft.title.length > TITLE_MAX)
    issues.push(storelinkIssue('product.title', 'etsy_title_length', `Etsy titles have at most ${TITLE_MAX} characters.`));
  const repeated = ['%', ':', '&', '+'].filter((c) => draft.title.split(c).length > 2);
  if (repeated.length > 0) {
    issues.push(
      storelinkIssue(
        'product.title',
        'etsy_title_characters',
        `Etsy takes each of % : & + at most once in a title (repeated: ${repeated.join(' ')}).`,
      ),
    );
  }
  if (draft.images.length === 0)
    issues.push(storelinkIssue('product.images', 'etsy_image_required', 'Etsy needs at least one image to publish a listing.'));
  draft.images.forEach((image, i) => {
    if (!image.stored) {
      const message = 'Etsy takes image files, not links: upload this image as a file to the product (its Images).';
      issues.push(storelinkIssue(`product.images.${i}`, 'etsy_image_file', message));
    }
  });
  draft.variants.forEach((variant, i) => {
    if (cents(variant.price) < MIN_PRICE_CENTS)
      issues.push(
        storelinkIssue(
          `product.variants.${i}.price`,
          'etsy_price_too_low',
          `Etsy's lowest price is 0.20; this variant would list at ${variant.price}.`,
        ),
      );
  });
  if (draft.variants.every((variant) => variant.quantity === 0)) {
    issues.push(
      storelinkIssue(
        'product.variants',
        'etsy_out_of_stock',
        'Etsy needs at least one item in stock to publish (after the site’s stock buffer).',
      ),
    );
  }
  return issues;
}
