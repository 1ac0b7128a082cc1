/**
 * Which addresses an outbound call may reach when private targets are refused (DESIGN §8), and the one name resolution
 * a call is checked on and then connects with. Ranges come from ipaddr.js (IANA's special-purpose registries), not a
 * hand-written list.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Every address a name resolves to. */
export type ResolveHost = (hostname: string) => Promise<ResolvedAddress[]>;

/** As the operating system resolves a name (getaddrinfo: the hosts file, then DNS), every address in its order. */
export const systemResolveHost: ResolveHost = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));

// IANA's global unicast space: every IPv6 address outside it (::/8 with its IPv4-compatible forms such as ::7f00:1,
// NAT64's 64:ff9b::/96 and 64:ff9b:1::/48, fc00::/7, fe80::/10, fec0::/10, ff00::/8 …) is not globally routable.
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');

/**
 * True for a globally routable unicast address; false for loopback, private, link-local, multicast, CGNAT, NAT64,
 * benchmarking, documentation, reserved, broadcast, unspecified, unique- and site-local, and for anything that is not an
 * address. An IPv4-mapped address is judged as the IPv4 address it reaches.
 */
export function isGloballyRoutable(address: string): boolean {
  if (isIP(address) === 0) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) parsed = v6.toIPv4Address();
    else if (!v6.match(GLOBAL_UNICAST_V6)) return false;
  }
  // 'unicast' is ipaddr.js's name for an address in none of its special-purpose ranges.
  return parsed.range() === 'unicast';
}

/** `localhost` and its subdomains are loopback whatever a resolver answers (RFC 6761 §6.3). */
function isLocalhostName(name: string): boolean {
  const bare = name.toLowerCase().replace(/\.$/, '');
  return bare === 'localhost' || bare.endsWith('.localhost');
}

export type Target = { ok: true; addresses: ResolvedAddress[] } | { ok: false; reason: 'not_public' | 'unresolved' };

/**
 * The addresses to connect to for a URL's host (`URL.hostname`, brackets and all): a literal as it is, a name resolved
 * once. Unless `allowPrivate`, every address must be globally routable, so a name answering one public and one private
 * address is refused. A resolution that fails, answers nothing, or outlasts `signal` is 'unresolved'.
 */
export async function resolveTarget(
  hostname: string,
  options: { resolve: ResolveHost; allowPrivate: boolean; signal?: AbortSignal },
): Promise<Target> {
  const host = hostname.replace(/^\[(.*)\]$/, '$1');
  const family = isIP(host);
  if (family === 0 && !options.allowPrivate && isLocalhostName(host)) return { ok: false, reason: 'not_public' };
  let addresses: ResolvedAddress[];
  try {
    addresses =
      family === 0 ? await untilAborted(options.resolve(host), options.signal) : [{ address: host, family: family === 6 ? 6 : 4 }];
  } catch {
    return { ok: false, reason: 'unresolved' };
  }
  if (addresses.length === 0) return { ok: false, reason: 'unresolved' };
  if (!options.allowPrivate && !addresses.every((a) => isGloballyRoutable(a.address))) return { ok: false, reason: 'not_public' };
  return { ok: true, addresses };
}

/** `promise`, or the signal's reason once it aborts (a lookup cannot be cancelled, only no longer waited for). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
