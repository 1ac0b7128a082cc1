/**
 * Sponsored Products v3 (listings.md §4) on the sandbox Amazon Ads, the same for its four entities (sp-resource.ts):
 * `POST /sp/<entities>` creates, `PUT` changes, `POST …/delete` archives (archived is final), each a batch of at most
 * 1000 items answered 207 Multi-Status item by item (`{<entities>: {success: [{<id>, index, <entity>?}], error: [{index,
 * errors}]}}`, the entity with `Prefer: return=representation`); `POST …/list` answers 200 with the entities its
 * filters select, `totalResults` and, when `maxResults` cut the list, `nextToken`.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AdsAccess, AdsCaller, AdsGuard } from './guard.js';
import { AD_GROUPS } from './sp-ad-groups.js';
import { SP_BOUNDS } from './sp-bounds.js';
import { CAMPAIGNS } from './sp-campaigns.js';
import { adsError, entityLabel, entityNotFound, entityState, type ItemError } from './sp-errors.js';
import { fieldsOf, type Item } from './sp-fields.js';
import { KEYWORDS } from './sp-keywords.js';
import { PRODUCT_ADS } from './sp-product-ads.js';
import type { FilterField, SpResource, SpScope } from './sp-resource.js';
import { type AdsStore, type Entity, present } from './sp-store.js';

const ITEMS_MAX = 1000;
const LIST_MAX = 5000;
const RESOURCES: readonly SpResource[] = [CAMPAIGNS, AD_GROUPS, PRODUCT_ADS, KEYWORDS] as readonly SpResource[];

type Outcome = { index: number; entity: Entity } | { index: number; errors: ItemError[] };

export function registerSponsoredProducts(app: FastifyInstance, guard: AdsGuard, store: AdsStore) {
  for (const resource of RESOURCES) registerResource(app, guard, store, resource);
}

function registerResource(app: FastifyInstance, guard: AdsGuard, store: AdsStore, resource: SpResource) {
  const access: AdsAccess = { endpoint: resource.endpoint, fault: 'advertising', contentType: resource.media, accept: [resource.media] };
  const scopeOf = (caller: AdsCaller): SpScope => ({
    store,
    caller,
    bounds: SP_BOUNDS[caller.profile.currencyCode]!,
    currency: caller.profile.currencyCode,
  });
  /** A batch route: the items of the body (or a 400), each one's outcome, the 207. */
  const batch =
    (itemsOf: (body: Item) => unknown[] | string, work: (item: unknown, index: number, scope: SpScope) => Outcome) =>
    async (request: FastifyRequest, reply: FastifyReply) => {
      const caller = await guard.admit(request, reply, access);
      if (!caller) return reply;
      const items = itemsOf(bodyOf(request));
      if (typeof items === 'string') return reply.code(400).send(adsError('INVALID_ARGUMENT', items));
      const scope = scopeOf(caller);
      const outcomes = items.map((item, index) => work(item, index, scope));
      return guard.answer(reply, 'advertising', 207, multiStatus(resource, outcomes, wantsRepresentation(request)));
    };

  app.post(
    resource.path,
    batch(
      (body) => listIn(body[resource.key], resource.key),
      (item, index, scope) => createItem(resource, item, index, scope),
    ),
  );
  app.put(
    resource.path,
    batch(
      (body) => listIn(body[resource.key], resource.key),
      (item, index, scope) => updateItem(resource, item, index, scope),
    ),
  );
  app.post(
    `${resource.path}/delete`,
    batch(
      (body) => listIn((body[resource.idFilter] as Item | undefined)?.include, `${resource.idFilter}.include`),
      (id, index, scope) => archiveItem(resource, id, index, scope),
    ),
  );
  app.post(`${resource.path}/list`, async (request, reply) => {
    const caller = await guard.admit(request, reply, access);
    if (!caller) return reply;
    const listed = listEntities(resource, bodyOf(request), store.all(resource.kind, caller.profileId));
    if (typeof listed === 'string') return reply.code(400).send(adsError('INVALID_ARGUMENT', listed));
    return guard.answer(reply, 'advertising', 200, listed);
  });
}

const bodyOf = (request: FastifyRequest): Item =>
  typeof request.body === 'object' && request.body !== null && !Array.isArray(request.body) ? (request.body as Item) : {};

/** The batch's list: 1 to 1000 entries, or why the whole request is refused. */
function listIn(value: unknown, name: string): unknown[] | string {
  if (!Array.isArray(value) || value.length === 0) return `${name} must be a list of 1 to ${ITEMS_MAX} entries`;
  if (value.length > ITEMS_MAX) return `${name} has ${value.length} entries; at most ${ITEMS_MAX} are allowed in one request`;
  return value;
}

const wantsRepresentation = (request: FastifyRequest) => /return=representation/i.test(String(request.headers.prefer ?? ''));

function multiStatus(resource: SpResource, outcomes: Outcome[], representation: boolean) {
  const success = outcomes.flatMap((outcome) =>
    'entity' in outcome
      ? [
          {
            [resource.idField]: outcome.entity.id,
            index: outcome.index,
            ...(representation ? { [resource.one]: present(outcome.entity) } : {}),
          },
        ]
      : [],
  );
  const error = outcomes.flatMap((outcome) => ('errors' in outcome ? [{ index: outcome.index, errors: outcome.errors }] : []));
  return { [resource.key]: { success, error } };
}

const asItem = (value: unknown): Item => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Item) : {});

function createItem(resource: SpResource, item: unknown, index: number, scope: SpScope): Outcome {
  const fields = fieldsOf(resource.key, index, asItem(item));
  const entity = resource.create(fields, scope);
  return entity ? { index, entity } : { index, errors: fields.errors };
}

/** Why an entity cannot change: it is archived, or its campaign or ad group is (archived is final). */
function frozen(store: AdsStore, entity: Entity, location: string): ItemError | null {
  const what = entityLabel(entityTypeOf(entity));
  if (entity.state === 'ARCHIVED')
    return entityState(
      { location, trigger: entity.id },
      'ARCHIVED_ENTITY_CANNOT_BE_MODIFIED',
      `${what} ${entity.id} is archived and cannot be modified`,
    );
  const parents = [
    'campaignId' in entity ? store.find('campaign', entity.profileId, entity.campaignId) : undefined,
    'adGroupId' in entity ? store.find('adGroup', entity.profileId, entity.adGroupId) : undefined,
  ];
  if (parents.some((parent) => parent?.state === 'ARCHIVED'))
    return entityState(
      { location, trigger: entity.id },
      'PARENT_ARCHIVED_FORBIDS_UPDATES',
      `${what} ${entity.id} is in an archived campaign or ad group`,
    );
  return null;
}

const entityTypeOf = (entity: Entity) => RESOURCES.find((resource) => resource.kind === entity.kind)!.entityType;

function updateItem(resource: SpResource, item: unknown, index: number, scope: SpScope): Outcome {
  const fields = fieldsOf(resource.key, index, asItem(item));
  const id = fields.id(resource.idField);
  const entity = id === undefined ? undefined : scope.store.find(resource.kind, scope.caller.profileId, id);
  if (id !== undefined && !entity)
    fields.fail(entityNotFound({ location: fields.at(resource.idField), trigger: id }, resource.entityType, id));
  if (!entity) return { index, errors: fields.errors };
  const refusal = frozen(scope.store, entity, fields.at(resource.idField));
  if (refusal) return { index, errors: [refusal] };
  const change = resource.changes(fields, entity, scope);
  if (fields.errors.length > 0) return { index, errors: fields.errors };
  scope.store.change(entity, change);
  return { index, entity };
}

function archiveItem(resource: SpResource, id: unknown, index: number, scope: SpScope): Outcome {
  const location = `$.${resource.idFilter}.include[${index}]`;
  const text = typeof id === 'string' || typeof id === 'number' ? String(id) : '';
  const entity = scope.store.find(resource.kind, scope.caller.profileId, text);
  if (!entity) return { index, errors: [entityNotFound({ location, trigger: text }, resource.entityType, text)] };
  if (entity.state === 'ARCHIVED') return { index, errors: [frozen(scope.store, entity, location)!] };
  scope.store.change(entity, { state: 'ARCHIVED' });
  return { index, entity };
}

/** The `include` values of a filter, as text; null when the filter is absent; a string when it is malformed. */
function includeOf(body: Item, name: string): string[] | null | string {
  const filter = body[name];
  if (filter === undefined) return null;
  const include = asItem(filter).include;
  if (!Array.isArray(include) || include.some((value) => typeof value !== 'string' && typeof value !== 'number'))
    return `${name}.include must be a list of values`;
  return include.map(String);
}

/**
 * Whether an entity passes one filter. `nameFilter` matches names exactly (`EXACT_MATCH`) or by containing the term,
 * whatever the case (`BROAD_MATCH`, ASSUMPTION: the default). States are compared in upper case.
 */
function passes(entity: Entity, field: FilterField, values: string[], body: Item): boolean {
  if (field === 'name') {
    const name = 'name' in entity ? entity.name : '';
    const exact = asItem(body.nameFilter).queryTermMatchType === 'EXACT_MATCH';
    return values.some((value) => (exact ? name === value : name.toLowerCase().includes(value.toLowerCase())));
  }
  if (field === 'state') return values.some((value) => value.toUpperCase() === entity.state);
  const own = field === 'id' ? entity.id : (entity as unknown as Record<string, string>)[field];
  return values.includes(own ?? '');
}

/**
 * The list answer: the entities every filter given selects, oldest first (ASSUMPTION: no state filter means every
 * state, archived included), `maxResults` (1 to 5000) a page at a time with `nextToken`.
 */
function listEntities(resource: SpResource, body: Item, entities: Entity[]) {
  let selected = entities;
  for (const [name, field] of Object.entries(resource.filters)) {
    const values = includeOf(body, name);
    if (typeof values === 'string') return values;
    if (values) selected = selected.filter((entity) => passes(entity, field, values, body));
  }
  const max = body.maxResults ?? LIST_MAX;
  if (!Number.isInteger(max) || (max as number) < 1 || (max as number) > LIST_MAX)
    return `maxResults must be a whole number from 1 to ${LIST_MAX}`;
  const start = body.nextToken === undefined ? 0 : Number(Buffer.from(String(body.nextToken), 'base64url').toString('utf8'));
  if (!Number.isInteger(start) || start < 0 || start > selected.length) return 'nextToken is not one this list answered';
  const end = start + (max as number);
  return {
    [resource.key]: selected.slice(start, end).map(present),
    totalResults: selected.length,
    ...(end < selected.length ? { nextToken: Buffer.from(String(end)).toString('base64url') } : {}),
  };
}
