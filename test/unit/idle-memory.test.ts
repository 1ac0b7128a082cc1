import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, test } from 'node:test';
import { promisify } from 'node:util';
import { type IdleMemoryProbe, idleLook } from '../../src/lib/idle-memory.js';

const MB = 1024 * 1024;
const SETTINGS = { intervalMs: 10_000, idleCpuShare: 0.02, youngFloorBytes: 4 * MB };

/** A process whose CPU time and young generation the test sets, and which records its collections. */
function fakeProbe(young: number) {
  const state = { cpuMicros: 0, young, collections: 0 };
  const probe: IdleMemoryProbe = {
    cpuMicros: () => state.cpuMicros,
    youngBytes: () => state.young,
    collectYoung: () => {
      state.collections++;
      state.young = 1 * MB;
    },
  };
  return { state, probe };
}

describe('giving the young generation back when idle', () => {
  test('an idle process holding a grown young generation collects once, then is left alone', () => {
    const { state, probe } = fakeProbe(120 * MB);
    let last = { cpuMicros: 0, atMs: 0 };
    state.cpuMicros = 50_000; // 50 ms of CPU in 10 s: 0.5 %
    last = idleLook(probe, last, 10_000, SETTINGS);
    assert.equal(state.collections, 1);
    assert.equal(state.young, 1 * MB);
    state.cpuMicros += 10_000;
    last = idleLook(probe, last, 20_000, SETTINGS);
    assert.equal(state.collections, 1, 'nothing left to give back');
  });

  test('a busy process is not collected, whatever its young generation holds', () => {
    const { state, probe } = fakeProbe(120 * MB);
    state.cpuMicros = 9_000_000; // 90 % of a CPU over 10 s
    idleLook(probe, { cpuMicros: 0, atMs: 0 }, 10_000, SETTINGS);
    assert.equal(state.collections, 0);
    state.cpuMicros = 250_000; // 2.5 %: above the 2 % threshold
    idleLook(probe, { cpuMicros: 0, atMs: 0 }, 10_000, SETTINGS);
    assert.equal(state.collections, 0);
  });

  test('an idle process whose young generation is at its floor is not collected', () => {
    const { state, probe } = fakeProbe(4 * MB);
    idleLook(probe, { cpuMicros: 0, atMs: 0 }, 10_000, SETTINGS);
    assert.equal(state.collections, 0);
  });

  test("the collection's own CPU time does not count against the next interval", () => {
    const { state, probe } = fakeProbe(120 * MB);
    const original = probe.collectYoung;
    probe.collectYoung = () => {
      original();
      state.cpuMicros += 300_000;
    };
    const next = idleLook(probe, { cpuMicros: 0, atMs: 0 }, 10_000, SETTINGS);
    assert.equal(next.cpuMicros, 300_000);
  });

  // The real V8: a young generation grown by a burst of surviving allocations, in a process started as `npm start`
  // starts the server, is given back once the process is idle; without --expose-gc it stays grown.
  const script = (waitMs: number) => `
    import { getHeapSpaceStatistics } from 'node:v8';
    import { processProbe, trimWhenIdle } from ${JSON.stringify(new URL('../../src/lib/idle-memory.ts', import.meta.url).href)};
    const young = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
    let kept = [];
    for (let i = 0; i < 2_000_000; i++) kept.push({ i, s: 'x' + i });
    kept = [];
    const grown = young();
    const stop = trimWhenIdle(processProbe(), { intervalMs: 200 });
    const started = Date.now();
    while (young() > 4 * 1024 * 1024 && Date.now() - started < ${waitMs}) await new Promise((r) => setTimeout(r, 100));
    stop();
    console.log(JSON.stringify({ grown, after: young() }));
  `;
  const run = async (flags: string[], waitMs: number) => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [...flags, '--max-semi-space-size=64', '--import', 'tsx', '--input-type=module', '--eval', script(waitMs)],
      { timeout: 30_000 },
    );
    return JSON.parse(stdout) as { grown: number; after: number };
  };

  test('with --expose-gc, an idle process gives a grown young generation back to V8', async () => {
    const { grown, after } = await run(['--expose-gc'], 15_000);
    assert.ok(grown >= 32 * MB, `the burst grew the young generation to ${grown / MB} MB`);
    assert.ok(after <= 4 * MB, `given back within 15 s: ${after / MB} MB`);
  });

  test('without --expose-gc the trimmer does nothing and the young generation stays grown', async () => {
    const { grown, after } = await run([], 3_000); // 3 s: without the flag no wait would change it
    assert.ok(grown >= 32 * MB, `the burst grew the young generation to ${grown / MB} MB`);
    assert.equal(after, grown);
  });
});
