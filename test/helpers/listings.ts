/** A seller with a connected sandbox Etsy shop, for the listing tests. */
import assert from 'node:assert/strict';
import { connectAmazonSellerSite, connectEtsySite, connectTikTokShopSite } from './connect.js';
import { GIF_1X1, type MugOverrides, mug } from './fixtures.js';
import { API, call, registerUser, type TestApp } from './test-app.js';

/**
 * A new user whose sandbox Etsy shop `account` is connected (`shop`: the consent page's choice of shop), its listing
 * settings set from the shop's own choices unless `settings` is false.
 */
export async function etsySeller(t: TestApp, account: string, options: { shop?: string; settings?: boolean } = {}) {
  const user = await registerUser(t);
  const as = { token: user.session, workspace: user.workspace.id };
  const site = await connectEtsySite(t, user, account, options.shop ? { shop: options.shop } : {});
  if (options.settings !== false) {
    const choices = (await call(t, 'GET', `/sites/${site}/listing-options`, as)).json().data;
    const first = (field: string) => choices[field][0].value;
    const body = {
      shipping_profile_id: first('shipping_profile_id'),
      return_policy_id: first('return_policy_id'),
      readiness_state_id: first('readiness_state_id'),
      who_made: 'i_did',
      when_made: 'made_to_order',
    };
    assert.equal((await call(t, 'PUT', `/sites/${site}/listing-settings`, { ...as, body })).statusCode, 200);
  }
  return { ...user, as, site, account };
}

/**
 * A new user whose sandbox TikTok Shop `account` is connected (`shop`: the consent page's choice of what the shop
 * already sells), its warehouse set to the shop's default unless `settings` is false.
 */
export async function tiktokSeller(
  t: TestApp,
  account: string,
  options: { shop?: string; settings?: boolean; choices?: Record<string, string> } = {},
) {
  const user = await registerUser(t);
  const as = { token: user.session, workspace: user.workspace.id };
  const site = await connectTikTokShopSite(t, user, account, { ...(options.shop ? { shop: options.shop } : {}), ...options.choices });
  if (options.settings !== false) {
    const choices = (await call(t, 'GET', `/sites/${site}/listing-options`, as)).json().data;
    const body = { warehouse_id: choices.warehouse_id[0].value };
    assert.equal((await call(t, 'PUT', `/sites/${site}/listing-settings`, { ...as, body })).statusCode, 200);
  }
  return { ...user, as, site, account };
}

/**
 * A new user whose sandbox Amazon seller `account` is connected (`listings`: the consent page's choice of what the
 * account already sells), its marketplace set to Amazon.com (US) unless `settings` is false.
 */
export async function amazonSeller(t: TestApp, account: string, options: { listings?: string; settings?: boolean } = {}) {
  const user = await registerUser(t);
  const as = { token: user.session, workspace: user.workspace.id };
  const site = await connectAmazonSellerSite(t, user, account, options.listings ? { listings: options.listings } : {});
  if (options.settings !== false) {
    const body = { marketplace_id: 'ATVPDKIKX0DER' };
    assert.equal((await call(t, 'PUT', `/sites/${site}/listing-settings`, { ...as, body })).statusCode, 200);
  }
  return { ...user, as, site, account };
}

type Seller = Awaited<ReturnType<typeof etsySeller>>;

/**
 * The listing tests' mug (fixtures' `mug` with `colours`, and `options` over it) made in the seller's catalogue with one
 * uploaded image, a 1 x 1 GIF unless `image` is given (Etsy takes files): the product's id.
 */
export async function mugProduct(
  t: TestApp,
  me: Seller,
  sku: string,
  options: MugOverrides & { image?: { bytes: Buffer; type: string; name: string } } = {},
): Promise<number> {
  const { image = { bytes: GIF_1X1, type: 'image/gif', name: 'mug.gif' }, ...overrides } = options;
  const created = await call(t, 'POST', '/products', { ...me.as, body: mug(sku, { colours: true, ...overrides }) });
  assert.equal(created.statusCode, 201, created.body);
  const id = created.json().data.id as number;
  const form = new FormData();
  form.set('file', new Blob([image.bytes], { type: image.type }), image.name);
  const uploaded = await fetch(`${t.deps.config.appUrl}${API}/products/${id}/images`, {
    method: 'POST',
    headers: { authorization: `Bearer ${me.session}`, 'x-workspace-id': String(me.workspace.id) },
    body: form,
  });
  assert.equal(uploaded.status, 201, await uploaded.text());
  return id;
}

/** A leaf category whose name holds `q`, and its required attributes given their first choice. */
export async function leafCategory(t: TestApp, me: Seller, q: string) {
  const found = (await call(t, 'GET', `/sites/${me.site}/categories?q=${encodeURIComponent(q)}`, me.as)).json().data;
  const leaf = found.find((c: { leaf: boolean }) => c.leaf);
  assert.ok(leaf, `a leaf category named like ${q}: ${JSON.stringify(found)}`);
  const attributes = (await call(t, 'GET', `/sites/${me.site}/categories/${leaf.id}/attributes`, me.as)).json().data;
  const given = Object.fromEntries(
    attributes
      .filter((a: { required: boolean }) => a.required)
      .map((a: { name: string; type: string; values: { value: string }[] }) => [
        a.name,
        a.type === 'multiselect' ? [a.values[0]!.value] : (a.values[0]?.value ?? 'text'),
      ]),
  );
  return { id: leaf.id as string, attributes: given };
}

/** A mug of `sku` published (202) to the seller's shop in a category for mugs: the product's and the listing's ids. */
export async function publishMug(t: TestApp, me: Seller, sku: string) {
  const productId = await mugProduct(t, me, sku);
  const { id: categoryId, attributes } = await leafCategory(t, me, 'mug');
  const body = { product_id: productId, category_id: categoryId, attributes };
  const published = await call(t, 'POST', `/sites/${me.site}/listings`, { ...me.as, body });
  assert.equal(published.statusCode, 202, published.body);
  return { productId, id: published.json().data.id as number };
}

/** A listing as a sandbox's inspection shows it (DESIGN §10), as far as the listing tests read it. */
export interface HeldListing {
  id: number | string;
  title: string;
  image_ids?: number[];
  skus: { sku: string; price: string | number | null; quantity: number }[];
}

/** What the sandbox platform `slug` holds for the account: its inspection answer, read as `Held` (a test's own view). */
export async function heldListings<Held = HeldListing>(t: TestApp, slug: string, account: string): Promise<Held[]> {
  const response = await fetch(`${t.deps.config.appUrl}/sandbox/${slug}/accounts/${account}/listings`);
  assert.equal(response.status, 200);
  return (await response.json()) as Held[];
}

/** Each sku's price in the listings, as a number (an Amazon family's parent has none of its own: DESIGN §15). */
export const heldPrices = (items: readonly HeldListing[]) =>
  Object.fromEntries(items.flatMap((item) => item.skus.filter((sku) => sku.price !== null).map((sku) => [sku.sku, Number(sku.price)])));
