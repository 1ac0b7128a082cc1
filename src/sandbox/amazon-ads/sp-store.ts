/**
 * What the sandbox Amazon Ads holds of Sponsored Products (listings.md §4), in memory per running sandbox and shared by
 * the three regions' simulators (profile ids are unique across regions): campaigns, ad groups, product ads and
 * keywords, each in one profile. Every entity keeps the history of its state (and the campaign's budget, the ad
 * group's default bid), so a report can tell which days it served and at what bounds.
 */
import type { SandboxContext } from '../context.js';
import { refill, registerStatePart } from '../state.js';

export type SpState = 'ENABLED' | 'PAUSED' | 'ARCHIVED';
export type TargetingType = 'AUTO' | 'MANUAL';
export type MatchType = 'EXACT' | 'PHRASE' | 'BROAD';

/** One step of an entity's life: from `at` on, its state, budget or default bid were these. */
export interface Version {
  at: number;
  state: SpState;
  budget?: number;
  defaultBid?: number;
}

interface Base {
  id: string;
  profileId: string;
  state: SpState;
  createdAt: number;
  updatedAt: number;
  history: Version[];
}
export interface Campaign extends Base {
  kind: 'campaign';
  name: string;
  targetingType: TargetingType;
  budget: number;
  startDate: string;
}
export interface AdGroup extends Base {
  kind: 'adGroup';
  campaignId: string;
  name: string;
  defaultBid: number;
}
export interface ProductAd extends Base {
  kind: 'productAd';
  campaignId: string;
  adGroupId: string;
  sku: string;
  asin: string;
}
export interface Keyword extends Base {
  kind: 'keyword';
  campaignId: string;
  adGroupId: string;
  keywordText: string;
  matchType: MatchType;
  /** Absent: the ad group's default bid applies. */
  bid?: number;
}
export type Entity = Campaign | AdGroup | ProductAd | Keyword;
export type EntityKind = Entity['kind'];
export type EntityOf<K extends EntityKind> = Extract<Entity, { kind: K }>;
type NewEntity<K extends EntityKind> = Omit<EntityOf<K>, 'id' | 'createdAt' | 'updatedAt' | 'history'>;

/** What a change may set. */
export interface Change {
  state?: SpState;
  name?: string;
  budget?: number;
  defaultBid?: number;
  bid?: number;
}

// Ids are numeric strings of 15 digits, as Amazon's are, below 2^53 so a report's numbers carry them exactly.
const ID_BASE = 300_000_000_000_000;

export type AdsStore = ReturnType<typeof createAdsStore>;

function createAdsStore(context: SandboxContext) {
  const entities = new Map<string, Entity>();
  let issued = 0;
  const now = () => context.clock.nowMs();
  registerStatePart(context.stateParts, 'amazon-ads:entities', {
    save: () => ({ entities, issued }),
    load: (state) => {
      const saved = state as { entities: typeof entities; issued: number };
      refill(entities, saved.entities);
      issued = saved.issued;
    },
  });

  const versionOf = (entity: Entity): Version => ({
    at: now(),
    state: entity.state,
    ...(entity.kind === 'campaign' ? { budget: entity.budget } : {}),
    ...(entity.kind === 'adGroup' ? { defaultBid: entity.defaultBid } : {}),
  });

  return {
    now,
    /** The entity of that kind and id in the profile; another profile's is not found, as on Amazon. */
    find<K extends EntityKind>(kind: K, profileId: string, id: string): EntityOf<K> | undefined {
      const entity = entities.get(id);
      return entity?.kind === kind && entity.profileId === profileId ? (entity as EntityOf<K>) : undefined;
    },
    /** Every entity of that kind in the profile, oldest first. */
    all<K extends EntityKind>(kind: K, profileId: string): EntityOf<K>[] {
      return [...entities.values()].filter((entity): entity is EntityOf<K> => entity.kind === kind && entity.profileId === profileId);
    },
    add<K extends EntityKind>(fields: NewEntity<K>): EntityOf<K> {
      const at = now();
      const entity = { ...fields, id: String(ID_BASE + ++issued), createdAt: at, updatedAt: at, history: [] } as unknown as EntityOf<K>;
      entity.history.push(versionOf(entity));
      entities.set(entity.id, entity);
      return entity;
    },
    /** Applies a change; a new version is kept when the state, budget or default bid moved. */
    change(entity: Entity, change: Change): void {
      const last = entity.history.at(-1)!;
      const defined = Object.entries(change).filter(([, value]) => value !== undefined);
      Object.assign(entity, Object.fromEntries(defined), { updatedAt: now() });
      const next = versionOf(entity);
      if (next.state !== last.state || next.budget !== last.budget || next.defaultBid !== last.defaultBid) entity.history.push(next);
    },
  };
}

/** The entities as the v3 API presents them (list answers, `Prefer: return=representation`). */
export function present(entity: Entity): Record<string, unknown> {
  switch (entity.kind) {
    case 'campaign':
      return {
        campaignId: entity.id,
        name: entity.name,
        targetingType: entity.targetingType,
        state: entity.state,
        budget: { budgetType: 'DAILY', budget: entity.budget },
        startDate: entity.startDate,
        dynamicBidding: { strategy: 'LEGACY_FOR_SALES', placementBidding: [] },
      };
    case 'adGroup':
      return { adGroupId: entity.id, campaignId: entity.campaignId, name: entity.name, state: entity.state, defaultBid: entity.defaultBid };
    case 'productAd':
      return {
        adId: entity.id,
        campaignId: entity.campaignId,
        adGroupId: entity.adGroupId,
        sku: entity.sku,
        asin: entity.asin,
        state: entity.state,
      };
    case 'keyword':
      return {
        keywordId: entity.id,
        campaignId: entity.campaignId,
        adGroupId: entity.adGroupId,
        keywordText: entity.keywordText,
        matchType: entity.matchType,
        state: entity.state,
        ...(entity.bid === undefined ? {} : { bid: entity.bid }),
      };
  }
}

/** What a profile holds on the simulated Amazon, as its list calls would answer, oldest first (read-only copies). */
export interface AdsHeld {
  campaigns: Array<{
    campaignId: string;
    name: string;
    targetingType: TargetingType;
    state: SpState;
    budget: { budgetType: 'DAILY'; budget: number };
    startDate: string;
  }>;
  adGroups: Array<{ adGroupId: string; campaignId: string; name: string; state: SpState; defaultBid: number }>;
  productAds: Array<{ adId: string; campaignId: string; adGroupId: string; sku: string; asin: string; state: SpState }>;
  keywords: Array<{
    keywordId: string;
    campaignId: string;
    adGroupId: string;
    keywordText: string;
    matchType: MatchType;
    state: SpState;
    bid?: number;
  }>;
}

/** The profile's entities, for tests and the sandbox's inspection route. */
export function heldBy(store: AdsStore, profileId: string): AdsHeld {
  const presented = (kind: EntityKind) => structuredClone(store.all(kind, profileId).map(present));
  return {
    campaigns: presented('campaign'),
    adGroups: presented('adGroup'),
    productAds: presented('productAd'),
    keywords: presented('keyword'),
  } as unknown as AdsHeld;
}

// One store per running sandbox, found from its context (as the seller simulator's listings are).
const stores = new WeakMap<SandboxContext, AdsStore>();

/** The Sponsored Products entities of a running sandbox. */
export function adsStoreOf(context: SandboxContext): AdsStore {
  let store = stores.get(context);
  if (!store) stores.set(context, (store = createAdsStore(context)));
  return store;
}

/** What the profile holds on the sandbox Amazon Ads: a test asserts "the campaign is PAUSED on Amazon" with it. */
export function adsHeld(context: SandboxContext, profileId: string | number): AdsHeld {
  return heldBy(adsStoreOf(context), String(profileId));
}
