/**
 * Which TikTok Shop authorization links a caller may hand to POST /authenticate-site as `authorization_url` (DESIGN §4):
 * Partner Center's "Copy authorization link" of the app's service, which the seller opens instead of the link Storelink
 * would build. Pure: no I/O.
 */

/** Where a link may point: the configured hosts over https, and the simulator's page while TikTok Shop runs against the sandbox. */
export interface AuthorizationLinkPolicy {
  /** Hosts a link may be on, over https (`TIKTOK_SHOP_AUTHORIZATION_HOSTS`). */
  readonly hosts: readonly string[];
  /** The simulator's authorize page, taken as it is served (http on the app's own host); null against the real TikTok Shop. */
  readonly simulatorPage: string | null;
}

/** No link at all: what an adapter built without a policy accepts. */
export const NO_AUTHORIZATION_LINKS: AuthorizationLinkPolicy = { hosts: [], simulatorPage: null };

/** Whether the link (one that passed the seed's URL rules) is on an allowed host over https, or is the simulator's own page. */
export function acceptsAuthorizationLink(policy: AuthorizationLinkPolicy, raw: string): boolean {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  if (policy.simulatorPage !== null) {
    // Compared parsed, so `/authorize/../..` or `/authorizeX` cannot pass for the simulator's page.
    const page = new URL(policy.simulatorPage);
    if (url.origin === page.origin && url.pathname === page.pathname) return true;
  }
  return url.protocol === 'https:' && policy.hosts.includes(url.hostname.toLowerCase());
}
