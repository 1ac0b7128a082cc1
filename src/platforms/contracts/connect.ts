/** The connect capability (DESIGN §4): build the authorization URL, read the redirect back, exchange and refresh tokens. */
import type { AdvertisingProfile, AmazonRegion, SitePlatform, Track } from '../../domain/index.js';

/** Tokens as the service keeps them, whatever shape the platform sent them in. */
export interface TokenSet {
  accessToken: string;
  refreshToken: string | null;
  accessExpiresAt: Date | null;
  refreshExpiresAt: Date | null;
}

/** What the platform's redirect back says, read from its own query parameters. */
export type CallbackResult =
  | { kind: 'code'; code: string; params: Readonly<Record<string, string>> }
  | { kind: 'denied'; message: string }
  | { kind: 'error'; message: string };

/**
 * A platform account a seller track connected, which becomes a site: its external id, display name, and what later
 * calls need to know of it that is not secret (TikTok Shop's shop cipher, Amazon's marketplaces and store name).
 */
export interface PlatformAccount {
  externalId: string;
  name: string;
  data: Readonly<Record<string, unknown>>;
  /** What the account sells in (ISO 4217), where the platform says it per account (DESIGN §15); null otherwise (Amazon). */
  currency: string | null;
  /** An id the same account was stored under before (TikTok Shop sites were keyed by their cipher until 2026-11). */
  formerExternalId?: string;
}

/** A site already connected to a platform account, as a connection that names the same account finds it. */
export interface ConnectedAccount {
  readonly externalId: string;
  readonly name: string;
  /** What connecting stored about the account (PlatformAccount's `data`). */
  readonly data: Readonly<Record<string, unknown>>;
}

/** What a grant was made for beyond its tokens: Amazon's region (null on the other platforms). */
export interface GrantScope {
  region: AmazonRegion | null;
}

/**
 * The connect capability, shared by both kinds of track: build the authorization URL, read the redirect back, and
 * exchange and refresh tokens.
 */
interface ConnectAdapterBase {
  readonly track: Track;
  readonly platformId: 1 | 4 | 5;
  /** True for platforms that take PKCE (S256) on the authorization request. */
  readonly usesPkce: boolean;
  /** Whether the track has regions (Amazon): its connections pick one, and every later call goes to that region's hosts. */
  readonly regional: boolean;
  /**
   * The OAuth scopes every connection asks for, and the subset Storelink's features need (a site granted fewer says
   * which are missing); null for platforms whose scopes are set on the app, not per request.
   */
  readonly scopes: { readonly requested: readonly string[]; readonly needed: readonly string[] } | null;
  buildAuthorizationUrl(input: {
    state: string;
    redirectUri: string;
    codeChallenge: string | null;
    authorizationUrl: string | null;
    grant: GrantScope;
  }): string;
  /**
   * Whether a caller's `authorization_url` may be the page the seller authorizes on (TikTok Shop's authorization links
   * from Partner Center); present only on a track that takes one (seed §4: platform 4). Asked of URLs that passed the
   * seed's redirect URL rules; `buildAuthorizationUrl` gets only a URL it accepted.
   */
  acceptsAuthorizationUrl?(url: string): boolean;
  readCallback(query: Readonly<Record<string, string | undefined>>): CallbackResult;
  exchangeCode(input: {
    code: string;
    redirectUri: string;
    codeVerifier: string | null;
    params: Readonly<Record<string, string>>;
    grant: GrantScope;
  }): Promise<TokenSet>;
  refreshToken(refreshToken: string, grant: GrantScope): Promise<TokenSet>;
}

/**
 * Connects seller accounts, each of which becomes a site: the accounts are looked up once the tokens are in hand. One
 * authorization may cover several (a TikTok Shop seller authorizes every shop at once); there is always at least one.
 */
export interface SellerConnectAdapter extends ConnectAdapterBase {
  readonly kind: 'seller';
  readonly platform: SitePlatform;
  fetchAccounts(tokens: TokenSet, params: Readonly<Record<string, string>>, grant: GrantScope): Promise<PlatformAccount[]>;
  /**
   * Why `account` may not be stored under `connected`, the site already connected under its id, where that id comes
   * from the browser's redirect and no call confirms it (Amazon's selling partner id): a message for the user (the
   * connection is refused, the site keeps its credentials), or null when it may. Absent where the platform's own
   * calls confirm whose account it is.
   */
  accountMismatch?(connected: ConnectedAccount, account: PlatformAccount): string | null;
}

/** Connects advertising to an existing seller site: the grant's profiles, in its region, are looked up once the tokens are in hand. */
export interface AdvertisingConnectAdapter extends ConnectAdapterBase {
  readonly kind: 'advertising';
  fetchProfiles(tokens: TokenSet, grant: GrantScope): Promise<AdvertisingProfile[]>;
}

/** The connect capability of one track: every track has it, and `kind` says which of the two it is. */
export type ConnectAdapter = SellerConnectAdapter | AdvertisingConnectAdapter;
