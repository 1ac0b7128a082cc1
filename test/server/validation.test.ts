import assert from 'node:assert/strict';
import { test } from 'node:test';
import Type from 'typebox';
import { toFieldErrors, validatorCompiler } from '../../src/http/validation.js';

const schema = Type.Object({
  email: Type.String({ format: 'email' }),
  platform_id: Type.Union([Type.Literal(1), Type.Literal(4), Type.Literal(5)]),
  name: Type.String({ minLength: 1, maxLength: 3 }),
});

function errorsFor(value: unknown, httpPart = 'body') {
  const validate = validatorCompiler({ schema, httpPart, method: 'POST', url: '/' }) as unknown as ((v: unknown) => boolean) & {
    errors: never[];
  };
  assert.equal(validate(value), false);
  return toFieldErrors(validate.errors, httpPart);
}

test('a body is validated without coercion and reports every field', () => {
  assert.deepEqual(errorsFor({ email: 'nope', platform_id: '1', name: 'long' }), {
    email: ['The email field must be a valid email address.'],
    platform_id: ['The selected platform id is invalid.'],
    name: ['The name field must not be greater than 3 characters.'],
  });
});

test('a missing field is named as required', () => {
  assert.deepEqual(errorsFor({ platform_id: 1, name: 'a' }), { email: ['The email field is required.'] });
});

test('a body that is not an object is reported under body', () => {
  assert.deepEqual(errorsFor([1, 2]), { body: ['The request body must be a JSON object.'] });
});

test('a query string is coerced from text', () => {
  const validate = validatorCompiler({
    schema: Type.Object({ page: Type.Integer() }),
    httpPart: 'querystring',
    method: 'GET',
    url: '/',
  }) as unknown as (v: unknown) => boolean;
  const query = { page: '2' };
  assert.equal(validate(query), true);
  assert.deepEqual(query, { page: 2 });
});
