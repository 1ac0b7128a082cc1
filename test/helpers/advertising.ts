/** An active Amazon listing, and its advertising, made through the API as a seller makes them (DESIGN §13). */
import assert from 'node:assert/strict';
import { ADVERTISING_QUEUE } from '../../src/core/advertising/advertising-work.js';
import { READ_QUEUE } from '../../src/core/listings/listing-watch.js';
import { LISTING_QUEUE } from '../../src/core/listings/listing-work.js';
import { adsProfile } from './ads-sandbox.js';
import { connectThroughSandbox, locationOf } from './connect.js';
import { amazonSeller, mugProduct } from './listings.js';
import { call, runDueJobs, type TestApp } from './test-app.js';

/** An automatic campaign's settings. */
export const AUTO = { daily_budget: '10.00', default_bid: '0.50', targeting: 'auto' };

/** The listing watch reads what Amazon finished processing. */
async function watched(t: TestApp): Promise<void> {
  t.clock.advance(61_000);
  await t.deps.listingWatch.sweep();
  await runDueJobs(t, READ_QUEUE);
}

/** A seller with an active two-SKU mug on Amazon.com, and (unless `ads` is false) advertising connected for the site. */
export async function activeAmazonListing(t: TestApp, account: string, sku: string, options: { ads?: boolean } = {}) {
  const me = await amazonSeller(t, account);
  if (options.ads !== false) {
    const back = locationOf(await connectThroughSandbox(t, me, { platform_id: 5, site_id: me.site }, 'allow', account));
    assert.match(back, /advertising|site/);
  }
  const productId = await mugProduct(t, me, sku, { brand: 'Sandbox Pottery', barcodes: ['012345678905', '4006381333931'] });
  const body = { product_id: productId, category_id: 'KITCHEN', attributes: { material: 'Stoneware' } };
  const published = await call(t, 'POST', `/sites/${me.site}/listings`, { ...me.as, body });
  assert.equal(published.statusCode, 202, published.body);
  const id = published.json().data.id as number;
  await runDueJobs(t, LISTING_QUEUE);
  await watched(t);
  assert.equal((await call(t, 'GET', `/listings/${id}`, me.as)).json().data.status, 'active');
  return { me, id, productId, profile: adsProfile(Number(account)) };
}

/** An active Amazon listing advertised with `body`, its campaign made on the sandbox Amazon Ads. */
export async function advertisedListing(t: TestApp, account: string, sku: string, body: object = AUTO) {
  const made = await activeAmazonListing(t, account, sku);
  const started = await call(t, 'POST', `/listings/${made.id}/advertising`, { ...made.me.as, body });
  assert.equal(started.statusCode, 202, started.body);
  await runDueJobs(t, ADVERTISING_QUEUE);
  return made;
}
