/**
 * What every Etsy v3 call of the simulator checks, shared by the connect routes (simulator.ts) and the listing routes:
 * the `x-api-key: keystring:shared_secret` header and the `Authorization: Bearer <user_id>.<token>` it issued
 * (platforms.md §1.5).
 */
import type { FastifyReply } from 'fastify';
import { SANDBOX_CLIENTS, type SandboxContext } from '../context.js';

export const CLIENT = SANDBOX_CLIENTS.etsy;

/** Etsy's observed 403 bodies for a key without its shared secret, and for any other wrong key (platforms.md §1.5). */
export const NO_SHARED_SECRET = { error: 'Shared secret is required in x-api-key header.' };
export const INVALID_API_KEY = { error: "Invalid API key: should be in the format 'keystring:shared_secret'." };

export const userIdOf = (account: number) => 70_000_000 + account;
export const shopIdOf = (account: number) => 80_000_000 + account;

/** What a grant carries from the consent page to every token issued for it: the account, its scopes, whether it has a shop. */
export interface Grant {
  account: number;
  scopes: string;
  noShop: boolean;
}

export const grantOf = (claims: Record<string, unknown>): Grant => ({
  account: Number(claims.a),
  scopes: String(claims.sc ?? ''),
  noShop: claims.ns === true,
});

/** True when the grant carries the scope. */
export const hasScope = (grant: Grant, scope: string) => grant.scopes.split(' ').includes(scope);

/** The refusal of an `x-api-key` header, or null when it is `keystring:shared_secret`. */
export function apiKeyRefusal(header: unknown): { error: string } | null {
  if (header === `${CLIENT.clientId}:${CLIENT.sharedSecret}`) return null;
  return header === CLIENT.clientId ? NO_SHARED_SECRET : INVALID_API_KEY;
}

/** Answers Etsy's 403 and returns false unless the request carries the app's `keystring:shared_secret`. */
export function hasApiKey(request: { headers: Record<string, unknown> }, reply: FastifyReply): boolean {
  const refusal = apiKeyRefusal(request.headers['x-api-key']);
  if (refusal) void reply.code(403).send(refusal);
  return refusal === null;
}

/** The grant behind a request's bearer `<user_id>.<token>`; null once a 401 was answered. */
export function bearerGrant(context: SandboxContext, headers: Record<string, unknown>, reply: FastifyReply): Grant | null {
  const bearer = /^Bearer (\d+)\.(.+)$/.exec(String(headers.authorization ?? ''));
  const access = bearer ? context.tokens.read('etsy-access', bearer[2]!, context.clock.now()) : null;
  if (!access || Number(bearer![1]) !== userIdOf(Number(access.a))) {
    void reply.code(401).send({ error: 'invalid_token', error_description: 'access token is expired' });
    return null;
  }
  return grantOf(access);
}
