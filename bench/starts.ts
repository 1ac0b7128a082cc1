/**
 * (j) Starts on the embedded database: the time from spawning `npm start`'s server on a new data directory to its
 * first `/health` 200 (a first start: the build's PGlite image taken, src/db/pglite-image.ts), then on the same
 * directory again (a second start), round after round; each timed twice, as the node process alone (the start
 * script's command) and through `npm start` itself, its prestart included (npm, and the check that skips a build of
 * a current bundle, or the build). A first start takes the image's data directory and a child
 * process makes it again 10 s later; each round waits for it, as a first start after `npm install` finds it. Before issue 37 a first start ran initdb, the migrations and
 * pg-boss's install: 13.4 s on an idle machine.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGLITE_IMAGE_DIR } from '../src/db/pglite-image.js';
import type { ServerProcess } from './server-process.js';

export interface StartTimes {
  readonly first: number[];
  readonly second: number[];
  readonly npmFirst: number[];
  readonly npmSecond: number[];
}

type Start = (env: Record<string, string>) => Promise<ServerProcess>;

/**
 * `start(env)` starts the node process, `npmStart(env)` runs `npm start` (each resolved at the first /health 200); each
 * round starts each on a new directory, then again on it.
 */
export async function startTimes(start: Start, rounds: number, npmStart: Start): Promise<StartTimes> {
  const times: StartTimes = { first: [], second: [], npmFirst: [], npmSecond: [] };
  const timed = async (how: Start, list: number[], env: Record<string, string>) => {
    const started = performance.now();
    const server = await how(env);
    list.push((performance.now() - started) / 1000);
    await server.stop();
  };
  const pair = async (how: Start, first: number[], second: number[]) => {
    await imageDirectoryMade();
    // The machine idle, as the target says: the previous start's writes (its data directory removed, the image made
    // again: 80 MB) flushed to disk first rather than written back under the next start.
    execFileSync('sync');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const dir = mkdtempSync(join(tmpdir(), 'storelink-starts-'));
    try {
      await timed(how, first, { DATA_DIR: dir });
      await timed(how, second, { DATA_DIR: dir });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  for (let round = 0; round < rounds; round++) {
    await pair(start, times.first, times.second);
    await pair(npmStart, times.npmFirst, times.npmSecond);
  }
  return times;
}

/** Until the build's image has its data directory again (within a minute): a directory in dist/pglite-image. */
async function imageDirectoryMade(): Promise<void> {
  const deadline = Date.now() + 60_000;
  const made = () =>
    readdirSync(PGLITE_IMAGE_DIR).some((name) => !name.includes('.') && statSync(join(PGLITE_IMAGE_DIR, name)).isDirectory());
  while (!made()) {
    if (Date.now() > deadline) throw new Error(`no image data directory in ${PGLITE_IMAGE_DIR} within a minute`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

export function startLines(times: StartTimes): string[] {
  const row = (name: string, values: readonly number[]) =>
    `| ${name} | ${median(values).toFixed(1)} s | ${values.map((v) => v.toFixed(1)).join(', ')} |`;
  return [
    '(j) starts on the embedded database, to the first /health 200',
    '| start | median | each round |',
    '|---|---:|---|',
    row('first, from the build image (node process)', times.first),
    row('second, same data directory (node process)', times.second),
    row('first, through `npm start` (prestart included)', times.npmFirst),
    row('second, through `npm start` (prestart included)', times.npmSecond),
    `first start: ${median(times.first).toFixed(1)} s, ${median(times.npmFirst).toFixed(1)} s through npm start (target: under 3 s on an idle machine; 13.4 s before the image)`,
  ];
}
