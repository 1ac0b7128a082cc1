/** Connecting a platform: POST /authenticate-site and the platform's redirect back (seed §4, DESIGN §4). */

import * as auditRepo from '../../db/audit.repo.js';
import type { Db } from '../../db/client.js';
import * as sitesRepo from '../../db/sites.repo.js';
import {
  AMAZON_REGIONS,
  type AmazonRegion,
  callbackPath,
  DEFAULT_AMAZON_REGION,
  type GrantKind,
  PLATFORM_NAMES,
  type PlatformId,
  TRACK_TERMS,
  type Track,
  type TrackTerms,
  trackOf,
} from '../../domain/index.js';
import { AppError, type FieldErrors } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import type { CredentialsCipher } from '../../lib/credentials-cipher.js';
import type { ConnectAdapter, PlatformAccount, SellerConnectAdapter, TokenSet } from '../../platforms/contracts/connect.js';
import { PlatformError } from '../../platforms/contracts/errors.js';
import type { Adapters } from '../../platforms/registry.js';
import { sealTokens } from '../sites/credentials.js';
import type { PlatformHealth } from '../sites/platform-health.js';
import type { RefreshPolicy } from '../sites/refresh-policy.js';
import type { TokenRefresh } from '../sites/token-refresh.js';
import { type Outbox, siteEventData } from '../webhooks/outbox.js';
import type { ConsumedState, OAuthStates } from './oauth-states.js';
import {
  type CallbackOutcome,
  expiredStateOutcome,
  type Failure,
  failureOutcome,
  invalidStateOutcome,
  successOutcome,
} from './outcomes.js';
import {
  isValidRedirectUrl,
  MAX_REDIRECT_URL_LENGTH,
  parseCustomFieldValue,
  REDIRECT_URL_LENGTH_MESSAGE,
  REDIRECT_URL_MESSAGE,
  redirectUrlProblem,
} from './redirects.js';

export interface AuthenticateSiteInput {
  platform_id: PlatformId;
  redirect_url?: string;
  authorization_url?: string;
  custom_field_value?: string;
  site_id?: number;
  region?: string;
}

export type ConnectService = ReturnType<typeof createConnectService>;

type Fail = (field: string, message: string) => void;

/** The caller's redirect and its tracking pairs, read from the field the track takes them in (seed §1, §4). */
function callerRedirect(terms: TrackTerms, input: AuthenticateSiteInput, fail: Fail) {
  const none = { redirectUrl: '', tracking: {} as Record<string, string> };
  if (terms.redirectField === 'custom_field_value') {
    const raw = input.custom_field_value;
    if (raw === undefined || raw === '') return none;
    const parsed = parseCustomFieldValue(raw);
    if (parsed) return { redirectUrl: parsed.url, tracking: parsed.tracking };
    if ((raw.split(';')[0] ?? '').length > MAX_REDIRECT_URL_LENGTH)
      fail('custom_field_value', `The URL of the custom field value ${REDIRECT_URL_LENGTH_MESSAGE}`);
    else
      fail(
        'custom_field_value',
        `The custom field value ${REDIRECT_URL_MESSAGE.replace('must be', 'must start with')} Tracking pairs after it are ;key=value with a non-empty key.`,
      );
    return none;
  }
  const raw = input.redirect_url;
  if (raw === undefined || raw === '') return none;
  if (isValidRedirectUrl(raw)) return { redirectUrl: raw, tracking: {} };
  fail('redirect_url', `The redirect url ${redirectUrlProblem(raw)}`);
  return none;
}

/**
 * A caller's `authorization_url`: only for a track whose adapter takes one, and only a URL that passes the seed's URL
 * rules and then the platform's own (its hosts). Not judged while the track is not configured (platform_id says so).
 */
function checkAuthorizationUrl(adapter: ConnectAdapter | null, terms: TrackTerms, url: string | undefined, fail: Fail): void {
  if (url === undefined || !adapter) return;
  if (!adapter.acceptsAuthorizationUrl) fail('authorization_url', 'The authorization url field is only allowed with platform 4.');
  else if (!isValidRedirectUrl(url) || !adapter.acceptsAuthorizationUrl(url))
    fail('authorization_url', `The authorization url must be an https URL on an allowed ${terms.name} authorization host.`);
}

/** What a user is told when the platform refused this server's own app: nothing they can fix by trying again now. */
const MISCONFIGURED_MESSAGE = "This platform refused Storelink's app configuration. The operator has been told; please try again later.";

export function createConnectService(deps: {
  db: Db;
  clock: Clock;
  cipher: CredentialsCipher;
  states: OAuthStates;
  adapters: Adapters;
  /** Schedules the first refresh of newly connected credentials. */
  refreshPolicy: RefreshPolicy;
  /** Queues the first renewal of new credentials, in the transaction that stores them. */
  refresh: Pick<TokenRefresh, 'schedule'>;
  /** Queues again, in the same transaction, the listing work a site's lost connection held. */
  listings: { siteConnected(tx: Db, siteId: number): Promise<void> };
  /** Advertising connected again: the advertising work it held is sent again. */
  advertising?: { siteConnected(tx: Db, siteId: number): Promise<void> };
  /** Told when a seller grant is stored: the site's orders count from its first connection, and are read at once. */
  orders?: { siteConnected(tx: Db, siteId: number): Promise<void> };
  outbox: Outbox;
  health: PlatformHealth;
  appUrl: string;
  apiUrl: string;
  onInternalError: (error: unknown) => void;
}) {
  const { db, clock, cipher, states, adapters } = deps;
  const callbackUrl = (track: Track) => `${deps.apiUrl}${callbackPath(track)}`;

  /** A new state and the platform's authorization URL for it. */
  async function authorizationUrl(
    adapter: ConnectAdapter,
    input: {
      userId: number;
      workspaceId: number;
      tokenJti: string | null;
      siteId: number | null;
      redirectUrl: string;
      tracking: Record<string, string>;
      authorizationUrl: string | null;
      region: AmazonRegion | null;
    },
  ) {
    const { state, codeChallenge } = await states.create({
      track: adapter.track,
      platformId: adapter.platformId,
      usesPkce: adapter.usesPkce,
      ...input,
    });
    return adapter.buildAuthorizationUrl({
      state,
      redirectUri: callbackUrl(adapter.track),
      codeChallenge,
      authorizationUrl: input.authorizationUrl,
      grant: { region: input.region },
    });
  }

  /** Validates every field at once (422 with all problems), then answers with the authorization URL. */
  async function startAuthorization(
    actor: { userId: number; workspaceId: number; tokenJti: string },
    input: AuthenticateSiteInput,
  ): Promise<{ url: string }> {
    const errors: FieldErrors = {};
    const fail = (field: string, message: string) => void (errors[field] ??= []).push(message);
    const platformId = input.platform_id;
    const track = trackOf(platformId, input.site_id !== undefined);
    const terms = TRACK_TERMS[track];
    const adapter = adapters[track];
    // An advertising track is named: its platform may be configured for selling without it.
    if (!adapter)
      fail(
        'platform_id',
        terms.attachesTo ? `${terms.name} is not configured on this server.` : 'The selected platform is not configured on this server.',
      );
    const { redirectUrl, tracking } = callerRedirect(terms, input, fail);
    checkAuthorizationUrl(adapter, terms, input.authorization_url, fail);
    let sellerSiteRegion: AmazonRegion | null = null;
    if (input.site_id !== undefined) {
      const seller = terms.attachesTo;
      if (!seller) fail('site_id', 'The site id field is only allowed with platform 5.');
      else {
        const site = await sitesRepo.findSite(db, actor.workspaceId, input.site_id);
        if (!site || site.platform !== seller || site.status !== 'connected')
          fail(
            'site_id',
            `The selected site id is invalid: it must be a connected ${PLATFORM_NAMES[seller]} seller site of this workspace.`,
          );
        else sellerSiteRegion = site.region;
      }
    }
    // The region of a track that has them (Amazon's); none elsewhere. Advertising defaults to the seller site's own region.
    let region: AmazonRegion | null = null;
    if (adapter?.regional) {
      if (input.region === undefined) region = sellerSiteRegion ?? DEFAULT_AMAZON_REGION;
      else if ((AMAZON_REGIONS as readonly string[]).includes(input.region)) region = input.region as AmazonRegion;
      else fail('region', `The region must be one of ${AMAZON_REGIONS.join(', ')}.`);
    }
    if (Object.keys(errors).length > 0 || !adapter) throw new AppError('validation_failed', { fields: errors });

    const url = await authorizationUrl(adapter, {
      userId: actor.userId,
      workspaceId: actor.workspaceId,
      tokenJti: actor.tokenJti,
      siteId: input.site_id ?? null,
      redirectUrl,
      tracking,
      authorizationUrl: adapter.acceptsAuthorizationUrl ? (input.authorization_url ?? null) : null,
      region,
    });
    return { url };
  }

  /** The seller site an advertising state was made for, still connected; checked again inside the write transaction. */
  async function connectedSellerSite(db: Db, state: ConsumedState) {
    const site = await sitesRepo.findSite(db, state.workspaceId, state.siteId ?? 0);
    if (!site || site.platform !== TRACK_TERMS[state.track].attachesTo || site.status !== 'connected')
      throw new PlatformError('rejected', 'The seller site is no longer connected');
    return site;
  }

  /** Stores a grant's new tokens and queues their first renewal, in the caller's transaction. */
  async function storeGrant(tx: Db, siteId: number, grant: GrantKind, tokens: TokenSet, now: Date) {
    const sealed = sealTokens(cipher, siteId, grant, tokens, now, deps.refreshPolicy);
    const version = await sitesRepo.saveCredentials(tx, siteId, grant, sealed, now);
    await deps.refresh.schedule(tx, { siteId, grant, version }, sealed.nextRefreshAt);
    if (grant === 'seller') {
      await deps.listings.siteConnected(tx, siteId);
      await deps.orders?.siteConnected(tx, siteId);
    } else await deps.advertising?.siteConnected(tx, siteId);
  }

  /**
   * Refuses an account the platform cannot confirm is the one already connected under its id (Amazon's selling partner
   * id comes from the browser's redirect: docs/decisions.md, "Amazon seller identity"), as the adapter judges it.
   */
  function checkSameAccount(adapter: SellerConnectAdapter, existing: sitesRepo.AccountSite | null, account: PlatformAccount): void {
    if (existing === null || !adapter.accountMismatch) return;
    const mismatch = adapter.accountMismatch(
      { externalId: existing.externalId, name: existing.name, data: existing.platformData },
      account,
    );
    if (mismatch !== null) throw new PlatformError('rejected', mismatch);
  }

  /**
   * Exchanges the code, looks up the accounts, and stores each as a site with its credentials in one transaction;
   * returns the first site's id (an authorization covering several TikTok shops connects each of them).
   */
  async function connect(
    adapter: ConnectAdapter,
    state: ConsumedState,
    code: string,
    params: Readonly<Record<string, string>>,
    ipAddress: string | null,
  ): Promise<number> {
    // A site is named in the log by its account's name.
    const audit = (action: auditRepo.AuditEntry['action'], site: { id: number; name: string }) => ({
      action,
      actorUserId: state.userId,
      subjectType: 'site' as const,
      subjectId: site.id,
      ipAddress,
      details: { name: site.name, platform: adapter.track },
    });
    const grant = { region: state.region };
    // No platform call for a seller site that was disconnected while the user was away.
    if (adapter.kind === 'advertising') await connectedSellerSite(db, state);
    const tokens = await adapter.exchangeCode({
      code,
      redirectUri: callbackUrl(adapter.track),
      codeVerifier: state.codeVerifier,
      params,
      grant,
    });
    if (adapter.kind === 'seller') {
      const accounts = await adapter.fetchAccounts(tokens, params, grant);
      return db.transaction(async (tx) => {
        const now = clock.now();
        const siteIds: number[] = [];
        for (const account of accounts) {
          const key = { workspaceId: state.workspaceId, platform: adapter.platform, region: state.region };
          const existing = await sitesRepo.findAccountSite(tx, {
            ...key,
            externalId: account.externalId,
            formerExternalId: account.formerExternalId,
          });
          checkSameAccount(adapter, existing, account);
          const site = await sitesRepo.upsertSite(tx, {
            ...key,
            siteId: existing?.id ?? null,
            platformId: adapter.platformId,
            name: account.name,
            externalId: account.externalId,
            // Tracking pairs come with a custom_field_value; a track that takes none keeps none.
            tracking: TRACK_TERMS[adapter.track].redirectField === 'custom_field_value' ? state.tracking : null,
            grantedScopes: adapter.scopes ? [...adapter.scopes.requested] : null,
            platformData: account.data,
            currency: account.currency,
            now,
          });
          await deps.outbox.emit(
            tx,
            state.workspaceId,
            existing?.status === 'reauthorization_required' ? 'site.recovered' : 'site.connected',
            siteEventData(site),
            now,
          );
          await storeGrant(tx, site.id, 'seller', tokens, now);
          await auditRepo.recordAudit(tx, [state.workspaceId], audit(existing ? 'site.reconnected' : 'site.connected', site), now);
          siteIds.push(site.id);
        }
        return siteIds[0]!;
      });
    }
    const profiles = await adapter.fetchProfiles(tokens, grant);
    return db.transaction(async (tx) => {
      const now = clock.now();
      const site = await connectedSellerSite(tx, state);
      await storeGrant(tx, site.id, 'advertising', tokens, now);
      await sitesRepo.setAdvertisingProfiles(tx, site.id, profiles, state.region, now);
      await deps.outbox.emit(tx, state.workspaceId, 'advertising.connected', { ...siteEventData(site), profiles }, now);
      await auditRepo.recordAudit(tx, [state.workspaceId], audit('advertising.connected', site), now);
      return site.id;
    });
  }

  /** The platform's redirect back: verify and consume the state, then connect, and say where the user goes. */
  async function completeCallback(
    track: Track,
    query: Readonly<Record<string, string | undefined>>,
    ipAddress: string | null = null,
  ): Promise<CallbackOutcome> {
    const check = await states.consume(query.state, track);
    if (!check.ok)
      return check.reason === 'expired' ? expiredStateOutcome(deps.appUrl, check.redirectUrl) : invalidStateOutcome(deps.appUrl);
    const { state } = check;
    const adapter = adapters[track];
    let failure: Failure;
    if (!adapter) {
      failure = { reason: 'internal', message: 'This platform is no longer configured' };
    } else {
      const result = adapter.readCallback(query);
      if (result.kind === 'denied') failure = { reason: 'denied', message: result.message };
      else if (result.kind === 'error') failure = { reason: 'rejected', message: result.message };
      else {
        try {
          const siteId = await connect(adapter, state, result.code, result.params, ipAddress);
          deps.health.succeeded(track);
          return successOutcome(track, state, siteId, deps.appUrl);
        } catch (error) {
          if (error instanceof PlatformError) {
            const { reason, message } = error;
            // The operator's to fix: logged and shown on GET /health; the user is told it is not theirs.
            if (reason === 'misconfigured') deps.health.misconfigured(track, message);
            failure = reason === 'misconfigured' ? { reason: 'internal', message: MISCONFIGURED_MESSAGE } : { reason, message };
          } else {
            deps.onInternalError(error);
            failure = { reason: 'internal', message: 'Something went wrong while connecting. Please try again.' };
          }
        }
      }
    }
    // A failed connection of a track that retries (advertising) offers a fresh authorization for the same site instead
    // of an error redirect, on behalf of the same token (revoking it cancels this one too); none while the workspace has
    // too many in progress.
    const retryUrl =
      TRACK_TERMS[track].callback.retry && adapter
        ? await authorizationUrl(adapter, {
            userId: state.userId,
            workspaceId: state.workspaceId,
            tokenJti: state.tokenJti,
            siteId: state.siteId,
            redirectUrl: state.redirectUrl,
            tracking: {},
            authorizationUrl: null,
            region: state.region,
          }).catch((error: unknown) => {
            if (error instanceof AppError && error.code === 'rate_limited') return null;
            throw error;
          })
        : null;
    return failureOutcome(track, state, failure, deps.appUrl, retryUrl);
  }

  return { startAuthorization, completeCallback, callbackUrl };
}
