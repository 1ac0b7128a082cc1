/** What every outbound call shares, to platforms and webhook receivers alike (DESIGN §8). */
import type { LookupFunction } from 'node:net';
import type { ResolvedAddress } from './public-address.js';

export type Fetch = typeof globalThis.fetch;

/**
 * An HTTP status that says "not now" rather than "no": server errors and throttling. Such a failure is retried and
 * never taken as the platform refusing a code or a grant.
 */
export function isPassingFailure(status: number): boolean {
  return status >= 500 || status === 429;
}

/**
 * The signal of one outbound call: aborted at its own deadline (a TimeoutError, as AbortSignal.timeout) or when `stop`
 * is (with stop's reason), whichever comes first. This is AbortSignal.any([stop, AbortSignal.timeout(ms)]) by hand:
 * on Node 20 AbortSignal.any keeps every signal it makes referenced from a long-lived source until that source aborts
 * (nodejs/node#55351; still so on Node 20.20: a million calls left a million entries on the source, 40 to 70 MB),
 * whereas this listens on `stop` only until the deadline.
 */
export function deadlineSignal(timeoutMs: number, stop: AbortSignal): AbortSignal {
  const controller = new AbortController();
  const onStop = () => {
    clearTimeout(timer);
    controller.abort(stop.reason);
  };
  const timer = setTimeout(() => {
    stop.removeEventListener('abort', onStop);
    controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
  }, timeoutMs);
  timer.unref();
  if (stop.aborted) onStop();
  else stop.addEventListener('abort', onStop, { once: true });
  return controller.signal;
}

/**
 * POSTs to `url` connecting only to `addresses`, the ones already resolved and checked for its host: the agent's
 * lookup hands them back instead of asking DNS again, so a rebinding answer cannot move the connection. TLS SNI and
 * the Host header stay the URL's name; a redirect is answered as it is, never followed. Returns the status; the body
 * is discarded.
 */
export async function postPinned(
  url: URL,
  init: { addresses: ResolvedAddress[]; headers: Record<string, string>; body: string; signal: AbortSignal },
): Promise<number> {
  // Loaded at the first delivery, not at start: undici's modules cost a server that sends no webhook 20 MB of memory.
  const { Agent, fetch: undiciFetch } = await import('undici');
  // One agent per call: no pooled connection outlives the addresses checked for it.
  const agent = new Agent({ connect: { lookup: pinnedLookup(init.addresses) } });
  try {
    const response = await undiciFetch(url, {
      method: 'POST',
      headers: init.headers,
      body: init.body,
      redirect: 'manual',
      signal: init.signal,
      dispatcher: agent,
    });
    await response.body?.cancel();
    return response.status;
  } finally {
    await agent.destroy();
  }
}

/** A `lookup` for net/tls.connect that answers `addresses` (of the family asked for, if one is) and never resolves. */
function pinnedLookup(addresses: ResolvedAddress[]): LookupFunction {
  return (hostname, options, callback) => {
    const family = options.family === 4 || options.family === 'IPv4' ? 4 : options.family === 6 || options.family === 'IPv6' ? 6 : 0;
    const usable = family === 0 ? addresses : addresses.filter((a) => a.family === family);
    const [first] = usable;
    if (!first) return callback(Object.assign(new Error(`no checked IPv${family} address for ${hostname}`), { code: 'ENOTFOUND' }), '');
    if (options.all) callback(null, usable);
    else callback(null, first.address, first.family);
  };
}
