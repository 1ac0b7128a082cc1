/**
 * Sponsored Products campaigns (listings.md §4): `{name, targetingType, state, budget: {budgetType: 'DAILY', budget},
 * startDate?}`. The name is unique among the profile's campaigns that are not archived (an archived campaign keeps its
 * name, and a new one may take it); the daily budget is within the marketplace's bounds (sp-bounds.ts).
 */
import { duplicateValue } from './sp-errors.js';
import type { Fields } from './sp-fields.js';
import type { SpResource, SpScope } from './sp-resource.js';
import type { Change, SpState, TargetingType } from './sp-store.js';

// ASSUMPTION: 128 characters, as the brief of this simulator and Amazon's campaign manager say (the v3 model states none).
const NAME_MAX = 128;
export const SETTABLE_STATES: readonly SpState[] = ['ENABLED', 'PAUSED'];
const TARGETING: readonly TargetingType[] = ['AUTO', 'MANUAL'];

function budgetOf(fields: Fields, scope: SpScope, required: boolean): number | undefined {
  if (!required && !fields.has('budget')) return undefined;
  fields.choice('budget.budgetType', ['DAILY']);
  return fields.amount('budget.budget', scope.bounds.budget, { required: true, what: 'The daily budget', currency: scope.currency });
}

/** A name no other live campaign of the profile has. */
function uniqueName(fields: Fields, scope: SpScope, name: string | undefined): void {
  if (name === undefined) return;
  const taken = scope.store
    .all('campaign', scope.caller.profileId)
    .some((campaign) => campaign.state !== 'ARCHIVED' && campaign.name === name);
  if (taken)
    fields.fail(
      duplicateValue({ location: fields.at('name'), trigger: name }, 'NAME_NOT_UNIQUE', 'A campaign with this name already exists'),
    );
}

export const CAMPAIGNS: SpResource<'campaign'> = {
  kind: 'campaign',
  entityType: 'CAMPAIGN',
  path: '/sp/campaigns',
  media: 'application/vnd.spCampaign.v3+json',
  key: 'campaigns',
  idField: 'campaignId',
  one: 'campaign',
  endpoint: 'sp-campaigns',
  idFilter: 'campaignIdFilter',
  filters: { campaignIdFilter: 'id', stateFilter: 'state', nameFilter: 'name' },

  create(fields, scope) {
    const name = fields.text('name', { required: true, max: NAME_MAX });
    uniqueName(fields, scope, name);
    const targetingType = fields.choice('targetingType', TARGETING);
    const state = fields.choice('state', SETTABLE_STATES);
    const budget = budgetOf(fields, scope, true);
    // ASSUMPTION: a startDate left out is today in UTC (Amazon: today in the profile's time zone).
    const startDate = fields.date('startDate') ?? new Date(scope.store.now()).toISOString().slice(0, 10);
    if (fields.errors.length > 0) return undefined;
    return scope.store.add<'campaign'>({
      kind: 'campaign',
      profileId: scope.caller.profileId,
      name: name!,
      targetingType: targetingType!,
      state: state!,
      budget: budget!,
      startDate,
    });
  },

  changes(fields, campaign, scope): Change {
    const state = fields.choice('state', SETTABLE_STATES, false);
    const budget = budgetOf(fields, scope, false);
    const name = fields.text('name', { required: false, max: NAME_MAX });
    if (name !== undefined && name !== campaign.name) uniqueName(fields, scope, name);
    return { ...(state ? { state } : {}), ...(budget === undefined ? {} : { budget }), ...(name === undefined ? {} : { name }) };
  },
};
