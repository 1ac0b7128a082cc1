/**
 * Amazon's variation families named (DESIGN §15): the theme a product's options fit among its product type's themes
 * (`SIZE_NAME/COLOR_NAME` varies `size` and `color`, as the Listings Items model's ItemVariationTheme answers), and the
 * parent SKU a family is put under. Pure.
 */
import { createHash } from 'node:crypto';

/**
 * A product's variation family on Amazon: the parent SKU (no offer of its own), the theme, and the attribute each
 * option fills on the children (`Color` fills `color`).
 */
export interface Family {
  parentSku: string;
  theme: string;
  varied: Readonly<Record<string, string>>;
}

/** The attribute an option fills: its name in Amazon's words (`Colour` and `Color` fill `color`, `Size` `size`). */
export function optionAttribute(name: string): string {
  const attribute = name
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
  return attribute === 'colour' ? 'color' : attribute;
}

/** The attributes a theme varies on: `SIZE_NAME/COLOR_NAME` varies `size` and `color` (the model's ItemVariationTheme). */
export const themeAttributes = (theme: string) =>
  theme.split('/').map((part) =>
    part
      .trim()
      .toLowerCase()
      .replace(/_name$/, ''),
  );

/**
 * The theme of `themes` (the product type's `variation_theme` enum, in its order) that varies on exactly the product's
 * options, the one the listing names if it names one; null when none does.
 */
export function themeFor(
  options: readonly { name: string }[],
  themes: readonly string[],
  chosen?: string,
): Pick<Family, 'theme' | 'varied'> | null {
  const wanted = options.map((option) => optionAttribute(option.name));
  const fits = (theme: string) => {
    const varied = themeAttributes(theme);
    return varied.length === wanted.length && varied.every((attribute) => wanted.includes(attribute));
  };
  const theme = chosen ? (themes.includes(chosen) && fits(chosen) ? chosen : undefined) : themes.find(fits);
  return theme ? { theme, varied: Object.fromEntries(options.map((option, i) => [option.name, wanted[i]!])) } : null;
}

/**
 * A family's parent SKU, named once from the first variant's and kept in the listing's progress: `<sku>-PARENT`, or
 * for a SKU too long for Amazon's 40 characters its first 26 and 6 of its hash. Storelink refuses catalogue SKUs that
 * end in `-PARENT` on Amazon (listing-rules.ts), so a parent never takes a variant's SKU.
 */
export function parentSkuFor(firstSku: string): string {
  const name = `${firstSku}${PARENT_SUFFIX}`;
  if (name.length <= 40) return name;
  const hash = createHash('sha256').update(firstSku).digest('hex').slice(0, 6).toUpperCase();
  return `${firstSku.slice(0, 26)}-${hash}${PARENT_SUFFIX}`;
}
export const PARENT_SUFFIX = '-PARENT';
