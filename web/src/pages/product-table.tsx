/**
 * The Products page's table: a row a product, whose variants (when it has several) open below it as rows of their own,
 * and a box on each row to pick products or single variants for a bulk edit. A product's box is mixed when only some
 * of its variants are picked.
 */
import { useEffect, useRef, useState } from 'react';
import { canEdit } from '../roles';
import { Link } from '../router';
import { useFrameRole } from '../ui';
import type { Product } from './product-draft';
import { formatPrice, productUrl, Thumb } from './product-parts';
import { type BoxState, boxState, type Selection, type Variant, variantName, withVariants } from './product-selection';

/** "$19.99", or "$19.99 – $24.00" when the variants' prices differ. */
function priceRange(product: Product): string {
  const prices = product.variants.map((v) => v.price).sort((a, b) => Number(a) - Number(b));
  const low = prices[0] ?? product.price;
  const high = prices[prices.length - 1] ?? product.price;
  const format = (price: string) => formatPrice(price, product.currency);
  return low === high ? format(low) : `${format(low)} – ${format(high)}`;
}

const stockOf = (product: Product) => product.variants.reduce((sum, v) => sum + v.quantity, 0);
const stockCell = (stock: number) => (stock === 0 ? <span className="badge badge-warn">Out of stock</span> : stock);

/** "Select Red / S of Linen shirt (SHIRT-RED-S)": the product, the variant's values and its sku. */
function variantLabel(product: Product, variant: Variant): string {
  const name = variantName(product, variant);
  return name === variant.sku ? `Select ${name} of ${product.title}` : `Select ${name} of ${product.title} (${variant.sku})`;
}

/** A real checkbox that can also be mixed, which HTML has only as a property (`indeterminate`), not an attribute. */
function SelectBox({ state, label, onChange }: { state: BoxState; label: string; onChange: (on: boolean) => void }) {
  const box = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (box.current) box.current.indeterminate = state === 'some';
  }, [state]);
  // A click on a mixed box checks it: every variant of it is picked.
  return <input ref={box} type="checkbox" aria-label={label} checked={state === 'all'} onChange={(e) => onChange(e.target.checked)} />;
}

export function ProductTable({
  workspaceId,
  rows,
  selected,
  onSelect,
}: {
  workspaceId: string;
  rows: Product[];
  selected: Selection;
  onSelect: (next: Selection) => void;
}) {
  // Picking is for the bulk edit, which a viewer is not offered: no column of boxes for them.
  const role = useFrameRole();
  const selectable = role !== null && canEdit(role);
  // The products whose variants are shown, kept across pages as the selection is.
  const [open, setOpen] = useState<ReadonlySet<number>>(() => new Set());
  const toggleOpen = (id: number) => {
    const next = new Set(open);
    if (!next.delete(id)) next.add(id);
    setOpen(next);
  };
  const pickAll = (on: boolean) => {
    let next = new Map(selected);
    for (const product of rows) next = withVariants(next, product, product.variants, on);
    onSelect(next);
  };
  return (
    <div className="table-wrap">
      <table className="stack products-table">
        <thead>
          <tr>
            {selectable && (
              <th scope="col">
                <SelectBox state={boxState(selected, rows)} label="Select every product on this page" onChange={pickAll} />
              </th>
            )}
            <th scope="col">
              <span className="visually-hidden">Image</span>
            </th>
            <th scope="col">Title</th>
            <th scope="col">SKU</th>
            <th scope="col" className="num">
              Price
            </th>
            <th scope="col" className="num">
              Stock
            </th>
            <th scope="col" className="num">
              Variants
            </th>
          </tr>
        </thead>
        {rows.map((product) => (
          <ProductRows
            key={product.id}
            workspaceId={workspaceId}
            product={product}
            open={open.has(product.id)}
            onToggleOpen={() => toggleOpen(product.id)}
            selected={selected}
            selectable={selectable}
            onPick={(variants, on) => onSelect(withVariants(selected, product, variants, on))}
          />
        ))}
      </table>
    </div>
  );
}

/** A product's row and, when open, a row for each of its variants: one `tbody`, so they read as a group. */
function ProductRows({
  workspaceId,
  product,
  open,
  onToggleOpen,
  selected,
  selectable,
  onPick,
}: {
  workspaceId: string;
  product: Product;
  open: boolean;
  onToggleOpen: () => void;
  selected: Selection;
  selectable: boolean;
  onPick: (variants: readonly Variant[], on: boolean) => void;
}) {
  const several = product.variants.length > 1;
  const rowId = (variant: Variant) => `variant-row-${variant.id}`;
  return (
    <tbody className={open ? 'product-group open' : 'product-group'}>
      <tr>
        {selectable && (
          <td data-label="Select">
            <SelectBox
              state={boxState(selected, [product])}
              label={`Select ${product.title}`}
              onChange={(on) => onPick(product.variants, on)}
            />
          </td>
        )}
        <td className="thumb-cell">
          <Thumb url={product.images[0]?.url} />
        </td>
        <td data-label="Title">
          <Link href={productUrl(workspaceId, product.id)}>{product.title}</Link>
        </td>
        <td data-label="SKU">
          <span>
            <code>{product.sku}</code>
            {several && <span className="muted small"> +{product.variants.length - 1} more</span>}
          </span>
        </td>
        <td data-label="Price" className="num">
          {priceRange(product)}
        </td>
        <td data-label="Stock" className="num">
          {stockCell(stockOf(product))}
        </td>
        <td data-label="Variants" className="num">
          {several ? (
            <button
              type="button"
              className="disclosure"
              aria-label={`${product.variants.length} variants of ${product.title}`}
              aria-expanded={open}
              // Only rows that are there can be pointed at.
              {...(open ? { 'aria-controls': product.variants.map(rowId).join(' ') } : {})}
              onClick={onToggleOpen}
            >
              {product.variants.length}
            </button>
          ) : (
            product.variants.length
          )}
        </td>
      </tr>
      {open &&
        product.variants.map((variant) => (
          <tr key={variant.id} id={rowId(variant)} className="variant-row">
            {selectable && (
              <td data-label="Select">
                <SelectBox
                  state={selected.has(variant.id) ? 'all' : 'none'}
                  label={variantLabel(product, variant)}
                  onChange={(on) => onPick([variant], on)}
                />
              </td>
            )}
            <td className="thumb-cell" />
            <td data-label="Variant" className="variant-name">
              {variantName(product, variant)}
            </td>
            <td data-label="SKU">
              <code>{variant.sku}</code>
            </td>
            <td data-label="Price" className="num">
              {formatPrice(variant.price, product.currency)}
            </td>
            <td data-label="Stock" className="num">
              {stockCell(variant.quantity)}
            </td>
            <td />
          </tr>
        ))}
    </tbody>
  );
}
