/** Connecting a platform: POST /authenticate-site and the platform's redirect back (seed §4, DESIGN §4). */

import * as auditRepo from '../../db/audit.repo.js';
import type { Db } from '../../db/client.js';
import * as sitesRepo from '../../db/sites.repo.js';
import { callbackPath, type GrantKind, type PlatformId, type Track, trackOf } from '../../domain/index.js';
import { AppError, type FieldErrors } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import type { CredentialsCipher } from '../../lib/credentials-cipher.js';
import { type ConnectAdapter, PlatformError, type TokenSet } from '../../platforms/platform.js';
import type { Adapters } from '../../platforms/registry.js';
import { sealTokens } from '../sites/credentials.js';
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
import { isValidRedirectUrl, parseCustomFieldValue, REDIRECT_URL_MESSAGE } from './redirects.js';

export interface AuthenticateSiteInput {
  platform_id: PlatformId;
  redirect_url?: string;
  authorization_url?: string;
  custom_field_value?: string;
  site_id?: number;
}

export type ConnectService = ReturnType<typeof createConnectService>;

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
  outbox: Outbox;
  appUrl: string;
  apiUrl: string;
  /** Whether a caller's TikTok Shop authorization_url may be used: https on an allowed host, or the sandbox's own page. */
  isAllowedTikTokUrl: (url: string) => boolean;
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
      siteId: number | null;
      redirectUrl: string;
      tracking: Record<string, string>;
      authorizationUrl: string | null;
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
    });
  }

  /** Validates every field at once (422 with all problems), then answers with the authorization URL. */
  async function startAuthorization(
    actor: { userId: number; workspaceId: number },
    input: AuthenticateSiteInput,
  ): Promise<{ url: string }> {
    const errors: FieldErrors = {};
    const fail = (field: string, message: string) => void (errors[field] ??= []).push(message);
    const platformId = input.platform_id;
    const track = trackOf(platformId, input.site_id !== undefined);
    const adapter = adapters[track];
    if (!adapter)
      fail(
        'platform_id',
        track === 'amazon-ads' ? 'Amazon Ads is not configured on this server.' : 'The selected platform is not configured on this server.',
      );

    let redirectUrl = '';
    let tracking: Record<string, string> = {};
    if (platformId === 4) {
      if (input.custom_field_value !== undefined && input.custom_field_value !== '') {
        const parsed = parseCustomFieldValue(input.custom_field_value);
        if (parsed) ({ url: redirectUrl, tracking } = parsed);
        else
          fail(
            'custom_field_value',
            `The custom field value ${REDIRECT_URL_MESSAGE.replace('must be', 'must start with')} Tracking pairs after it are ;key=value with a non-empty key.`,
          );
      }
      if (input.authorization_url !== undefined && !deps.isAllowedTikTokUrl(input.authorization_url)) {
        fail('authorization_url', 'The authorization url must be an https URL on an allowed TikTok Shop authorization host.');
      }
    } else {
      if (input.redirect_url !== undefined && input.redirect_url !== '') {
        if (isValidRedirectUrl(input.redirect_url)) redirectUrl = input.redirect_url;
        else fail('redirect_url', `The redirect url ${REDIRECT_URL_MESSAGE}`);
      }
      if (input.authorization_url !== undefined) fail('authorization_url', 'The authorization url field is only allowed with platform 4.');
    }
    if (input.site_id !== undefined) {
      if (platformId !== 5) fail('site_id', 'The site id field is only allowed with platform 5.');
      else {
        const site = await sitesRepo.findSite(db, actor.workspaceId, input.site_id);
        if (!site || site.platform !== 'amazon-seller' || site.status !== 'connected')
          fail('site_id', 'The selected site id is invalid: it must be a connected Amazon seller site of this workspace.');
      }
    }
    if (Object.keys(errors).length > 0 || !adapter) throw new AppError('validation_failed', { fields: errors });

    const url = await authorizationUrl(adapter, {
      userId: actor.userId,
      workspaceId: actor.workspaceId,
      siteId: input.site_id ?? null,
      redirectUrl,
      tracking,
      authorizationUrl: platformId === 4 ? (input.authorization_url ?? null) : null,
    });
    return { url };
  }

  /** The Amazon seller site an advertising state was made for, still connected; checked again inside the write transaction. */
  async function connectedSellerSite(db: Db, state: ConsumedState) {
    const site = await sitesRepo.findSite(db, state.workspaceId, state.siteId ?? 0);
    if (!site || site.platform !== 'amazon-seller' || site.status !== 'connected')
      throw new PlatformError('rejected', 'The seller site is no longer connected');
    return site;
  }

  /** Stores a grant's new tokens and queues their first renewal, in the caller's transaction. */
  async function storeGrant(tx: Db, siteId: number, grant: GrantKind, tokens: TokenSet, now: Date) {
    const sealed = sealTokens(cipher, siteId, grant, tokens, now, deps.refreshPolicy);
    const version = await sitesRepo.saveCredentials(tx, siteId, grant, sealed, now);
    await deps.refresh.schedule(tx, { siteId, grant, version }, sealed.nextRefreshAt);
  }

  /** Exchanges the code, looks up the account, and stores site and credentials in one transaction; returns the site id. */
  async function connect(
    adapter: ConnectAdapter,
    state: ConsumedState,
    code: string,
    params: Readonly<Record<string, string>>,
    ipAddress: string | null,
  ): Promise<number> {
    const audit = (action: auditRepo.AuditEntry['action'], siteId: number) => ({
      action,
      actorUserId: state.userId,
      subjectType: 'site' as const,
      subjectId: siteId,
      ipAddress,
      details: { platform: adapter.track },
    });
    // No platform call for a seller site that was disconnected while the user was away.
    if (adapter.kind === 'advertising') await connectedSellerSite(db, state);
    const tokens = await adapter.exchangeCode({ code, redirectUri: callbackUrl(adapter.track), codeVerifier: state.codeVerifier, params });
    if (adapter.kind === 'seller') {
      const account = await adapter.fetchAccount(tokens, params);
      return db.transaction(async (tx) => {
        const now = clock.now();
        const before = await sitesRepo.siteStatusOfAccount(tx, {
          workspaceId: state.workspaceId,
          platform: adapter.platform,
          externalId: account.externalId,
        });
        const site = await sitesRepo.upsertSite(tx, {
          workspaceId: state.workspaceId,
          platformId: adapter.platformId,
          platform: adapter.platform,
          name: account.name,
          externalId: account.externalId,
          tracking: adapter.track === 'tiktok-shop' ? state.tracking : null,
          now,
        });
        await deps.outbox.emit(
          tx,
          state.workspaceId,
          before === 'reauthorization_required' ? 'site.recovered' : 'site.connected',
          siteEventData(site),
          now,
        );
        await storeGrant(tx, site.id, 'seller', tokens, now);
        await auditRepo.recordAudit(tx, [state.workspaceId], audit(site.inserted ? 'site.connected' : 'site.reconnected', site.id), now);
        return site.id;
      });
    }
    const profiles = await adapter.fetchProfiles(tokens);
    return db.transaction(async (tx) => {
      const now = clock.now();
      const site = await connectedSellerSite(tx, state);
      await storeGrant(tx, site.id, 'advertising', tokens, now);
      await sitesRepo.setAdvertisingProfiles(tx, site.id, profiles, now);
      await deps.outbox.emit(tx, state.workspaceId, 'advertising.connected', { ...siteEventData(site), profiles }, now);
      await auditRepo.recordAudit(tx, [state.workspaceId], audit('advertising.connected', site.id), now);
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
          return successOutcome(track, state, siteId, deps.appUrl);
        } catch (error) {
          if (error instanceof PlatformError) failure = { reason: error.reason, message: error.message };
          else {
            deps.onInternalError(error);
            failure = { reason: 'internal', message: 'Something went wrong while connecting. Please try again.' };
          }
        }
      }
    }
    // A failed advertising connection offers a fresh authorization for the same site instead of an error redirect.
    const retryUrl =
      track === 'amazon-ads' && adapter
        ? await authorizationUrl(adapter, {
            userId: state.userId,
            workspaceId: state.workspaceId,
            siteId: state.siteId,
            redirectUrl: state.redirectUrl,
            tracking: {},
            authorizationUrl: null,
          })
        : null;
    return failureOutcome(track, state, failure, deps.appUrl, retryUrl);
  }

  return { startAuthorization, completeCallback, callbackUrl };
}
