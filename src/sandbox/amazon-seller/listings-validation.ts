/**
 * Checking a listing's attributes against its product type's schema, as putListingsItem and patchListingsItem do
 * before accepting (listings.md §3.3–3.5), with the issues Amazon answers: `90220` "'x' is required but not supplied."
 * (MISSING_ATTRIBUTE, as listings.md §3.4 and the model's example word it), `99022` for too few values and `4000001`
 * "The provided value for 'Title' is invalid." (INVALID_ATTRIBUTE), both as observed in amzn/selling-partner-api-models
 * issue 5219. One issue per attribute and problem kind; the sandbox validates with Ajv (draft 2019-09).
 */
import { Ajv2019, type ErrorObject, type ValidateFunction } from 'ajv/dist/2019.js';
import type { SandboxMarketplace } from '../amazon-marketplaces.js';
import { schemaOf } from './product-type-schemas.js';
import type { Enforcement, ProductType, Requirements } from './product-types.js';

export interface Issue {
  code: string;
  message: string;
  severity: 'ERROR' | 'WARNING' | 'INFO';
  attributeNames?: string[];
  categories: string[];
  enforcements?: { actions: { action: string }[]; exemption: { status: string } };
  marketplaceIds?: string[];
}

const ajv = new Ajv2019({ strict: false, allErrors: true });
const compiled = new Map<string, ValidateFunction>();

function validatorOf(type: ProductType, marketplace: SandboxMarketplace, requirements: Requirements, enforcement: Enforcement) {
  const key = `${type.name}.${marketplace.id}.${requirements}.${enforcement}`;
  let validate = compiled.get(key);
  if (!validate) {
    // Every requirements set of a product type shares Amazon's `$id`; one Ajv holds them all only without it.
    const { $id: _, ...schema } = schemaOf(type, marketplace, requirements, enforcement).schema;
    validate = ajv.compile(schema);
    compiled.set(key, validate);
  }
  return validate;
}

export const missingIssue = (attribute: string, field?: string): Issue => ({
  code: '90220',
  message: `'${field ?? attribute}' is required but not supplied.`,
  severity: 'ERROR',
  attributeNames: [attribute],
  categories: ['MISSING_ATTRIBUTE'],
});

export const invalidIssue = (attribute: string, title: string): Issue => ({
  code: '4000001',
  message: `The provided value for '${title}' is invalid.`,
  severity: 'ERROR',
  attributeNames: [attribute],
  categories: ['INVALID_ATTRIBUTE'],
});

const tooFewIssue = (attribute: string, title: string, minimum: number): Issue => ({
  code: '99022',
  message: `The field 'value' for the attribute '${title}' does not have enough values. The required minimum is '${minimum}' value(s).`,
  severity: 'ERROR',
  attributeNames: [attribute],
  categories: ['INVALID_ATTRIBUTE'],
});

/** The issue one Ajv error stands for, or null for the `if` wrappers of a failed `then`. */
function issueOf(error: ErrorObject, titleOf: (attribute: string) => string): Issue | null {
  if (error.keyword === 'if') return null;
  const path = error.instancePath.split('/').slice(1);
  const attribute = path[0];
  if (attribute === undefined)
    return error.keyword === 'required' ? missingIssue(String(error.params.missingProperty)) : invalidIssue('attributes', 'attributes');
  if (error.keyword === 'required' && path.length > 1) return missingIssue(attribute, String(error.params.missingProperty));
  if (error.keyword === 'minItems' && path.length === 1) return tooFewIssue(attribute, titleOf(attribute), Number(error.params.limit));
  return invalidIssue(attribute, titleOf(attribute));
}

/** The issues of `attributes` against the product type's schema for the marketplace; [] when they are valid. */
export function validateAttributes(
  type: ProductType,
  marketplace: SandboxMarketplace,
  requirements: Requirements,
  enforcement: Enforcement,
  attributes: Record<string, unknown>,
): Issue[] {
  const validate = validatorOf(type, marketplace, requirements, enforcement);
  if (validate(attributes)) return [];
  const properties = schemaOf(type, marketplace, requirements, enforcement).schema.properties as Record<string, { title?: string }>;
  const titleOf = (attribute: string) => properties[attribute]?.title ?? attribute;
  const issues = new Map<string, Issue>();
  for (const error of validate.errors ?? []) {
    const issue = issueOf(error, titleOf);
    if (issue) issues.set(`${issue.code}:${issue.message}`, issue);
  }
  return [...issues.values()];
}
