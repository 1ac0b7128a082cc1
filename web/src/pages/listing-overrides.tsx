/**
 * What one listing shows instead of its product's (DESIGN §15): its title, description, images and per-variant prices
 * in the listing's currency. An empty field is the product's; saving sends each field (null for the product's) with
 * PATCH /listings/{id}, checked by the platform's rules as a new listing is, each 422 at its field.
 */
import { type FormEvent, useState } from 'react';
import { ApiError, api, inWorkspace, unwrap } from '../api/client';
import { ErrorMessage } from '../ui';
import type { Listing } from './listing-parts';

/** The product as the editor needs it: what an empty field stands for. */
export interface OverriddenProduct {
  title: string;
  description: string;
  currency: string;
  images: { id: number; url: string; alt: string | null }[];
  variants: { sku: string }[];
}

interface Form {
  title: string;
  description: string;
  /** Null: the product's images; else the ids picked, in the product's order. */
  images: number[] | null;
  prices: Record<string, string>;
}

const formOf = (listing: Listing): Form => ({
  title: listing.overrides?.title ?? '',
  description: listing.overrides?.description ?? '',
  images: listing.overrides?.images ?? null,
  prices: Object.fromEntries((listing.overrides?.variants ?? []).map((v) => [v.sku, v.price])),
});

export function ListingOverrides({
  listing,
  product,
  platform,
  workspaceId,
  onChanged,
}: {
  listing: Listing;
  product: OverriddenProduct;
  platform: string;
  workspaceId: string;
  onChanged: (listing: Listing) => void;
}) {
  const [form, setForm] = useState<Form>(() => formOf(listing));
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const [failure, setFailure] = useState<Error | null>(null);
  const [saving, setSaving] = useState(false);
  const [message, setMessage] = useState('');
  const edit = (change: Partial<Form>) => {
    setForm((f) => ({ ...f, ...change }));
    setMessage('');
  };
  const errorOf = (field: string) => errors[`overrides.${field}`] ?? errors[`body.overrides.${field}`];
  const variantError = (i: number) => errorOf(`variants.${i}.price`) ?? errorOf(`variants.${i}.sku`);
  const priced = product.variants.filter((v) => (form.prices[v.sku] ?? '').trim() !== '');

  async function save(event: FormEvent) {
    event.preventDefault();
    setSaving(true);
    setErrors({});
    setFailure(null);
    setMessage('');
    const overrides = {
      title: form.title.trim() === '' ? null : form.title,
      description: form.description.trim() === '' ? null : form.description,
      images: form.images,
      variants: priced.length === 0 ? null : priced.map((v) => ({ sku: v.sku, price: form.prices[v.sku]!.trim() })),
    };
    try {
      const saved = unwrap(
        await api.PATCH('/api/v1/listings/{listing_id}', {
          params: { path: { listing_id: listing.id }, header: inWorkspace(workspaceId) },
          body: { overrides },
        }),
      ).data;
      onChanged(saved);
      setForm(formOf(saved));
      setMessage(`Saved: on its way to ${platform}.`);
    } catch (caught) {
      if (caught instanceof ApiError && caught.status === 422 && Object.keys(caught.fields).length > 0) setErrors(caught.fields);
      else setFailure(caught as Error);
    } finally {
      setSaving(false);
    }
  }

  // Errors the form has no field for (the exchange rate, a platform rule on the product) are shown above it.
  const elsewhere = Object.entries(errors).filter(([key]) => !/^(body\.)?overrides\./.test(key));
  return (
    <section className="card" aria-labelledby="overrides-heading">
      <h2 id="overrides-heading">On {platform} only</h2>
      <p className="muted small" id="overrides-help">
        What this listing shows instead of the product's. Leave a field empty to use the product's; prices are in {listing.currency}, as
        listed, and take the place of the exchange rate and the price adjustment.
      </p>
      {failure && <ErrorMessage error={failure} title="The listing was not changed" />}
      {elsewhere.length > 0 && <ErrorMessage error={elsewhere.map(([, m]) => m.join(' ')).join(' ')} title="The listing was not changed" />}
      <form onSubmit={(e) => void save(e)} noValidate aria-describedby="overrides-help">
        <div className="field">
          <label htmlFor="override-title">Title</label>
          <input
            id="override-title"
            value={form.title}
            placeholder={product.title}
            onChange={(e) => edit({ title: e.target.value })}
            aria-invalid={errorOf('title') ? true : undefined}
            aria-describedby={errorOf('title') ? 'override-title-error' : undefined}
          />
          {errorOf('title') && (
            <p id="override-title-error" className="field-error">
              {errorOf('title')!.join(' ')}
            </p>
          )}
        </div>
        <div className="field">
          <label htmlFor="override-description">Description</label>
          <textarea
            id="override-description"
            rows={4}
            value={form.description}
            placeholder={product.description}
            onChange={(e) => edit({ description: e.target.value })}
            aria-invalid={errorOf('description') ? true : undefined}
            aria-describedby={errorOf('description') ? 'override-description-error' : undefined}
          />
          {errorOf('description') && (
            <p id="override-description-error" className="field-error">
              {errorOf('description')!.join(' ')}
            </p>
          )}
        </div>
        {product.images.length > 1 && (
          <fieldset className="field">
            <legend>Images</legend>
            <label className="checkbox">
              <input
                type="checkbox"
                checked={form.images === null}
                onChange={(e) => edit({ images: e.target.checked ? null : product.images.map((i) => i.id) })}
              />{' '}
              The product's images
            </label>
            {form.images !== null &&
              product.images.map((image, i) => (
                <label key={image.id} className="checkbox">
                  <input
                    type="checkbox"
                    checked={form.images!.includes(image.id)}
                    onChange={(e) =>
                      edit({
                        images: product.images
                          .map((each) => each.id)
                          .filter((id) => (id === image.id ? e.target.checked : form.images!.includes(id))),
                      })
                    }
                  />{' '}
                  {image.alt || `Image ${i + 1}`}
                </label>
              ))}
            {errorOf('images') && <p className="field-error">{errorOf('images')!.join(' ')}</p>}
          </fieldset>
        )}
        <div className="table-wrap">
          <table>
            <caption>
              Prices on {platform} ({listing.currency})
            </caption>
            <thead>
              <tr>
                <th scope="col">SKU</th>
                <th scope="col">Listed at</th>
                <th scope="col">Its own price</th>
              </tr>
            </thead>
            <tbody>
              {product.variants.map((variant, i) => {
                const listed = listing.variants.find((v) => v.sku === variant.sku);
                const index = priced.findIndex((v) => v.sku === variant.sku);
                const error = index >= 0 ? variantError(index) : undefined;
                return (
                  <tr key={variant.sku}>
                    <th scope="row">
                      <code>{variant.sku}</code>
                    </th>
                    <td>{listed ? `${listed.price} ${listing.currency}` : '—'}</td>
                    <td>
                      <input
                        aria-label={`Price of ${variant.sku} on ${platform}`}
                        inputMode="decimal"
                        value={form.prices[variant.sku] ?? ''}
                        placeholder="The product's"
                        onChange={(e) => edit({ prices: { ...form.prices, [variant.sku]: e.target.value } })}
                        aria-invalid={error ? true : undefined}
                        aria-describedby={error ? `override-price-${i}-error` : undefined}
                      />
                      {error && (
                        <p id={`override-price-${i}-error`} className="field-error">
                          {error.join(' ')}
                        </p>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
        <div className="button-row">
          <button type="submit" className="primary" disabled={saving}>
            {saving ? 'Saving…' : `Save for ${platform}`}
          </button>
          <span className="saved-note" role="status">
            {message}
          </span>
        </div>
      </form>
    </section>
  );
}
