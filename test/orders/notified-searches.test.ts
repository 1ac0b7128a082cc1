/**
 * A site's searches for notified orders, one at a time (src/core/orders/notified-searches.ts): the batches that need a
 * search while one runs share the next, which searches only for what the one before left unrecorded and waits for the
 * platform's spacing. No I/O: the searches, the recorded orders and the waits are the test's own.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createNotifiedSearches } from '../../src/core/orders/notified-searches.js';

/** A promise the test settles. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  return { promise, resolve, reject };
}

/** Lets every callback already due run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

function harness() {
  const recorded = new Set<string>();
  const searches: { ids: string[]; answer: ReturnType<typeof deferred<string[]>> }[] = [];
  const sleeps: { ms: number; done: ReturnType<typeof deferred<void>> }[] = [];
  const searchesOf = createNotifiedSearches<string[]>({
    unrecordedOf: async (_siteId, ids) => ids.filter((id) => !recorded.has(id)),
    sleep: (ms) => {
      const done = deferred<void>();
      sleeps.push({ ms, done });
      return done.promise;
    },
  });
  /** A batch's search: what it asked for is noted, and answered when the test says. */
  const search = (siteId: number, ids: string[], inMs = 0) =>
    searchesOf.search(siteId, ids, inMs, () => {
      const answer = deferred<string[]>();
      searches.push({ ids, answer });
      return answer.promise;
    });
  return { recorded, searches, sleeps, search };
}

describe("a site's searches for notified orders", () => {
  test('batches that come while one runs share the next, which searches only for what is still unrecorded', async () => {
    const h = harness();
    const first = h.search(1, ['A', 'B']);
    await settle();
    assert.equal(h.searches.length, 1, 'nothing under way: the first searches at once');

    const second = h.search(1, ['C', 'D']);
    const third = h.search(1, ['E']);
    await settle();
    assert.equal(h.searches.length, 1, 'no second search while the first runs');

    // The first search read A to D (C and D sold before it was sent, notified after): the intake recorded them.
    for (const id of ['A', 'B', 'C', 'D']) h.recorded.add(id);
    h.searches[0]!.answer.resolve(['A', 'B', 'C', 'D']);
    assert.deepEqual(await first, { read: ['A', 'B', 'C', 'D'], unrecorded: new Set(['A', 'B']) });
    await settle();
    assert.equal(h.searches.length, 2, 'one search for the two batches that waited');

    h.searches[1]!.answer.resolve(['E']);
    const [two, three] = await Promise.all([second, third]);
    assert.equal(two, three, 'the two batches share one answer');
    assert.deepEqual(three, { read: ['E'], unrecorded: new Set(['E']) }, 'made for E alone: C and D were recorded by the first');
  });

  test('where the search before recorded every order of the batches that waited, none is made', async () => {
    const h = harness();
    const first = h.search(1, ['A']);
    await settle();
    const second = h.search(1, ['B']);
    h.recorded.add('A').add('B');
    h.searches[0]!.answer.resolve(['A', 'B']);
    await first;
    assert.deepEqual(await second, { read: null, unrecorded: new Set() });
    assert.equal(h.searches.length, 1);
  });

  test("the next search waits for the platform's spacing as well as for the one running; other sites are their own", async () => {
    const h = harness();
    const first = h.search(1, ['A'], 250);
    await settle();
    assert.deepEqual(
      h.sleeps.map((s) => s.ms),
      [250],
    );
    assert.equal(h.searches.length, 0, 'not before the spacing has passed');
    const joined = h.search(1, ['B'], 0);
    const elsewhere = h.search(2, ['Z']);
    await settle();
    assert.deepEqual(
      h.searches.map((s) => s.ids),
      [['Z']],
      "another site's search is not held by this one's",
    );
    h.sleeps[0]!.done.resolve();
    await settle();
    assert.deepEqual(
      h.searches.map((s) => s.ids),
      [['Z'], ['A']],
    );
    h.searches[1]!.answer.resolve(['A', 'B']);
    assert.equal(await joined, await first, 'B, come while the search waited to begin, joined it');
    assert.deepEqual((await first).unrecorded, new Set(['A', 'B']));
    h.searches[0]!.answer.resolve(['Z']);
    await elsewhere;
  });

  test('a failed search fails every batch that joined it, and the next batch searches anew', async () => {
    const h = harness();
    const running = h.search(1, ['A']);
    await settle();
    const first = h.search(1, ['B']);
    const second = h.search(1, ['C']);
    h.searches[0]!.answer.resolve([]);
    await running;
    await settle();
    h.searches[1]!.answer.reject(new Error('429'));
    await assert.rejects(first, /429/);
    await assert.rejects(second, /429/);
    const again = h.search(1, ['B', 'C']);
    await settle();
    assert.equal(h.searches.length, 3);
    h.searches[2]!.answer.resolve(['B', 'C']);
    assert.deepEqual((await again).read, ['B', 'C']);
  });
});
