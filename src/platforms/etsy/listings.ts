/**
 * Etsy's listings capability (listings.md §1): the reads a site's settings and categories need, and the listing's life:
 * a draft created, its properties (the category's attributes) set, its images uploaded, its inventory (variants, skus,
 * prices, quantities) put, then activated; later changes send only the parts that changed, and a create Etsy made but
 * never answered for is found again by its title.
 */
import type { CategoryAttribute } from '../../domain/index.js';
import type { Clock } from '../../lib/clock.js';
import { PlatformError } from '../contracts/errors.js';
import type { ChangedListing, ListingDraft, ListingProgress, ListingsAdapter, ListingsCall } from '../contracts/listings.js';
import { fingerprint } from '../fingerprint.js';
import { type PlatformAnswer, type PlatformHttp, readAnswer } from '../http.js';
import type { EtsyConfig } from './connect.js';
import { existingListing, existingPath, nextCursor } from './existing.js';
import { createListingForm, fieldsForm, inventoryBody, inventoryPrint, shopSetupForm, soldOut } from './listing-requests.js';
import {
  type EtsyListing,
  orDuplicate,
  parseCreatedReadinessState,
  parseCreatedReturnPolicy,
  parseCreatedShippingProfile,
  parseDeleted,
  parseImage,
  parseImageList,
  parseInventory,
  parseListing,
  parseListingList,
  parseListingOrGone,
  parseProperty,
  parseReadinessStates,
  parseReturnPolicies,
  parseShippingProfiles,
  parseTaxonomy,
  parseTaxonomyProperties,
  platformListing,
  readinessLabel,
  readRateLimits,
  returnPolicyLabel,
  type TaxonomyRead,
} from './listing-responses.js';
import { checkEtsyDraft } from './listing-rules.js';
import { ETSY_WHEN_MADE, ETSY_WHO_MADE } from './listing-settings.js';
import { apiHeaders } from './requests.js';

type Save = (progress: ListingProgress) => Promise<void>;

/** A create's answer lost: listings created up to this long before the first attempt still count as ours. */
const RECONCILE_SLACK_S = 60;

/** Etsy's taxonomy changes a few times a year: read once an hour, not on every search of it. */
const TAXONOMY_TTL_MS = 3600_000;
/**
 * How often a shop's recently updated listings are read (docs/listings.md, "Live"): every 15 s, the two states in turn,
 * so each is read every 30 s and a change made on Etsy shows within 30 s and a read. 4 calls a minute a shop: 5,760 a
 * day, within the per-token day of Etsy's newer page (100,000; listings.md §1.10) and paced with every other call.
 */
export const ETSY_CHANGES_EVERY_SECONDS = 15;
/** Listings a read of recent changes asks for, and the pages it reads at most when all of them changed since. */
const CHANGES_PAGE_SIZE = 25;
const CHANGES_PAGES_MAX = 4;
/** Categories a search answers at most: enough to pick from, not the whole tree of several thousand. */
const SEARCH_RESULTS_MAX = 50;

/**
 * A country's name in English, for the choice of where a new shipping profile ships from. Made on first use: ICU's
 * display names page about 5 MB of its data out of the node binary into the process for good, which a server that never
 * asks Etsy's question need not hold (docs/decisions.md, "ICU's data is touched on first use").
 */
let countryNames: Intl.DisplayNames | undefined;
const countryName = (code: string) => (countryNames ??= new Intl.DisplayNames(['en'], { type: 'region' })).of(code) ?? code;

const WHO_MADE_LABELS: Record<(typeof ETSY_WHO_MADE)[number], string> = {
  i_did: 'I did',
  collective: 'A member of my shop',
  someone_else: 'Another company or person',
};

/** `2010_2019` reads "2010–2019", `1990s` stays, `before_1700` reads "Before 1700". */
const whenMadeLabel = (value: string) =>
  value === 'made_to_order' ? 'Made to order' : value.replace(/^before_/, 'Before ').replace(/^([0-9]{4})_([0-9]{4})$/, '$1–$2');

export function createEtsyListingsAdapter(config: EtsyConfig, deps: { http: PlatformHttp; clock: Clock }) {
  const base = `${config.apiUrl}/v3/application`;
  let taxonomy: { readAt: number; nodes: ReturnType<typeof parseTaxonomy> } | null = null;
  // A category's properties change with the taxonomy: read once an hour too, not for every listing published in it.
  const properties = new Map<string, { readAt: number; read: TaxonomyRead | null }>();

  async function send<T>(
    call: ListingsCall,
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    path: string,
    parse: (status: number, body: unknown) => T,
    body: { form?: Record<string, string>; json?: unknown; multipart?: FormData } = {},
  ): Promise<T> {
    const headers = apiHeaders({ clientId: config.clientId, sharedSecret: config.sharedSecret, accessToken: call.accessToken });
    await call.beforeCall?.();
    const answer: PlatformAnswer = await deps.http.request(`${base}${path}`, { method, headers, signal: call.signal, ...body });
    const limits = readRateLimits(answer.headers);
    if (limits) call.onLimits?.(limits);
    return readAnswer(answer, parse);
  }
  const get = <T>(call: ListingsCall, path: string, parse: (status: number, body: unknown) => T) => send(call, 'GET', path, parse);

  /**
   * A listing Etsy made but never answered for (a time-out, or its 500 after creating, listings.md §1.11): a draft of
   * the shop with the same title, created since the first attempt, that no other listing of ours holds. Null: none.
   */
  async function findCreated(call: ListingsCall, draft: ListingDraft, since: string): Promise<EtsyListing | null> {
    const after = Math.floor(new Date(since).getTime() / 1000) - RECONCILE_SLACK_S;
    const page = await get(call, `${shop(call)}/listings?state=draft&limit=100`, parseListingList);
    for (const listing of page.results) {
      if (listing.title !== draft.title || (listing.created_timestamp ?? 0) < after) continue;
      if (!(await call.isClaimed?.(String(listing.listing_id)))) return listing;
    }
    return null;
  }

  /** An image of the listing at `rank` that none of ours holds: the upload Etsy took without answering. Null: none. */
  async function findUploaded(call: ListingsCall, progress: ListingProgress, rank: number): Promise<string | null> {
    const ours = new Set(Object.values(progress.images));
    const images = await get(call, `${shop(call)}/listings/${progress.externalId}/images`, parseImageList);
    const found = images.results.find((image) => !ours.has(String(image.listing_image_id)) && image.rank === rank);
    return found ? String(found.listing_image_id) : null;
  }

  /** The draft, created once: its id saved before anything else is done with it. The draft when this call made or found it. */
  async function ensureCreated(call: ListingsCall, draft: ListingDraft, progress: ListingProgress, save: Save) {
    if (progress.externalId) return null;
    let listing = progress.createStartedAt ? await findCreated(call, draft, progress.createStartedAt) : null;
    if (!listing) {
      progress.createStartedAt ??= deps.clock.now().toISOString();
      await save(progress);
      listing = await send(call, 'POST', `${shop(call)}/listings`, parseListing, { form: createListingForm(draft, call.settings) });
    }
    progress.externalId = String(listing.listing_id);
    progress.externalUrl = listing.url ?? null;
    // A new draft holds these fields already; only a later change sends them.
    progress.delivered.fields = fingerprint(fieldsForm(draft, call.settings));
    await save(progress);
    return listing;
  }

  /**
   * Uploads the images Etsy does not have, at the draft's rank, and removes those the product no longer has. An image
   * Etsy holds is never uploaded again. When the listing held images before, the draft's order is then set with
   * updateListing's `image_ids` (listings.md §1.7), one call: a reorder in the catalogue reaches Etsy.
   */
  async function deliverImages(call: ListingsCall, draft: ListingDraft, progress: ListingProgress, save: Save) {
    const print = fingerprint(draft.images.map((image) => image.key));
    if (progress.delivered.images === print) return;
    const path = `${shop(call)}/listings/${progress.externalId}/images`;
    const heldBefore = Object.keys(progress.images).length > 0;
    for (const [rank, image] of draft.images.entries()) {
      if (progress.images[image.key]) continue;
      // An upload Etsy took but never answered for (a time-out, its 500, the instance killed) is found, not sent again.
      const taken = progress.uploading === image.key ? await findUploaded(call, progress, rank + 1) : null;
      if (taken) {
        progress.images[image.key] = taken;
        progress.uploading = null;
        await save(progress);
        continue;
      }
      progress.uploading = image.key;
      await save(progress);
      const { bytes, contentType } = await image.bytes();
      const form = new FormData();
      form.set('image', new Blob([new Uint8Array(bytes)], { type: contentType }), `image-${rank + 1}`);
      form.set('rank', String(rank + 1));
      if (image.alt) form.set('alt_text', image.alt);
      const uploaded = await send(call, 'POST', path, parseImage, { multipart: form });
      progress.images[image.key] = String(uploaded.listing_image_id);
      progress.uploading = null;
      await save(progress);
    }
    const keys = new Set(draft.images.map((image) => image.key));
    for (const [key, id] of Object.entries(progress.images)) {
      if (keys.has(key)) continue;
      await send(call, 'DELETE', `${path}/${id}`, parseDeleted);
      delete progress.images[key];
    }
    // Uploads at their rank give a new listing its order; a listing that held images before may hold them in another.
    if (heldBefore && draft.images.length > 1) {
      const form = { image_ids: draft.images.map((image) => progress.images[image.key]!).join(',') };
      await send(call, 'PATCH', `${shop(call)}/listings/${progress.externalId}`, parseListing, { form });
    }
    progress.delivered.images = print;
  }

  async function deliverInventory(call: ListingsCall, draft: ListingDraft, progress: ListingProgress) {
    // A product of options names the category's own variation properties where they fit (listings.md §1.6).
    const readiness = String(call.settings.readiness_state_id);
    const print = inventoryPrint(draft, readiness);
    if (progress.delivered.inventory === print) return;
    const variations = draft.options.length > 0 ? ((await taxonomyRead(call, draft.categoryId))?.variations ?? []) : [];
    const body = inventoryBody(draft, readiness, variations);
    // The unit a sold-out inventory keeps must not be sold: the listing goes off before it is sent.
    if (soldOut(draft)) await switchOffIfLive(call, progress);
    const answer = await send(call, 'PUT', `/listings/${progress.externalId}/inventory`, parseInventory, { json: body });
    progress.variantIds = Object.fromEntries(answer.products.flatMap((p) => (p.sku ? [[p.sku, String(p.product_id)]] : [])));
    progress.delivered.inventory = print;
  }

  /** Takes a live or sold-out listing off (`inactive`); a draft or one off already is left. */
  async function switchOffIfLive(call: ListingsCall, progress: ListingProgress) {
    const listing = await get(call, `/listings/${progress.externalId}`, parseListingOrGone);
    if (listing?.state === 'active' || listing?.state === 'sold_out')
      await send(call, 'PATCH', `${shop(call)}/listings/${progress.externalId}`, parseListing, { form: { state: 'inactive' } });
  }

  async function deliverFields(call: ListingsCall, draft: ListingDraft, progress: ListingProgress) {
    const form = fieldsForm(draft, call.settings);
    const print = fingerprint(form);
    if (progress.delivered.fields === print) return;
    await send(call, 'PATCH', `${shop(call)}/listings/${progress.externalId}`, parseListing, { form });
    progress.delivered.fields = print;
  }

  /**
   * The listing's attributes as Etsy's listing properties (updateListingProperty, one call a property): a select's or
   * multiselect's choices by `value_ids`, a text property's text as `values`. Only a property whose value changed is
   * sent, and one the listing no longer has is removed (deleteListingProperty; gone already is done).
   */
  async function deliverProperties(call: ListingsCall, draft: ListingDraft, progress: ListingProgress) {
    const wanted = Object.entries(draft.attributes).filter(([, value]) => value !== null && value !== undefined && value !== '');
    const kinds = new Map(
      (wanted.length > 0 ? ((await categoryAttributes(call, draft.categoryId)) ?? []) : []).map((a) => [a.name, a.type]),
    );
    const path = `${shop(call)}/listings/${progress.externalId}/properties`;
    for (const [id, value] of wanted) {
      const form: Record<string, string> =
        kinds.get(id) === 'text' ? { values: String(value) } : { value_ids: [value].flat().map(String).join(',') };
      const print = fingerprint({ categoryId: draft.categoryId, form });
      if (progress.delivered[`property.${id}`] === print) continue;
      await send(call, 'PUT', `${path}/${encodeURIComponent(id)}`, parseProperty(id), { form });
      progress.delivered[`property.${id}`] = print;
    }
    const keep = new Set(wanted.map(([id]) => `property.${id}`));
    for (const key of Object.keys(progress.delivered)) {
      if (!key.startsWith('property.') || keep.has(key)) continue;
      await send(call, 'DELETE', `${path}/${encodeURIComponent(key.slice('property.'.length))}`, parseDeleted);
      delete progress.delivered[key];
    }
  }

  /** The category's properties (getPropertiesByTaxonomyId), read once an hour per instance; null for a category Etsy has not. */
  async function taxonomyRead(call: ListingsCall, categoryId: string): Promise<TaxonomyRead | null> {
    if (!/^[0-9]{1,18}$/.test(categoryId)) return null;
    const now = deps.clock.nowMs();
    const known = properties.get(categoryId);
    if (known && now - known.readAt <= TAXONOMY_TTL_MS) return known.read;
    const read = await get(call, `/seller-taxonomy/nodes/${categoryId}/properties`, parseTaxonomyProperties);
    properties.set(categoryId, { readAt: now, read });
    return read;
  }

  async function categoryAttributes(call: ListingsCall, categoryId: string): Promise<CategoryAttribute[] | null> {
    return (await taxonomyRead(call, categoryId))?.attributes ?? null;
  }

  async function taxonomyOf(call: ListingsCall) {
    const now = deps.clock.nowMs();
    if (!taxonomy || now - taxonomy.readAt > TAXONOMY_TTL_MS) {
      taxonomy = { readAt: now, nodes: await get(call, '/seller-taxonomy/nodes', parseTaxonomy) };
    }
    return taxonomy.nodes;
  }

  const shop = (call: ListingsCall) => `/shops/${encodeURIComponent(call.externalId)}`;

  /**
   * Makes a shop prerequisite (createShopShippingProfile, createShopReturnPolicy, createShopReadinessStateDefinition,
   * scope `shops_w`); a return policy or processing profile the shop holds already with the same values is taken.
   */
  async function createForSettings(call: ListingsCall, name: string, input: Readonly<Record<string, unknown>>): Promise<string> {
    const form = shopSetupForm(name, input);
    if (name === 'new_shipping_profile') {
      const made = await send(call, 'POST', `${shop(call)}/shipping-profiles`, parseCreatedShippingProfile, { form });
      return String(made.shipping_profile_id);
    }
    if (name === 'new_return_policy') {
      const made = await send(call, 'POST', `${shop(call)}/policies/return`, orDuplicate(parseCreatedReturnPolicy), { form });
      if (made) return String(made.return_policy_id);
      const deadline = input.accepts_returns || input.accepts_exchanges ? Number(input.return_deadline) : null;
      const held = (await get(call, `${shop(call)}/policies/return`, parseReturnPolicies)).find(
        (p) =>
          p.accepts_returns === input.accepts_returns && p.accepts_exchanges === input.accepts_exchanges && p.return_deadline === deadline,
      );
      if (held) return String(held.return_policy_id);
      throw new PlatformError('unavailable', 'Etsy said the return policy exists, and does not list it');
    }
    if (name === 'new_processing_profile') {
      const path = `${shop(call)}/readiness-state-definitions`;
      const made = await send(call, 'POST', path, orDuplicate(parseCreatedReadinessState), { form });
      if (made) return String(made.readiness_state_id);
      const held = (await get(call, path, parseReadinessStates)).find(
        (r) =>
          r.readiness_state === form.readiness_state &&
          String(r.min_processing_time) === form.min_processing_time &&
          String(r.max_processing_time) === form.max_processing_time &&
          (r.processing_time_unit ?? 'days') === form.processing_time_unit,
      );
      if (held) return String(held.readiness_state_id);
      throw new PlatformError('unavailable', 'Etsy said the processing profile exists, and does not list it');
    }
    throw new PlatformError('misconfigured', `Etsy has no ${name} Storelink makes`);
  }

  return {
    platform: 'etsy',
    liveNeedsStock: true,
    createForSettings,

    async listingOptions(call) {
      const [profiles, policies, readiness] = await Promise.all([
        get(call, `${shop(call)}/shipping-profiles`, parseShippingProfiles),
        get(call, `${shop(call)}/policies/return`, parseReturnPolicies),
        get(call, `${shop(call)}/readiness-state-definitions`, parseReadinessStates),
      ]);
      return {
        shipping_profile_id: profiles.map((p) => ({
          value: String(p.shipping_profile_id),
          label: p.title || `Profile ${p.shipping_profile_id}`,
        })),
        return_policy_id: policies.map((p) => ({ value: String(p.return_policy_id), label: returnPolicyLabel(p) })),
        readiness_state_id: readiness.map((r) => ({ value: String(r.readiness_state_id), label: readinessLabel(r) })),
        who_made: ETSY_WHO_MADE.map((value) => ({ value, label: WHO_MADE_LABELS[value] })),
        when_made: ETSY_WHEN_MADE.map((value) => ({ value, label: whenMadeLabel(value) })),
        // Where the shop is (connecting read it): what a new shipping profile ships from, unless the seller says otherwise.
        ...(typeof call.data.country === 'string'
          ? { origin_country_iso: [{ value: call.data.country, label: countryName(call.data.country) }] }
          : {}),
      };
    },

    async categories(call, { q, parentId }) {
      const nodes = await taxonomyOf(call);
      const text = q?.trim().toLowerCase();
      const found = text
        ? nodes.filter((node) => node.name.toLowerCase().includes(text))
        : nodes.filter((node) => node.parentId === parentId);
      return found.slice(0, SEARCH_RESULTS_MAX).map(({ id, name, path, leaf }) => ({ id, name, path, leaf }));
    },

    async category(call, categoryId) {
      const found = (await taxonomyOf(call)).find((node) => node.id === categoryId);
      return found ? { id: found.id, name: found.name, path: found.path, leaf: found.leaf } : null;
    },

    categoryAttributes,

    check: (draft) => checkEtsyDraft(draft),

    // Etsy has no dry run (listings.md §5): Storelink's own checks are all there is before the draft is created.
    validate: async () => [],

    async deliver(call, draft, progress, save) {
      const created = await ensureCreated(call, draft, progress, save);
      await deliverFields(call, draft, progress);
      await deliverProperties(call, draft, progress);
      await deliverImages(call, draft, progress, save);
      await deliverInventory(call, draft, progress);
      // A draft stays a draft through its fields, properties, images and inventory: no need to read it back.
      return created && platformListing(created);
    },

    async setActive(call, progress, active) {
      const form = { state: active ? 'active' : 'inactive' };
      return platformListing(await send(call, 'PATCH', `${shop(call)}/listings/${progress.externalId}`, parseListing, { form }));
    },

    async remove(call, progress) {
      if (progress.externalId) await send(call, 'DELETE', `/listings/${progress.externalId}`, parseDeleted);
    },

    async read(call, progress) {
      if (!progress.externalId) return null;
      const listing = await get(call, `/listings/${progress.externalId}`, parseListingOrGone);
      return listing && platformListing(listing);
    },

    async readExisting(call, progress) {
      if (!progress.externalId) return null;
      const listing = await get(call, `/listings/${progress.externalId}?includes=Images,Inventory`, parseListingOrGone);
      return listing && existingListing(listing);
    },

    reconcile(progress, existing) {
      // Images by Etsy's ids: one the seller removed on Etsy is no longer ours there, so a delivery uploads it again.
      const held = new Set(Object.values(existing.progress.images));
      const images = Object.fromEntries(Object.entries(progress.images).filter(([, id]) => held.has(id)));
      const sameImages = Object.keys(images).length === Object.keys(progress.images).length;
      return {
        ...progress,
        images,
        delivered: {
          ...progress.delivered,
          fields: existing.progress.delivered.fields!,
          inventory: existing.progress.delivered.inventory!,
          ...(sameImages ? {} : { images: '' }),
        },
      };
    },

    async existing(call, cursor) {
      const page = await get(call, `${shop(call)}${existingPath(cursor)}`, parseListingList);
      return { listings: page.results.map(existingListing), next: nextCursor(cursor, page.count, page.results.length) };
    },

    changes: {
      everySeconds: ETSY_CHANGES_EVERY_SECONDS,
      // getListingsByShop lists one state a call (listings.md §1.2): the live listings, then the ones switched off.
      feeds: ['active', 'inactive'],
      async changedSince(call, feed, since) {
        const changed: ChangedListing[] = [];
        for (let page = 0; page < CHANGES_PAGES_MAX; page++) {
          const query = `state=${feed}&sort_on=updated&sort_order=desc&limit=${CHANGES_PAGE_SIZE}&offset=${page * CHANGES_PAGE_SIZE}`;
          const answer = await get(call, `${shop(call)}/listings?${query}`, parseListingList);
          let older = false;
          for (const listing of answer.results) {
            const updatedAt = new Date((listing.updated_timestamp ?? listing.created_timestamp ?? 0) * 1000);
            if (updatedAt < since) older = true;
            else changed.push({ externalId: String(listing.listing_id), updatedAt });
          }
          // A page all of whose listings changed since may hide more: the next page is read, up to a few.
          if (older || answer.results.length < CHANGES_PAGE_SIZE) break;
        }
        return changed;
      },
    },
  } satisfies ListingsAdapter;
}
