import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dictionary } from '@zxcvbn-ts/language-common';
import fc from 'fast-check';
import { isCommonPassword, listIncludes, sortedList } from '../../src/core/auth/common-passwords.js';

test('the sorted list finds exactly the words it was made of', () => {
  fc.assert(
    fc.property(fc.array(fc.string({ unit: 'grapheme' }).filter((w) => !w.includes('\n'))), fc.string(), (words, probe) => {
      const list = sortedList(words);
      for (const word of words) assert.equal(listIncludes(list, word), true, word);
      assert.equal(listIncludes(list, probe), words.includes(probe));
    }),
  );
  assert.equal(listIncludes(sortedList([]), ''), false);
});

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
