/** What every platform track implements, so the connect flow never needs to know which platform it talks to. */
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

interface AdapterBase {
  readonly track: Track;
  readonly platformId: 1 | 4 | 5;
  /** True for platforms that take PKCE (S256) on the authorization request. */
  readonly usesPkce: boolean;
  /** True when this adapter talks to the built-in sandbox simulator rather than the real platform. */
  readonly sandbox: boolean;
  buildAuthorizationUrl(input: { state: string; redirectUri: string; codeChallenge: string | null; authorizationUrl: string | null }): string;
  readCallback(query: Readonly<Record<string, string | undefined>>): CallbackResult;
  exchangeCode(input: { code: string; redirectUri: string; codeVerifier: string | null; params: Readonly<Record<string, string>> }): Promise<TokenSet>;
  refreshToken(refreshToken: string): Promise<TokenSet>;
}

export interface SellerAdapter extends AdapterBase {
  readonly kind: 'seller';
  readonly platform: SitePlatform;
  fetchAccount(tokens: TokenSet, params: Readonly<Record<string, string>>): Promise<PlatformAccount>;
}

export interface AdvertisingAdapter extends AdapterBase {
  readonly kind: 'advertising';
  fetchProfiles(tokens: TokenSet): Promise<AdvertisingProfile[]>;
}

export type PlatformAdapter = SellerAdapter | AdvertisingAdapter;
