import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, test } from 'node:test';
import { promisify } from 'node:util';
import { type IdleMemoryProbe, type IdleState, idleLook } from '../../src/lib/idle-memory.js';

const MB = 1024 * 1024;
const SETTINGS = { intervalMs: 10_000, idleCpuShare: 0.02, youngFloorBytes: 4 * MB };

/** A process whose CPU time and young generation the test sets, and which records its collections. */
function fakeProbe(young: number) {
  const state = { cpuMicros: 0, young, collections: [] as string[] };
  const probe: IdleMemoryProbe = {
    cpuMicros: () => state.cpuMicros,
    youngBytes: () => state.young,
    collectYoung: () => {
      state.collections.push('young');
      state.young = 1 * MB;
    },
    collectAll: () => {
      state.collections.push('full');
    },
  };
  return { state, probe };
}

/** Ten seconds on, having used `cpuMs` of CPU in them. */
function tenSecondsLater(state: { cpuMicros: number }, last: IdleState, cpuMs: number) {
  state.cpuMicros += cpuMs * 1000;
  return last.atMs + 10_000;
}

describe('giving memory back when idle', () => {
  test('after work, the first idle look collects fully; then nothing while the process stays idle', () => {
    const { state, probe } = fakeProbe(120 * MB);
    let last: IdleState = { cpuMicros: 0, atMs: 0, worked: true };
    last = idleLook(probe, last, tenSecondsLater(state, last, 50), SETTINGS); // 0.5 % of a CPU
    assert.deepEqual(state.collections, ['full', 'young']);
    assert.equal(state.young, 1 * MB);
    for (let i = 0; i < 5; i++) last = idleLook(probe, last, tenSecondsLater(state, last, 10), SETTINGS);
    assert.deepEqual(state.collections, ['full', 'young'], 'nothing left to give back');
  });

  test('a busy process is not collected; once it falls idle, it is, once', () => {
    const { state, probe } = fakeProbe(120 * MB);
    let last: IdleState = { cpuMicros: 0, atMs: 0, worked: false };
    last = idleLook(probe, last, tenSecondsLater(state, last, 9_000), SETTINGS); // 90 % of a CPU
    last = idleLook(probe, last, tenSecondsLater(state, last, 250), SETTINGS); // 2.5 %: above the 2 % threshold
    assert.deepEqual(state.collections, []);
    last = idleLook(probe, last, tenSecondsLater(state, last, 100), SETTINGS);
    last = idleLook(probe, last, tenSecondsLater(state, last, 100), SETTINGS);
    assert.deepEqual(state.collections, ['full', 'young']);
  });

  test('an idle process whose young generation grew without work gets a minor collection; at its floor, none', () => {
    const { state, probe } = fakeProbe(40 * MB);
    let last: IdleState = { cpuMicros: 0, atMs: 0, worked: false };
    last = idleLook(probe, last, tenSecondsLater(state, last, 10), SETTINGS);
    assert.deepEqual(state.collections, ['young']);
    state.young = 4 * MB;
    last = idleLook(probe, last, tenSecondsLater(state, last, 10), SETTINGS);
    assert.deepEqual(state.collections, ['young']);
  });

  test("the collection's own CPU time does not count against the next interval", () => {
    const { state, probe } = fakeProbe(120 * MB);
    const original = probe.collectAll;
    probe.collectAll = () => {
      original();
      state.cpuMicros += 300_000;
    };
    const next = idleLook(probe, { cpuMicros: 0, atMs: 0, worked: true }, 10_000, SETTINGS);
    assert.equal(next.cpuMicros, 300_000);
    idleLook(probe, next, tenSecondsLater(state, next, 10), SETTINGS);
    assert.deepEqual(state.collections, ['full', 'young'], 'the collection was not taken for work');
  });

  // The real V8: a process started as `npm start` starts the server makes a burst of objects that outlive a few
  // collections (so they grow the young generation and reach the old one), then drops them. Idle, the trimmer gives
  // both back; without --expose-gc both stay committed.
  const script = (waitMs: number) => `
    import { getHeapSpaceStatistics } from 'node:v8';
    import { processProbe, trimWhenIdle } from ${JSON.stringify(new URL('../../src/lib/idle-memory.ts', import.meta.url).href)};
    const committed = (name) => getHeapSpaceStatistics().find((s) => s.space_name === name).space_size;
    const sizes = () => ({ young: committed('new_space'), old: committed('old_space') });
    let kept = [];
    for (let i = 0; i < 2_000_000; i++) kept.push({ i, s: 'x' + i });
    kept = [];
    const grown = sizes();
    const stop = trimWhenIdle(processProbe(), { intervalMs: 200 });
    const started = Date.now();
    // Until both are given back (V8 frees the old generation's pages on background threads, after the collection).
    const givenBack = () => sizes().young <= 4 * 1024 * 1024 && sizes().old <= grown.old / 2;
    while (!givenBack() && Date.now() - started < ${waitMs}) await new Promise((r) => setTimeout(r, 100));
    stop();
    console.log(JSON.stringify({ grown, after: sizes() }));
  `;
  const run = async (flags: string[], waitMs: number) => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [...flags, '--max-semi-space-size=64', '--import', 'tsx', '--input-type=module', '--eval', script(waitMs)],
      { timeout: 30_000 },
    );
    return JSON.parse(stdout) as Record<'grown' | 'after', { young: number; old: number }>;
  };

  test("with --expose-gc, an idle process gives back the young generation and the old one's garbage", async () => {
    const { grown, after } = await run(['--expose-gc'], 15_000);
    assert.ok(grown.young >= 32 * MB, `the burst grew the young generation to ${grown.young / MB} MB`);
    assert.ok(grown.old >= 64 * MB, `and the old one to ${grown.old / MB} MB`);
    assert.ok(after.young <= 4 * MB, `young generation given back within 15 s: ${after.young / MB} MB`);
    assert.ok(after.old <= grown.old / 2, `old generation given back: ${after.old / MB} MB`);
  });

  test('without --expose-gc the trimmer does nothing and the young generation stays grown', async () => {
    const { grown, after } = await run([], 3_000); // 3 s: without the flag no wait would change it
    assert.ok(grown.young >= 32 * MB, `the burst grew the young generation to ${grown.young / MB} MB`);
    assert.equal(after.young, grown.young);
    // The old generation is not asserted: Node 24's V8 gives an idle process's old garbage back on its own (its memory
    // reducer), with or without the trimmer; only a collection the trimmer asks for shrinks the young generation.
  });
});
