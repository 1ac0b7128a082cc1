/**
 * One Sponsored Products entity as the v3 API serves it (`POST|PUT /sp/<entities>`, `/list`, `/delete`): its path,
 * vendor media type, body keys and list filters, and its own rules for a new item and for a change. What is the same
 * for all four (batches, 207 answers, archiving, lists) is sp-api.ts's.
 */
import type { AdsCaller } from './guard.js';
import type { SpBounds } from './sp-bounds.js';
import { type EntityType, entityNotFound, entityState } from './sp-errors.js';
import type { Fields } from './sp-fields.js';
import type { AdGroup, AdsStore, Campaign, Change, Entity, EntityKind, EntityOf } from './sp-store.js';

/** What an item's rules may read: the store, the calling profile and its marketplace's bounds. */
export interface SpScope {
  store: AdsStore;
  caller: AdsCaller;
  bounds: SpBounds;
  currency: string;
}

/** A field of an entity that a list filter (`campaignIdFilter: {include: [...]}`) matches. */
export type FilterField = 'id' | 'campaignId' | 'adGroupId' | 'state' | 'name';

export interface SpResource<K extends EntityKind = EntityKind> {
  kind: K;
  entityType: EntityType;
  path: string;
  media: string;
  /** The list's key in bodies and answers (`campaigns`). */
  key: string;
  /** The id's name (`campaignId`). */
  idField: string;
  /** The entity's key in a success item with `Prefer: return=representation` (`campaign`). */
  one: string;
  /** The name calls are counted under (`sp-campaigns`). */
  endpoint: string;
  /** The filter `/delete` takes its ids from (`campaignIdFilter`). */
  idFilter: string;
  filters: Readonly<Record<string, FilterField>>;
  /** The new entity, stored; undefined when the item's fields had problems (in `fields.errors`). */
  create(fields: Fields, scope: SpScope): Entity | undefined;
  /** What an update item changes on an entity that is neither archived nor under an archived parent. */
  changes(fields: Fields, entity: EntityOf<K>, scope: SpScope): Change;
}

/**
 * The campaign (and ad group) a new item names: they exist in the profile (`entityNotFoundError`, also for an ad group
 * of another campaign) and are not archived (`entityStateError`). Undefined once a problem was recorded.
 */
export function parentsOf(fields: Fields, scope: SpScope, withAdGroup: boolean): { campaign: Campaign; adGroup?: AdGroup } | undefined {
  const campaignId = fields.id('campaignId');
  const adGroupId = withAdGroup ? fields.id('adGroupId') : undefined;
  if (campaignId === undefined || (withAdGroup && adGroupId === undefined)) return undefined;
  const { store, caller } = scope;
  const campaign = store.find('campaign', caller.profileId, campaignId);
  if (!campaign)
    return void fields.fail(entityNotFound({ location: fields.at('campaignId'), trigger: campaignId }, 'CAMPAIGN', campaignId));
  const adGroup = adGroupId === undefined ? undefined : store.find('adGroup', caller.profileId, adGroupId);
  if (adGroupId !== undefined && adGroup?.campaignId !== campaignId)
    return void fields.fail(entityNotFound({ location: fields.at('adGroupId'), trigger: adGroupId }, 'AD_GROUP', adGroupId));
  const archived = [campaign, adGroup].find((parent) => parent?.state === 'ARCHIVED');
  if (archived)
    return void fields.fail(
      entityState(
        { location: fields.at(archived.kind === 'campaign' ? 'campaignId' : 'adGroupId'), trigger: archived.id },
        'PARENT_ENTITY_FORBIDS_CREATION',
        `The ${archived.kind === 'campaign' ? 'campaign' : 'ad group'} is archived`,
      ),
    );
  return { campaign, ...(adGroup ? { adGroup } : {}) };
}
