/**
 * patchListingsItem's JSON Patch on a listing's attributes (listings.md §3.5): `add`, `replace`, `merge` and `delete`
 * of `/attributes/<name>` only ("Only top-level listings item attributes can be patched"), each with an array value.
 * Values are matched by the attribute's selectors (the schema's `selectors`: `marketplace_id`, `language_tag`,
 * `fulfillment_channel_code` …): `merge` changes the fields it names of the value with the same selectors (to change
 * `fulfillment_availability.quantity` alone, [A11]) or adds it; `delete` removes the values with the selectors given.
 */
import type { Attributes } from './listings-store.js';

export const PATCH_OPS = ['add', 'replace', 'merge', 'delete'] as const;
export type PatchOp = (typeof PATCH_OPS)[number];
type Value = Record<string, unknown>;

export interface Patch {
  op: PatchOp;
  attribute: string;
  /** Absent only for a `delete` of the whole attribute. */
  value?: Value[];
}

const ATTRIBUTE_PATH = /^\/attributes\/([A-Za-z0-9_]+)$/;

/**
 * The patches of a request body, or why they are refused. ASSUMPTION: Amazon's 400 wording for each case; the
 * rules (at least one, the four ops, top-level paths, array values) are the model's and the guide's.
 */
export function readPatches(raw: unknown): Patch[] | string {
  if (!Array.isArray(raw) || raw.length === 0) return "'patches' must hold at least one patch operation.";
  const patches: Patch[] = [];
  for (const [index, entry] of raw.entries()) {
    const { op, path, value } = (entry ?? {}) as { op?: unknown; path?: unknown; value?: unknown };
    if (!PATCH_OPS.includes(op as PatchOp)) return `patches[${index}].op must be one of ${PATCH_OPS.join(', ')}.`;
    const attribute = typeof path === 'string' ? ATTRIBUTE_PATH.exec(path)?.[1] : undefined;
    if (attribute === undefined)
      return `patches[${index}].path must be /attributes/<name>: only top-level listings item attributes can be patched.`;
    if (value === undefined && op === 'delete') {
      patches.push({ op, attribute });
      continue;
    }
    if (!Array.isArray(value) || !value.every((each) => typeof each === 'object' && each !== null && !Array.isArray(each)))
      return `patches[${index}].value must be an array of attribute value objects.`;
    patches.push({ op: op as PatchOp, attribute, value: value as Value[] });
  }
  return patches;
}

/** True when two values agree on every selector either of them gives. */
function sameSelectors(a: Value, b: Value, selectors: readonly string[]): boolean {
  return selectors.every((selector) => a[selector] === undefined || b[selector] === undefined || a[selector] === b[selector]);
}

/** The attributes after the patches, in order; `attributes` is left as it was. */
export function applyPatches(
  attributes: Attributes,
  patches: readonly Patch[],
  selectorsOf: (attribute: string) => readonly string[],
): Attributes {
  const result: Attributes = structuredClone(attributes);
  for (const patch of patches) {
    const current = Array.isArray(result[patch.attribute]) ? (result[patch.attribute] as Value[]) : [];
    const selectors = selectorsOf(patch.attribute);
    if (patch.op === 'add' || patch.op === 'replace') result[patch.attribute] = structuredClone(patch.value);
    else if (patch.op === 'merge') {
      const merged = [...current];
      for (const value of patch.value ?? []) {
        const index = merged.findIndex((each) => sameSelectors(each, value, selectors));
        if (index === -1) merged.push(structuredClone(value));
        else merged[index] = { ...merged[index], ...structuredClone(value) };
      }
      result[patch.attribute] = merged;
    } else {
      const kept = patch.value ? current.filter((each) => !patch.value!.some((value) => sameSelectors(each, value, selectors))) : [];
      if (kept.length === 0) delete result[patch.attribute];
      else result[patch.attribute] = kept;
    }
  }
  return result;
}
