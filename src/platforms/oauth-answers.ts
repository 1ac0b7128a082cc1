/** The RFC 6749 answers of a token endpoint, as Etsy and Login with Amazon both send them (platforms.md §0). */
import Type from 'typebox';

/**
 * A successful token answer (RFC 6749 §5.1): only the fields read are described, so `token_type`, `scope` and whatever
 * else comes along pass. `expires_in` is only RECOMMENDED and `refresh_token` OPTIONAL in the RFC.
 */
export const OAuthTokenAnswer = Type.Object({
  access_token: Type.String({ minLength: 1 }),
  expires_in: Type.Optional(Type.Number()),
  refresh_token: Type.Optional(Type.String()),
});

/**
 * An error answer (RFC 6749 §5.2). `error` is required by the RFC but optional here: a 4xx is a refusal whatever its
 * body says, and the fields only choose the message shown.
 */
export const OAuthErrorAnswer = Type.Object({
  error: Type.Optional(Type.String()),
  error_description: Type.Optional(Type.String()),
});
