/**
 * The sandbox's TikTok Shop reference data (listings.md §2.3): a small category tree with leaf flags, each leaf's rules
 * and attributes (with TikTok's own spelling `is_requried`), the brands, and a shop's warehouses. The categories are
 * few but shaped as Get Categories, Get Category Rules, Get Attributes, Get Brands and Get Warehouse List answer.
 */
import { isEuLocal, type SandboxShop } from './shops.js';

export interface Category {
  id: string;
  parent_id: string;
  local_name: string;
  is_leaf: boolean;
  permission_statuses: string[];
}

const category = (id: string, parent: string, name: string, leaf: boolean): Category => ({
  id,
  parent_id: parent,
  local_name: name,
  is_leaf: leaf,
  permission_statuses: ['AVAILABLE'],
});

export const MUGS = '600011';
/** A leaf whose rules require a certification (always), which Storelink cannot send. */
export const BABY_BOTTLES = '600012';
export const T_SHIRTS = '601011';
/** A leaf whose rules require a size chart. */
export const HOODIES = '601012';
export const TOTE_BAGS = '602011';

export const CATEGORIES: readonly Category[] = [
  category('600001', '0', 'Home & Kitchen', false),
  category('600010', '600001', 'Drinkware', false),
  category(MUGS, '600010', 'Mugs', true),
  category(BABY_BOTTLES, '600010', 'Baby bottles', true),
  category('601001', '0', 'Fashion', false),
  category('601010', '601001', 'Tops', false),
  category(T_SHIRTS, '601010', 'T-shirts', true),
  category(HOODIES, '601010', 'Hoodies', true),
  category('602001', '0', 'Bags', false),
  category(TOTE_BAGS, '602001', 'Tote bags', true),
];

export const categoryOf = (id: unknown) => CATEGORIES.find((each) => each.id === id);

/** The chain from the root to the category, as Get Product's `category_chains`. */
export function categoryChain(id: string) {
  const chain: Category[] = [];
  for (let node = categoryOf(id); node; node = categoryOf(node.parent_id)) chain.unshift(node);
  return chain.map(({ id: chainId, parent_id, local_name, is_leaf }) => ({ id: chainId, parent_id, local_name, is_leaf }));
}

const MATERIAL = '100392';
const LEATHER = '1001539';

/** A certification rule as Get Category Rules answers it: `requirement_conditions` apply only when not always required. */
const certification = (id: string, name: string, required: boolean, conditions: [attributeId: string, valueId: string][] = []) => ({
  id,
  name,
  is_required: required,
  document_details: `Upload the ${name} as an image or a PDF.`,
  sample_image_url: '',
  requirement_conditions: conditions.map(([attribute_id, attribute_value_id]) => ({
    condition_type: 'VALUE_ID_MATCH',
    attribute_id,
    attribute_value_id,
  })),
  expiration_date: { is_required: false },
});

/** Every certification of a leaf, optional or not, as Create Product checks them. */
export function certificationsOf(id: string) {
  if (id === MUGS) return [certification('700101', 'Food contact material certificate', false)];
  if (id === BABY_BOTTLES) return [certification('700102', 'Baby feeding product safety test report', true)];
  // Required only for a leather bag (a VALUE_ID_MATCH condition on Material).
  if (id === TOTE_BAGS) return [certification('700103', 'Leather REACH declaration', false, [[MATERIAL, LEATHER]])];
  return [];
}

/**
 * Get Category Rules for a leaf and the shop asking (TikTok's rules are "based on your shop's location"). ASSUMPTION:
 * which rules each sandbox category has is the sandbox's choice: mugs want a package size and take an optional
 * certificate; baby bottles always want a certificate, tote bags one for leather; T-shirts take a size chart and hoodies
 * require one; in a shop of a seller local to the EU every leaf requires a responsible person and a manufacturer (TikTok's
 * GPSR changelog: "applicable to local sellers in the EU market"), elsewhere none does.
 */
export function rulesOf(id: string, shop: Pick<SandboxShop, 'region' | 'seller_type'>) {
  const eu = isEuLocal(shop);
  return {
    product_certifications: certificationsOf(id),
    size_chart: { is_supported: id === T_SHIRTS || id === HOODIES, is_required: id === HOODIES },
    package_dimension: { is_required: id === MUGS },
    cod: { is_supported: false },
    epr: { is_required: false },
    responsible_person: { is_required: eu },
    manufacturer: { is_required: eu },
    allowed_special_product_types: [],
  };
}

export interface Attribute {
  id: string;
  name: string;
  type: 'PRODUCT_PROPERTY' | 'SALES_PROPERTY';
  is_requried: boolean;
  values: { id: string; name: string }[];
  value_data_format: 'POSITIVE_INT_OR_DECIMAL' | 'FREE_TEXT';
  is_customizable: boolean;
  is_multiple_selection: boolean;
  requirement_conditions: unknown[];
}

const attribute = (
  id: string,
  name: string,
  type: Attribute['type'],
  required: boolean,
  values: [string, string][],
  customizable = false,
): Attribute => ({
  id,
  name,
  type,
  is_requried: required,
  values: values.map(([valueId, valueName]) => ({ id: valueId, name: valueName })),
  value_data_format: 'FREE_TEXT',
  is_customizable: customizable,
  is_multiple_selection: false,
  requirement_conditions: [],
});

const COLOR = attribute(
  '100000',
  'Color',
  'SALES_PROPERTY',
  false,
  [
    ['1000001', 'Black'],
    ['1000002', 'White'],
    ['1000003', 'Blue'],
  ],
  true,
);
const SIZE = attribute(
  '100001',
  'Size',
  'SALES_PROPERTY',
  false,
  [
    ['1000101', 'S'],
    ['1000102', 'M'],
    ['1000103', 'L'],
  ],
  true,
);

/** Get Attributes: Material is required on mugs, Fabric on T-shirts and hoodies; tote bags and baby bottles require nothing. */
export function attributesOf(id: string): Attribute[] {
  if (id === MUGS)
    return [
      attribute('100392', 'Material', 'PRODUCT_PROPERTY', true, [
        ['1001533', 'Ceramic'],
        ['1001534', 'Glass'],
        ['1001535', 'Stainless steel'],
      ]),
      attribute('100393', 'Capacity', 'PRODUCT_PROPERTY', false, [], true),
      COLOR,
    ];
  if (id === BABY_BOTTLES)
    return [
      attribute('100392', 'Material', 'PRODUCT_PROPERTY', false, [
        ['1001534', 'Glass'],
        ['1001538', 'Polypropylene'],
      ]),
      COLOR,
    ];
  if (id === T_SHIRTS || id === HOODIES)
    return [
      attribute(
        '100410',
        'Fabric',
        'PRODUCT_PROPERTY',
        true,
        [
          ['1002001', 'Cotton'],
          ['1002002', 'Polyester'],
        ],
        true,
      ),
      COLOR,
      SIZE,
    ];
  return [
    attribute(
      '100392',
      'Material',
      'PRODUCT_PROPERTY',
      false,
      [
        ['1001536', 'Canvas'],
        ['1001537', 'Jute'],
        [LEATHER, 'Leather'],
      ],
      true,
    ),
    COLOR,
  ];
}

/** Get Brands: ASSUMPTION on the fields beyond id and name, which listings.md does not list. */
export const BRANDS = [
  { id: '7082427311584347905', name: 'Sandbox Home', authorized_status: 'AUTHORIZED', brand_status: 'AVAILABLE', is_t1_brand: false },
  { id: '7082427311584347906', name: 'Sandbox Threads', authorized_status: 'UNAUTHORIZED', brand_status: 'AVAILABLE', is_t1_brand: false },
] as const;

/** A shop's two warehouses, with ids derived from the shop id so every run agrees; the first is the default. */
export function warehousesOf(shopId: string, region: string) {
  const address = { region_code: region, city: 'Sandbox City', postal_code: '00000', address_line1: '1 Sandbox Street' };
  return [
    {
      id: `${shopId}001`,
      name: 'Main warehouse',
      effect_status: 'ENABLED',
      type: 'SALES_WAREHOUSE',
      sub_type: 'DOMESTIC_WAREHOUSE',
      is_default: true,
      address,
    },
    {
      id: `${shopId}002`,
      name: 'Second warehouse',
      effect_status: 'ENABLED',
      type: 'SALES_WAREHOUSE',
      sub_type: 'DOMESTIC_WAREHOUSE',
      is_default: false,
      address,
    },
  ];
}
