/**
 * JWTs built by hand for negative tests. Each starts from a real token the app issued and changes one property, so a
 * refusal can only be about that property; `resign` with no change is the control that proves the forging is right.
 */
import { createHmac, type KeyObject } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair, type JWTPayload, SignJWT } from 'jose';
import { deriveSigningKey } from '../../src/core/auth/keys.js';
import { TEST_APP_SECRET } from './test-app.js';

/** The key the test app signs with, derived from its secret exactly as src/core/keys.ts does. */
export const APP_KEY = deriveSigningKey(TEST_APP_SECRET);

type Header = Record<string, unknown>;

const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
const HMAC_HASH: Record<string, string> = { HS256: 'sha256', HS384: 'sha384', HS512: 'sha512' };

/**
 * header.payload with an HMAC signature: the hash the header's `alg` names for HS*, else SHA-256, so a token can claim
 * an algorithm it was not signed with. A key of `undefined` in the header or claims leaves it out.
 */
export function hmacSigned(header: Header, claims: JWTPayload, key: KeyObject | string = APP_KEY.key): string {
  const input = `${encode(header)}.${encode(claims)}`;
  const hash = HMAC_HASH[String(header.alg)] ?? 'sha256';
  return `${input}.${createHmac(hash, key).update(input).digest('base64url')}`;
}

/** A real token's header and claims with changes, signed again (with the app's key unless told otherwise). */
export function resign(token: string, change: { header?: Header; claims?: JWTPayload; key?: KeyObject | string } = {}): string {
  return hmacSigned({ ...decodeProtectedHeader(token), ...change.header }, { ...decodeJwt(token), ...change.claims }, change.key);
}

/** The same header and claims with `alg: none` and an empty signature. */
export function unsigned(token: string): string {
  return `${encode({ ...decodeProtectedHeader(token), alg: 'none' })}.${encode(decodeJwt(token))}.`;
}

/** Other claims under the original header and signature: what an attacker who cannot sign would try. */
export function tampered(token: string, claims: JWTPayload): string {
  const [header, , signature] = token.split('.');
  return `${header}.${encode({ ...decodeJwt(token), ...claims })}.${signature}`;
}

/**
 * The same token under algorithms other than HS256, each a known confusion: HS384/HS512 with the right key, an HMAC
 * under an asymmetric label, a public value (the kid) used as the HMAC secret, and the attacker's own key pair,
 * alone or embedded as a `jwk` header for a verifier that would trust it.
 */
export async function algorithmConfusions(token: string): Promise<Array<[string, string]>> {
  const header = decodeProtectedHeader(token);
  const claims = decodeJwt(token);
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const ec = await generateKeyPair('ES256');
  const asymmetric = (alg: string, key: Parameters<SignJWT['sign']>[0], extra: Header = {}) =>
    new SignJWT(claims).setProtectedHeader({ ...header, alg, ...extra }).sign(key);
  return [
    ['HS384 with the right key', resign(token, { header: { alg: 'HS384' } })],
    ['HS512 with the right key', resign(token, { header: { alg: 'HS512' } })],
    ['an HMAC-SHA256 signature labelled RS256', resign(token, { header: { alg: 'RS256' } })],
    ['an HMAC-SHA256 signature labelled ES256', resign(token, { header: { alg: 'ES256' } })],
    ['HS256 keyed with the public kid', resign(token, { key: String(header.kid) })],
    ["RS256 with the attacker's key under the app's kid", await asymmetric('RS256', privateKey)],
    ["ES256 with the attacker's key under the app's kid", await asymmetric('ES256', ec.privateKey)],
    ["RS256 with the attacker's public key embedded as jwk", await asymmetric('RS256', privateKey, { jwk: await exportJWK(publicKey) })],
  ];
}
