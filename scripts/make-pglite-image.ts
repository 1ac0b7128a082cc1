/**
 * Writes dist/pglite-image/<key>.tar, the migrated empty PGlite database a first start on the embedded database loads
 * (src/db/pglite-image.ts), and the data directory made from it, unless they are there. Run by the server build, so
 * by `npm install` and `npm start`.
 */
import { writePgliteImage } from '../src/db/make-pglite-image.js';

const started = performance.now();
const { file, made } = await writePgliteImage(undefined, { withDirectory: true });
if (made) console.log(`Made the embedded database's image ${file} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
