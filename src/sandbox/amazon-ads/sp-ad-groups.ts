/**
 * Sponsored Products ad groups (listings.md §4): `{campaignId, name, defaultBid, state}` in a campaign of the profile
 * that is not archived, the default bid within the marketplace's bounds (sp-bounds.ts), the name unique among the
 * campaign's live ad groups (ASSUMPTION: as the campaign manager refuses a repeated name).
 */
import { SETTABLE_STATES } from './sp-campaigns.js';
import { duplicateValue } from './sp-errors.js';
import type { Fields } from './sp-fields.js';
import { parentsOf, type SpResource, type SpScope } from './sp-resource.js';
import type { AdGroup } from './sp-store.js';

// ASSUMPTION: the campaign manager's 255 characters.
const NAME_MAX = 255;

const defaultBidOf = (fields: Fields, scope: SpScope, required: boolean) =>
  fields.amount('defaultBid', scope.bounds.bid, { required, what: 'The default bid', currency: scope.currency });

function uniqueName(fields: Fields, scope: SpScope, campaignId: string, name: string | undefined, self?: AdGroup): void {
  if (name === undefined) return;
  const taken = scope.store
    .all('adGroup', scope.caller.profileId)
    .some((group) => group !== self && group.campaignId === campaignId && group.state !== 'ARCHIVED' && group.name === name);
  if (taken)
    fields.fail(
      duplicateValue(
        { location: fields.at('name'), trigger: name },
        'NAME_NOT_UNIQUE',
        'An ad group with this name already exists in the campaign',
      ),
    );
}

export const AD_GROUPS: SpResource<'adGroup'> = {
  kind: 'adGroup',
  entityType: 'AD_GROUP',
  path: '/sp/adGroups',
  media: 'application/vnd.spAdGroup.v3+json',
  key: 'adGroups',
  idField: 'adGroupId',
  one: 'adGroup',
  endpoint: 'sp-ad-groups',
  idFilter: 'adGroupIdFilter',
  filters: { campaignIdFilter: 'campaignId', adGroupIdFilter: 'id', stateFilter: 'state', nameFilter: 'name' },

  create(fields, scope) {
    const parents = parentsOf(fields, scope, false);
    const name = fields.text('name', { required: true, max: NAME_MAX });
    if (parents) uniqueName(fields, scope, parents.campaign.id, name);
    const defaultBid = defaultBidOf(fields, scope, true);
    const state = fields.choice('state', SETTABLE_STATES);
    if (fields.errors.length > 0 || !parents) return undefined;
    return scope.store.add<'adGroup'>({
      kind: 'adGroup',
      profileId: scope.caller.profileId,
      campaignId: parents.campaign.id,
      name: name!,
      defaultBid: defaultBid!,
      state: state!,
    });
  },

  changes(fields, adGroup, scope) {
    const state = fields.choice('state', SETTABLE_STATES, false);
    const defaultBid = defaultBidOf(fields, scope, false);
    const name = fields.text('name', { required: false, max: NAME_MAX });
    uniqueName(fields, scope, adGroup.campaignId, name, adGroup);
    return { ...(state ? { state } : {}), ...(defaultBid === undefined ? {} : { defaultBid }), ...(name === undefined ? {} : { name }) };
  },
};
