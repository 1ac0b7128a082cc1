import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dictionary } from '@zxcvbn-ts/language-common';
import { isCommonPassword } from '../../src/core/auth/common-passwords.js';

test("every password of the package's own dictionary is refused, in any case; others are not", async () => {
  const common = dictionary['passwords-common'];
  assert.ok(common.length > 40_000);
  for (const password of common) assert.equal(await isCommonPassword(password), true, password);
  assert.equal(await isCommonPassword('PassWord1'), true);
  assert.equal(await isCommonPassword('ｐａｓｓｗｏｒｄ'), true, 'fullwidth letters are NFKC-normalised first');
  for (const password of ['correct horse battery staple', 'zz-not-on-any-list-9481', '']) {
    assert.equal(await isCommonPassword(password), false, password);
  }
});
