/**
 * Amazon's selling partner id comes from the browser's redirect, which no SP-API call confirms: a callback naming an
 * account already connected here must bring that account's store, or it would put another account's tokens under that
 * site (docs/decisions.md, "Amazon seller identity"). Pure: no I/O.
 */
import type { ConnectedAccount, PlatformAccount } from '../contracts/connect.js';

/** Why `account` may not be stored under `connected`: a store name other than the one the site was connected with. */
export function storeMismatch(connected: ConnectedAccount, account: PlatformAccount): string | null {
  const before = connected.data.store_name;
  if (typeof before !== 'string' || before === '' || before === account.data.store_name) return null;
  return `This authorization is for a different Amazon store than the site "${connected.name}" (${connected.externalId}). Sign in to Seller Central with that account and connect again.`;
}
