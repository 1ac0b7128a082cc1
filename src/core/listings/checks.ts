/**
 * The checks a listing passes before anything is stored or sent (DESIGN §10), those every platform shares: the category
 * is a leaf the platform knows, the attributes fit its requirements, the site's required settings are set. Each problem
 * is an issue on the request's field (`category_id`, `attributes.<name>`, `settings.<name>`), in Storelink's words.
 */

import { type Category, type CategoryAttribute, type ListingIssue, storelinkIssue } from '../../domain/index.js';
import type { FieldErrors } from '../../errors.js';
import { parseMediaName } from '../catalog/images.js';

export const errorsOf = (issues: readonly ListingIssue[]) => issues.filter((issue) => issue.severity === 'error');

/** Issues as a 422's fields: each on its field, the site's own (no field) on `site_id`. */
export function fieldsOf(issues: readonly ListingIssue[]): FieldErrors {
  const fields: FieldErrors = {};
  for (const issue of errorsOf(issues)) (fields[issue.field ?? 'site_id'] ??= []).push(issue.message);
  return fields;
}

/** The category: known to the platform, and a leaf (only a leaf holds listings). */
export function checkCategory(categoryId: string, category: Category | null): ListingIssue[] {
  if (!category) return [storelinkIssue('category_id', 'category_unknown', `The platform has no category ${categoryId}.`)];
  if (!category.leaf) {
    return [storelinkIssue('category_id', 'category_not_leaf', `${category.path.join(' > ')} has subcategories: pick one of them.`)];
  }
  return [];
}

/** A value as the attribute takes it: text for text and selects, a list of texts for a multiselect. */
function valueProblem(attribute: CategoryAttribute, value: unknown): string | null {
  const label = attribute.label;
  const choices = new Set(attribute.values.map((choice) => choice.value));
  switch (attribute.type) {
    case 'multiselect':
      if (!Array.isArray(value) || value.length === 0 || value.some((v) => typeof v !== 'string' || !choices.has(v)))
        return `${label} takes one or more of its choices.`;
      return null;
    case 'select':
      return typeof value === 'string' && choices.has(value) ? null : `The selected ${label} is not one of its choices.`;
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? null : `${label} must be a number.`;
    case 'boolean':
      return typeof value === 'boolean' ? null : `${label} must be true or false.`;
    case 'file':
      return typeof value === 'string' && parseMediaName(value)
        ? null
        : `${label} must be a file uploaded in the publish form (a PDF or an image).`;
    default:
      return typeof value === 'string' && value.trim() !== '' ? null : `${label} must be text.`;
  }
}

/** The attributes given for the category: every required one, each value of the right kind, none it does not have. */
export function checkAttributes(attributes: readonly CategoryAttribute[], given: Readonly<Record<string, unknown>>): ListingIssue[] {
  const issues: ListingIssue[] = [];
  const known = new Map(attributes.map((attribute) => [attribute.name, attribute]));
  for (const attribute of attributes) {
    const value = given[attribute.name];
    if (value === undefined || value === null) {
      if (attribute.required)
        issues.push(
          storelinkIssue(`attributes.${attribute.name}`, 'attribute_required', `${attribute.label} is required in this category.`),
        );
      continue;
    }
    const problem = valueProblem(attribute, value);
    if (problem) issues.push(storelinkIssue(`attributes.${attribute.name}`, 'attribute_invalid', problem));
  }
  for (const name of Object.keys(given)) {
    if (!known.has(name)) issues.push(storelinkIssue(`attributes.${name}`, 'attribute_unknown', 'The category has no such attribute.'));
  }
  return issues;
}

/**
 * The issues with an attribute's "is required" said once: dropped where another check says more of the same attribute
 * (TikTok Shop's certificate check says which file and how to attach it), so a seller reads one line, not two.
 */
export function withoutRepeats(issues: readonly ListingIssue[]): ListingIssue[] {
  const saidMore = new Set(issues.filter((issue) => issue.code !== 'attribute_required').map((issue) => issue.field));
  return issues.filter((issue) => issue.code !== 'attribute_required' || !saidMore.has(issue.field));
}

/** The names the listing gives its `file` attributes, well formed (a malformed one is checkAttributes's issue). */
export const fileNamesOf = (attributes: readonly CategoryAttribute[], given: Readonly<Record<string, unknown>>) =>
  attributes.flatMap((attribute) => {
    const value = given[attribute.name];
    return attribute.type === 'file' && typeof value === 'string' && parseMediaName(value) ? [{ attribute, name: value }] : [];
  });

/** A `file` attribute naming a file Storelink does not hold (`stored`: the names it holds): an issue on it. */
export function checkFiles(
  attributes: readonly CategoryAttribute[],
  given: Readonly<Record<string, unknown>>,
  stored: ReadonlySet<string>,
): ListingIssue[] {
  return fileNamesOf(attributes, given)
    .filter(({ name }) => !stored.has(name))
    .map(({ attribute }) =>
      storelinkIssue(
        `attributes.${attribute.name}`,
        'file_unknown',
        `${attribute.label} is no file Storelink holds: upload it again in the publish form.`,
      ),
    );
}

/** The site's settings a listing needs: each missing one is an issue on `settings.<name>`. */
export function checkSettings(missing: readonly string[]): ListingIssue[] {
  return missing.map((name) =>
    storelinkIssue(
      `settings.${name}`,
      'setting_required',
      // In a seller's words: the field names the setting (`settings.<name>`), the dashboard its label.
      'Not set yet: every listing on this site needs it.',
    ),
  );
}
