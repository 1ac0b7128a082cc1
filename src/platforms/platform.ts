/** What platform adapters implement, by capability, so core never needs to know which platform it talks to. */
import type { AdvertisingProfile, SitePlatform, Track } from '../domain/index.js';

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

/** The platform account a seller track connected: the site's external id and display name. */
export interface PlatformAccount {
  externalId: string;
  name: string;
}

/**
 * Why a platform call failed: `rejected` when the platform refused the code or credentials (its message is shown to
 * the user), `unavailable` when it could not be reached, timed out or answered with something unreadable.
 */
export type PlatformFailure = 'rejected' | 'unavailable';

export class PlatformError extends Error {
  constructor(
    readonly reason: PlatformFailure,
    message: string,
  ) {
    super(message);
    this.name = 'PlatformError';
  }
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
  buildAuthorizationUrl(input: {
    state: string;
    redirectUri: string;
    codeChallenge: string | null;
    authorizationUrl: string | null;
  }): string;
  readCallback(query: Readonly<Record<string, string | undefined>>): CallbackResult;
  exchangeCode(input: {
    code: string;
    redirectUri: string;
    codeVerifier: string | null;
    params: Readonly<Record<string, string>>;
  }): Promise<TokenSet>;
  refreshToken(refreshToken: string): Promise<TokenSet>;
}

/** Connects a seller account, which becomes a site: the account is looked up once the tokens are in hand. */
export interface SellerConnectAdapter extends ConnectAdapterBase {
  readonly kind: 'seller';
  readonly platform: SitePlatform;
  fetchAccount(tokens: TokenSet, params: Readonly<Record<string, string>>): Promise<PlatformAccount>;
}

/** Connects advertising to an existing seller site: the grant's profiles are looked up once the tokens are in hand. */
export interface AdvertisingConnectAdapter extends ConnectAdapterBase {
  readonly kind: 'advertising';
  fetchProfiles(tokens: TokenSet): Promise<AdvertisingProfile[]>;
}

/** The connect capability of one track: every track has it, and `kind` says which of the two it is. */
export type ConnectAdapter = SellerConnectAdapter | AdvertisingConnectAdapter;

/**
 * The listings capability, implemented from the listings issue on. It has no members yet, on purpose: its methods come
 * with the first platform that implements them rather than being guessed ahead of it. Until then any object fits it.
 */
// biome-ignore lint/suspicious/noEmptyInterface: an interface, not `{}`, so the listings issue extends it in place.
export interface ListingsAdapter {}
