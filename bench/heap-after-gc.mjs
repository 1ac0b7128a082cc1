/**
 * Preloaded (`node --import`) into every server of the bench's comparison: on SIGUSR2, one full collection, then V8's
 * heap statistics written to BENCH_HEAP_FILE. The collection function comes from a context of its own, so the server's
 * global `gc` stays as its node flags left it (src/lib/idle-memory.ts acts only when `--expose-gc` gave it one).
 */
import { renameSync, writeFileSync } from 'node:fs';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

const file = process.env.BENCH_HEAP_FILE;
if (file) {
  setFlagsFromString('--expose-gc');
  const collect = runInNewContext('gc');
  process.on('SIGUSR2', () => {
    collect();
    // Renamed into place, so the bench never reads half a file.
    writeFileSync(`${file}.tmp`, JSON.stringify(getHeapStatistics()));
    renameSync(`${file}.tmp`, file);
  });
}
