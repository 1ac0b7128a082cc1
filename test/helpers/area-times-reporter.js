/**
 * A node:test reporter that prints, once the run is over, each area's time (its folder under test/, so `auth` or
 * `platforms/etsy`) and the ten slowest files, so the slow corners of the suite show. package.json's `test` script runs
 * it beside spec, writing to stderr: spec keeps stdout to itself, with the closing "ℹ tests N" lines CI reads.
 *
 * A file's time is the wall time of the process node runs it in: the `test:complete` event node sends for the file
 * itself, named after its path. Files run three at a time (--test-concurrency=3), so an area's time is the sum of its
 * files' times, and the suite's wall time is about a third of the total.
 *
 * It then names every test that failed, with its file and the first lines of its error: CI keeps only the end of a long
 * run's output, and a failure far up a 2,000-test log is otherwise lost.
 *
 * Plain JavaScript: node 20 loads a reporter without the loader `--import tsx` registers, so it cannot be TypeScript.
 */
// @ts-check
import { relative, resolve } from 'node:path';

/** @typedef {{ file: string, ms: number, passed: boolean }} FileTime `file` is the path from the working directory. */

const SLOWEST = 10;

/**
 * The area of a test file: its folder under test/ (`auth`, `platforms/etsy`), or `test` for a file at the top.
 * @param {string} file
 */
export function areaOf(file) {
  const folders = file.replaceAll('\\', '/').split('/').slice(0, -1);
  if (folders[0] === 'test') folders.shift();
  return folders.length > 0 ? folders.join('/') : 'test';
}

const seconds = (/** @type {number} */ ms) => `${(ms / 1000).toFixed(1)} s`;

/**
 * The report: the areas slowest first, with their files, time and share of the total, then the slowest files.
 * @param {readonly FileTime[]} times
 */
export function buildAreaTimesReport(times) {
  /** @type {Map<string, { files: number, ms: number }>} */
  const areas = new Map();
  for (const { file, ms } of times) {
    const area = areas.get(areaOf(file)) ?? { files: 0, ms: 0 };
    areas.set(areaOf(file), { files: area.files + 1, ms: area.ms + ms });
  }
  const total = times.reduce((sum, { ms }) => sum + ms, 0);
  const width = Math.max(...[...areas.keys()].map((area) => area.length), 'area'.length);
  /** @type {(area: string, files: string, time: string, share: string) => string} */
  const row = (area, files, time, share) =>
    `  ${area.padEnd(width)}  ${files.padStart(5)}  ${time.padStart(9)}  ${share.padStart(5)}`.trimEnd();
  const lines = [
    '',
    'Time by area (each file is timed as its own process; three run at once, so the wall time is about a third of the total)',
    row('area', 'files', 'time', 'share'),
    ...[...areas.entries()]
      .sort(([, a], [, b]) => b.ms - a.ms)
      .map(([area, { files, ms }]) => row(area, String(files), seconds(ms), `${Math.round((100 * ms) / (total || 1))} %`)),
    row('all', String(times.length), seconds(total), ''),
    '',
    `The ${Math.min(SLOWEST, times.length)} slowest files`,
    ...[...times]
      .sort((a, b) => b.ms - a.ms)
      .slice(0, SLOWEST)
      .map(({ file, ms, passed }) => `  ${seconds(ms).padStart(9)}  ${file}${passed ? '' : ' (failed)'}`),
    '',
  ];
  return lines.join('\n');
}

/** @typedef {{ file: string, name: string, error: string }} Failure */

/**
 * The failed tests, each with its file, its name and the first lines of its error.
 * @param {readonly Failure[]} failures
 */
export function buildFailuresReport(failures) {
  if (failures.length === 0) return '';
  return [
    `${failures.length} failed:`,
    ...failures.flatMap(({ file, name, error }) => [
      `  ${file}: ${name}`,
      ...error
        .split('\n')
        // node's own frames say nothing about the test
        .filter((line) => line.trim() !== '' && !/^\s*at .*\b(node:internal|node:async_hooks)/.test(line))
        .slice(0, 8)
        .map((line) => `      ${line}`),
    ]),
    '',
  ].join('\n');
}

/** @param {unknown} error */
function errorText(error) {
  if (!(error instanceof Error)) return String(error);
  // node:test wraps the test's own error as the cause of its own.
  const cause = /** @type {{ cause?: unknown }} */ (error).cause;
  const inner = cause instanceof Error ? cause : error;
  return inner.stack ?? inner.message;
}

/**
 * The reporter: collects each file's own event, and yields the report when the run ends.
 * @param {AsyncIterable<import('node:test/reporters').TestEvent>} source
 */
export default async function* areaTimesReporter(source) {
  /** @type {Map<string, FileTime>} */
  const times = new Map();
  /** @type {Failure[]} */
  const failures = [];
  for await (const event of source) {
    // A failed test of its own (not a suite failing because a test in it did, nor the file's own test).
    if (event.type === 'test:fail' && event.data.file !== undefined && event.data.details.type !== 'suite') {
      const { name, file, details } = event.data;
      if (resolve(name) !== file) {
        failures.push({ file: relative(process.cwd(), file), name, error: errorText(details.error) });
      }
    }
    if (event.type !== 'test:complete' && event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { name, file, nesting, details } = event.data;
    // The file's own test is the one named after the file (its absolute path on Node 20, the path from the working
    // directory on Node 24); the tests inside it carry its path too.
    if (file === undefined || nesting !== 0 || resolve(name) !== file) continue;
    const path = relative(process.cwd(), file);
    const passed = event.type === 'test:complete' ? event.data.details.passed : event.type === 'test:pass';
    times.set(path, { file: path, ms: Math.max(details.duration_ms, times.get(path)?.ms ?? 0), passed });
  }
  if (times.size > 0) yield buildAreaTimesReport([...times.values()]);
  if (failures.length > 0) yield buildFailuresReport(failures);
}
