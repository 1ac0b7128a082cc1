/**
 * The site's rules on what is listed (DESIGN §10): the price adjusted by the site's percentage and rounded to the cent,
 * and the quantity less the site's stock buffer. Money stays exact: cents as BigInt, never a float.
 */

/** `price` (a decimal string of at most two decimals) raised or lowered by `percent` (to 0.01 %), rounded half up to the cent. */
export function listedPrice(price: string, percent: number): string {
  const [whole, fraction = ''] = price.split('.');
  const cents = BigInt(whole!) * 100n + BigInt(fraction.padEnd(2, '0'));
  // The percentage in hundredths of a percent: 12.5 % is 1,250 of 10,000.
  const factor = 10_000n + BigInt(Math.round(percent * 100));
  const adjusted = (cents * factor + 5_000n) / 10_000n;
  return `${adjusted / 100n}.${String(adjusted % 100n).padStart(2, '0')}`;
}

/** The quantity offered: the stock less the buffer kept back, never below 0. */
export function listedQuantity(quantity: number, stockBuffer: number): number {
  return Math.max(0, quantity - stockBuffer);
}
