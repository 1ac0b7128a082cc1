/**
 * Sponsored Products keywords (listings.md §4): `{campaignId, adGroupId, keywordText, matchType, bid?, state}`, in MANUAL
 * campaigns only (an AUTO campaign targets by itself). The text is at most 10 words and 80 characters (Amazon's
 * documented keyword limits; the sandbox counts words split on spaces); the bid, when given, within the marketplace's
 * bounds, and absent means the ad group's default bid. The same text and match type twice in an ad group is refused.
 */
import { SETTABLE_STATES } from './sp-campaigns.js';
import { duplicateValue, entityState, malformedValue } from './sp-errors.js';
import type { Fields } from './sp-fields.js';
import { parentsOf, type SpResource, type SpScope } from './sp-resource.js';
import type { MatchType } from './sp-store.js';

const TEXT_MAX = 80;
const WORDS_MAX = 10;
const MATCH_TYPES: readonly MatchType[] = ['EXACT', 'PHRASE', 'BROAD'];

const bidOf = (fields: Fields, scope: SpScope) =>
  fields.amount('bid', scope.bounds.bid, { required: false, what: 'The keyword bid', currency: scope.currency });

function keywordTextOf(fields: Fields): string | undefined {
  const text = fields.text('keywordText', { required: true, max: TEXT_MAX });
  if (text !== undefined && text.trim().split(/\s+/).length > WORDS_MAX) {
    fields.fail(
      malformedValue({ location: fields.at('keywordText'), trigger: text }, 'TOO_LONG', `keywordText must be at most ${WORDS_MAX} words`),
    );
    return undefined;
  }
  return text;
}

export const KEYWORDS: SpResource<'keyword'> = {
  kind: 'keyword',
  entityType: 'KEYWORD',
  path: '/sp/keywords',
  media: 'application/vnd.spKeyword.v3+json',
  key: 'keywords',
  idField: 'keywordId',
  one: 'keyword',
  endpoint: 'sp-keywords',
  idFilter: 'keywordIdFilter',
  filters: { campaignIdFilter: 'campaignId', adGroupIdFilter: 'adGroupId', keywordIdFilter: 'id', stateFilter: 'state' },

  create(fields, scope) {
    const parents = parentsOf(fields, scope, true);
    // ASSUMPTION: the error type and wording of a keyword in an automatic campaign.
    if (parents?.campaign.targetingType === 'AUTO')
      fields.fail(
        entityState(
          { location: fields.at('campaignId'), trigger: parents.campaign.id },
          'PARENT_ENTITY_FORBIDS_CREATION',
          'Keywords can only be added to MANUAL campaigns',
        ),
      );
    const keywordText = keywordTextOf(fields);
    const matchType = fields.choice('matchType', MATCH_TYPES);
    const bid = bidOf(fields, scope);
    const state = fields.choice('state', SETTABLE_STATES);
    const adGroup = parents?.adGroup;
    const repeated = scope.store
      .all('keyword', scope.caller.profileId)
      .some((k) => k.adGroupId === adGroup?.id && k.state !== 'ARCHIVED' && k.keywordText === keywordText && k.matchType === matchType);
    if (repeated)
      fields.fail(
        duplicateValue(
          { location: fields.at('keywordText'), trigger: keywordText },
          'DUPLICATE_VALUE',
          'The keyword is already in the ad group with this match type',
        ),
      );
    if (fields.errors.length > 0 || !adGroup) return undefined;
    return scope.store.add<'keyword'>({
      kind: 'keyword',
      profileId: scope.caller.profileId,
      campaignId: adGroup.campaignId,
      adGroupId: adGroup.id,
      keywordText: keywordText!,
      matchType: matchType!,
      ...(bid === undefined ? {} : { bid }),
      state: state!,
    });
  },

  changes(fields, _keyword, scope) {
    const state = fields.choice('state', SETTABLE_STATES, false);
    const bid = bidOf(fields, scope);
    return { ...(state ? { state } : {}), ...(bid === undefined ? {} : { bid }) };
  },
};
