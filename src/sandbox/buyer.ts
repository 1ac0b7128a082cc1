/** What every simulator's sandbox-only endpoints read alike: the account of a path, and a buyer's order lines. */
import type { FastifyReply } from 'fastify';

/** A sandbox account number from a path, or null once a 400 is answered. */
export function accountOf(reply: FastifyReply, account: string): number | null {
  if (/^[0-9]{1,6}$/.test(account) && Number(account) !== 0) return Number(account);
  void reply.code(400).send({ error: 'account must be a sandbox account number' });
  return null;
}

/**
 * A buyer's order lines (`[{sku, quantity}]`, 1 to 50 of them) within the platform's own bounds: the longest sku it
 * takes and the most units a line may buy; null when the body is anything else.
 */
export function readOrderLines(
  value: unknown,
  limits: { skuMax: number; quantityMax: number },
): { sku: string; quantity: number }[] | null {
  if (!Array.isArray(value) || value.length === 0 || value.length > 50) return null;
  const sku = new RegExp(`^[A-Za-z0-9._-]{1,${limits.skuMax}}$`);
  const lines = value.map((line) => line as { sku?: unknown; quantity?: unknown });
  const valid = lines.every(
    (line) =>
      typeof line.sku === 'string' &&
      sku.test(line.sku) &&
      Number.isInteger(line.quantity) &&
      (line.quantity as number) >= 1 &&
      (line.quantity as number) <= limits.quantityMax,
  );
  return valid ? (lines as { sku: string; quantity: number }[]) : null;
}
