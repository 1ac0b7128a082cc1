/** deadlineSignal: a call's own deadline or the shutdown, whichever comes first, without leaving listeners behind. */
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { describe, test } from 'node:test';
import { deadlineSignal } from '../../src/lib/outbound-http.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('deadlineSignal', () => {
  test('aborts at its deadline with a TimeoutError, as AbortSignal.timeout does', async () => {
    const signal = deadlineSignal(30, new AbortController().signal);
    assert.equal(signal.aborted, false);
    await sleep(60);
    assert.equal(signal.aborted, true);
    assert.equal((signal.reason as Error).name, 'TimeoutError');
  });

  test('aborts when the stop signal does, with its reason, before the deadline', () => {
    const stop = new AbortController();
    const signal = deadlineSignal(60_000, stop.signal);
    const reason = new DOMException('The service is shutting down', 'AbortError');
    stop.abort(reason);
    assert.equal(signal.aborted, true);
    assert.equal(signal.reason, reason);
  });

  test('is aborted from the start when the stop signal already is', () => {
    const stop = new AbortController();
    stop.abort();
    assert.equal(deadlineSignal(60_000, stop.signal).aborted, true);
  });

  test('stops listening on the long-lived stop signal once its deadline has passed', async () => {
    const stop = new AbortController();
    for (let i = 0; i < 100; i++) deadlineSignal(20, stop.signal);
    assert.equal(getEventListeners(stop.signal, 'abort').length, 100);
    await sleep(60);
    assert.equal(getEventListeners(stop.signal, 'abort').length, 0);
  });
});
