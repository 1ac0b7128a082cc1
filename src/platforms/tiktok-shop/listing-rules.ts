/**
 * TikTok Shop's rules a listing can be checked against before anything is sent (listings.md §2.4–2.5): a title of at
 * most 255 characters, a description of at most 10,000 characters of HTML, at most three sales attributes, one to nine main images it can upload (files, not links), at
 * most 300 SKUs with seller skus TikTok takes, stock of at least 1 per SKU on creation, prices in its range, a package
 * weight, and a brand only from its list. Each problem is an issue on the product field that breaks it. Then what the
 * category's rules ask (Get Category Rules) that the listing does not give: a required certification's file, a
 * required choice the seller has none of.
 */

import { type CategoryAttribute, type ListingIssue, storelinkIssue } from '../../domain/index.js';
import type { ListingDraft } from '../contracts/listings.js';
import {
  CERTIFICATION_PREFIX,
  htmlOf,
  MAIN_IMAGES_MAX,
  MANUFACTURERS_ATTRIBUTE,
  RESPONSIBLE_PERSONS_ATTRIBUTE,
  SIZE_CHART_ATTRIBUTE,
} from './listing-requests.js';
import type { TikTokRules } from './listing-responses.js';

const TITLE_MAX = 255;
const DESCRIPTION_MAX = 10_000;
const OPTIONS_MAX = 3;
const PACKAGE_MEASURES = ['weight_grams', 'length_mm', 'width_mm', 'height_mm'] as const;
const SKUS_MAX = 300;
const QUANTITY_MAX = 99_999;
/** Option names and values TikTok takes as custom sales attributes (listings.md §2.5: ≤20 and ≤50 characters). */
const OPTION_NAME_MAX = 20;
const OPTION_VALUE_MAX = 50;

/**
 * The draft against TikTok's rules. Its prices are in the shop's market's currency already: the site's currency is the
 * market's (markets.ts), and the listing engine converts or refuses before a draft is made (core/listings/pricing.ts).
 */
export function checkTikTokDraft(draft: ListingDraft): ListingIssue[] {
  const issues: ListingIssue[] = [];
  const issue = (field: string, code: string, message: string) => issues.push(storelinkIssue(field, code, message));
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
        'TikTok Shop only shows images it hosts: upload this image as a file to the product (its Images) so Storelink can send it.',
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
  const unknown = PACKAGE_MEASURES.filter((measure) => (draft.package?.[measure] ?? null) === null);
  if (unknown.length === PACKAGE_MEASURES.length)
    issue('product.package', 'tiktok_package_required', 'TikTok Shop needs the package weight and size: set the product’s package.');
  else if (unknown.length > 0)
    issue(
      `product.package.${unknown[0]}`,
      'tiktok_package_required',
      `TikTok Shop needs the package's weight and its three sides: set the product's ${unknown.map((m) => m.replace(/_(grams|mm)$/, '')).join(', ')}.`,
    );
  return issues;
}

type Certification = NonNullable<TikTokRules['product_certifications']>[number];

const sameText = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

/**
 * The condition met by the draft's attributes, with the attribute's and value's labels; null when none is. A condition
 * is `VALUE_ID_MATCH` (the only type TikTok documents): the seller chose the value of that id, by id or (a text
 * attribute) by its name.
 */
function metCondition(certification: Certification, draft: ListingDraft, attributes: readonly CategoryAttribute[]) {
  for (const condition of certification.requirement_conditions ?? []) {
    const { condition_type: type, attribute_id: attributeId, attribute_value_id: valueId } = condition;
    if ((type !== undefined && type !== 'VALUE_ID_MATCH') || !attributeId || !valueId) continue;
    const attribute = attributes.find((each) => each.name === attributeId);
    const choice = attribute?.values.find((value) => value.value === valueId);
    const given = [draft.attributes[attributeId] ?? []].flat().map(String);
    if (given.some((value) => value === valueId || (choice && sameText(value, choice.label))))
      return { attribute: attribute?.label ?? attributeId, value: choice?.label ?? valueId };
  }
  return null;
}

/** Why a certification is required of this draft: always, or by a condition it meets; null when it is optional. */
function requirementOf(certification: Certification, draft: ListingDraft, attributes: readonly CategoryAttribute[]) {
  // `requirement_conditions` apply only when the certification is not always required (Get Category Rules).
  if (certification.is_required) return { always: true as const };
  const met = metCondition(certification, draft, attributes);
  return met && { always: false as const, ...met };
}

/**
 * A certification the category requires of the draft, always or by a condition its attributes meet (TikTok's "Get
 * Category Rules": `is_required`, else any one `requirement_conditions` met), and the listing names no file for
 * (`certification:<id>`), is an error on that attribute saying how to attach one. Optional certifications say nothing.
 */
export function checkCertifications(
  rules: TikTokRules | null,
  draft: ListingDraft,
  attributes: readonly CategoryAttribute[],
): ListingIssue[] {
  return (rules?.product_certifications ?? []).flatMap((certification) => {
    const attribute = `${CERTIFICATION_PREFIX}${certification.id}`;
    const given = draft.attributes[attribute];
    if (typeof given === 'string' && given !== '') return [];
    const required = requirementOf(certification, draft, attributes);
    if (!required) return [];
    const name = certification.name ?? `certification ${certification.id}`;
    const when = required.always ? '' : ` when ${required.attribute} is ${required.value}`;
    const otherwise = required.always ? '' : `, or choose another ${required.attribute}`;
    return [
      storelinkIssue(
        `attributes.${attribute}`,
        'tiktok_certification_required',
        // In a seller's words: the issue's field names the attribute for an API client (`attributes.certification:<id>`).
        `TikTok Shop needs the certificate "${name}" for a product in this category${when}. Upload it (a PDF of at most ` +
          `20 MB, or an image) as “${name}” in the publish form${otherwise}.`,
      ),
    ];
  });
}

/** Where a seller makes each of the choices the rules may require, in TikTok's Seller Center. */
const WHERE_TO_MAKE: Readonly<Record<string, string>> = {
  [SIZE_CHART_ATTRIBUTE]:
    'The seller has no size chart on TikTok Shop yet: make one in Seller Center (Manage Products > Bulk action > Batch manage size charts), then choose it here.',
  [RESPONSIBLE_PERSONS_ATTRIBUTE]:
    'The seller has no EU responsible person on TikTok Shop yet: add one in Seller Center, then choose it here.',
  [MANUFACTURERS_ATTRIBUTE]: 'The seller has no manufacturer on TikTok Shop yet: add one in Seller Center, then choose it here.',
};

/** A required size chart, responsible person or manufacturer the seller has none of yet: an error on it saying where to make one. */
export function checkEmptyChoices(draft: ListingDraft, attributes: readonly CategoryAttribute[]): ListingIssue[] {
  return attributes
    .filter((attribute) => attribute.required && attribute.values.length === 0 && WHERE_TO_MAKE[attribute.name] !== undefined)
    .filter((attribute) => [draft.attributes[attribute.name] ?? []].flat().length === 0)
    .map((attribute) => storelinkIssue(`attributes.${attribute.name}`, 'tiktok_choice_missing', WHERE_TO_MAKE[attribute.name]!));
}
