/**
 * A realistic subset of Etsy's seller taxonomy (listings.md §1.3): three levels, Etsy's node shape
 * (`id, level, name, parent_id, child_ids, children, full_path_taxonomy_ids`) and the properties of each leaf. The ids
 * are the sandbox's own; only leaves take listings.
 */

export interface TaxonomyNode {
  id: number;
  level: number;
  name: string;
  parent_id: number | null;
  child_ids: number[];
  children: TaxonomyNode[];
  full_path_taxonomy_ids: number[];
}

type Outline = [id: number, name: string, children?: Outline[]];

const OUTLINE: Outline[] = [
  [
    1,
    'Bags & Purses',
    [
      [
        101,
        'Totes',
        [
          [1011, 'Canvas Totes'],
          [1012, 'Leather Totes'],
        ],
      ],
      [
        102,
        'Backpacks',
        [
          [1021, 'Laptop Backpacks'],
          [1022, 'Drawstring Backpacks'],
        ],
      ],
      [
        103,
        'Wallets & Money Clips',
        [
          [1031, 'Bifold Wallets'],
          [1032, 'Card Cases'],
        ],
      ],
    ],
  ],
  [
    2,
    'Clothing',
    [
      [
        201,
        "Women's Clothing",
        [
          [2011, 'Dresses'],
          [2012, 'Tops & Tees'],
        ],
      ],
      [
        202,
        "Men's Clothing",
        [
          [2021, 'T-shirts'],
          [2022, 'Hoodies & Sweatshirts'],
        ],
      ],
    ],
  ],
  [
    3,
    'Home & Living',
    [
      [
        301,
        'Kitchen & Dining',
        [
          [1071, 'Mugs'],
          [3012, 'Drink & Barware'],
          [3013, 'Coasters'],
        ],
      ],
      [
        302,
        'Home Decor',
        [
          [3021, 'Candles'],
          [3022, 'Wall Hangings'],
          [3023, 'Vases'],
        ],
      ],
      [
        303,
        'Bedding',
        [
          [3031, 'Blankets & Throws'],
          [3032, 'Pillowcases'],
        ],
      ],
    ],
  ],
  [
    4,
    'Jewelry',
    [
      [
        401,
        'Necklaces',
        [
          [4011, 'Pendants'],
          [4012, 'Chokers'],
        ],
      ],
      [
        402,
        'Rings',
        [
          [4021, 'Bands'],
          [4022, 'Statement Rings'],
        ],
      ],
      [
        403,
        'Earrings',
        [
          [4031, 'Stud Earrings'],
          [4032, 'Hoop Earrings'],
        ],
      ],
    ],
  ],
];

function build(outline: Outline, parent: TaxonomyNode | null): TaxonomyNode {
  const [id, name, children = []] = outline;
  const node: TaxonomyNode = {
    id,
    level: parent ? parent.level + 1 : 1,
    name,
    parent_id: parent?.id ?? null,
    child_ids: children.map(([childId]) => childId),
    children: [],
    full_path_taxonomy_ids: [...(parent?.full_path_taxonomy_ids ?? []), id],
  };
  node.children = children.map((child) => build(child, node));
  return node;
}

/** The tree getSellerTaxonomyNodes answers: its top-level nodes, each with its descendants. */
export const TAXONOMY: readonly TaxonomyNode[] = OUTLINE.map((outline) => build(outline, null));

const byId = new Map<number, TaxonomyNode>();
const index = (node: TaxonomyNode): void => {
  byId.set(node.id, node);
  node.children.forEach(index);
};
TAXONOMY.forEach(index);

export const taxonomyNode = (id: number): TaxonomyNode | undefined => byId.get(id);
export const isLeaf = (id: number) => byId.get(id)?.children.length === 0;

export interface PropertyValue {
  value_id: number;
  name: string;
  scale_id: number | null;
  equal_to: number[];
}

export interface TaxonomyProperty {
  property_id: number;
  name: string;
  display_name: string;
  scales: Array<{ scale_id: number; display_name: string; description: string }>;
  is_required: boolean;
  supports_attributes: boolean;
  supports_variations: boolean;
  is_multivalued: boolean;
  max_values_allowed: number | null;
  possible_values: PropertyValue[];
  selected_values: PropertyValue[];
}

const values = (first: number, names: string[], scaleId: number | null = null): PropertyValue[] =>
  names.map((name, i) => ({ value_id: first + i, name, scale_id: scaleId, equal_to: [] }));

type PropertyBase = Omit<TaxonomyProperty, 'is_required'>;

const COLOR_NAMES = ['Black', 'White', 'Red', 'Blue', 'Green', 'Yellow', 'Pink', 'Purple', 'Brown', 'Gray'];
const PRIMARY_COLOR: PropertyBase = {
  property_id: 200,
  name: 'Primary color',
  display_name: 'Primary color',
  scales: [],
  supports_attributes: true,
  supports_variations: true,
  is_multivalued: false,
  max_values_allowed: null,
  possible_values: values(1, COLOR_NAMES),
  selected_values: [],
};
const SECONDARY_COLOR: PropertyBase = {
  ...PRIMARY_COLOR,
  property_id: 52047899002,
  name: 'Secondary color',
  display_name: 'Secondary color',
};
const MATERIAL: PropertyBase = {
  property_id: 507,
  name: 'Material',
  display_name: 'Material',
  scales: [],
  supports_attributes: true,
  supports_variations: false,
  is_multivalued: true,
  max_values_allowed: 5,
  possible_values: values(601, ['Cotton', 'Leather', 'Ceramic', 'Glass', 'Wood', 'Silver', 'Gold', 'Wax']),
  selected_values: [],
};
const SIZE: PropertyBase = {
  property_id: 100,
  name: 'Size',
  display_name: 'Size',
  scales: [{ scale_id: 1, display_name: 'Letter', description: 'US letter sizes' }],
  supports_attributes: false,
  supports_variations: true,
  is_multivalued: false,
  max_values_allowed: null,
  possible_values: values(701, ['XS', 'S', 'M', 'L', 'XL'], 1),
  selected_values: [],
};
const CAPACITY: PropertyBase = {
  property_id: 300,
  name: 'Capacity',
  display_name: 'Capacity',
  scales: [
    { scale_id: 11, display_name: 'Fluid ounces', description: 'fl oz' },
    { scale_id: 12, display_name: 'Millilitres', description: 'ml' },
  ],
  supports_attributes: true,
  supports_variations: true,
  is_multivalued: false,
  max_values_allowed: null,
  possible_values: [],
  selected_values: [],
};

const required = (property: PropertyBase): TaxonomyProperty => ({ ...property, is_required: true });
const optional = (property: PropertyBase): TaxonomyProperty => ({ ...property, is_required: false });

/**
 * The properties of the leaves that have some: clothing needs its colour, mugs their colour and material, rings none
 * required. A leaf left out has none (Etsy answers an empty list for such nodes).
 */
const PROPERTIES = new Map<number, TaxonomyProperty[]>([
  [1071, [required(PRIMARY_COLOR), optional(SECONDARY_COLOR), required(MATERIAL), optional(CAPACITY)]],
  [3012, [optional(PRIMARY_COLOR), optional(CAPACITY)]],
  [1011, [required(PRIMARY_COLOR), optional(MATERIAL)]],
  [1012, [required(PRIMARY_COLOR), required(MATERIAL)]],
  [2011, [required(PRIMARY_COLOR), optional(SECONDARY_COLOR), optional(SIZE)]],
  [2012, [required(PRIMARY_COLOR), optional(SECONDARY_COLOR), optional(SIZE)]],
  [2021, [required(PRIMARY_COLOR), optional(SIZE)]],
  [2022, [required(PRIMARY_COLOR), optional(SIZE), optional(MATERIAL)]],
  [4021, [optional(PRIMARY_COLOR), optional(MATERIAL)]],
  [4022, [optional(PRIMARY_COLOR), optional(MATERIAL)]],
]);

export const propertiesOf = (taxonomyId: number): TaxonomyProperty[] => PROPERTIES.get(taxonomyId) ?? [];

/**
 * Etsy's two custom variation properties, for options no taxonomy property names (listings.md §1.6): the caller gives
 * their `property_name`. ASSUMPTION: the ids 513 and 514, as Etsy's v2 documentation numbered them.
 */
export const CUSTOM_PROPERTY_IDS: readonly number[] = [513, 514];
