/**
 * Whether dist/server is the build of the sources as they are now, so `npm start`'s prestart can skip the 2 to 3 s
 * build: the build (scripts/build-server.ts) writes a SHA-256 of its inputs (src/, scripts/, package.json and
 * package-lock.json: names and contents, so a checkout or an install that changes nothing keeps it) beside the bundle,
 * and this answers whether the bundle, that hash and the embedded database's image are there and the hash is still
 * the inputs'. Run as a script (`node --experimental-strip-types`, so only node: imports and erasable syntax), it
 * exits 0 when current, 1 otherwise, and the prestart builds on anything but 0.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The file of the inputs' hash, in the bundle's directory. */
export const INPUTS_HASH_FILE = 'inputs.sha256';
const INPUTS = ['src', 'scripts', 'package.json', 'package-lock.json'];

/** The SHA-256 of the build's inputs under `root`: every file's path and contents, in path order. */
export function bundleInputsHash(root: string): string {
  const hash = createHash('sha256');
  for (const file of INPUTS.flatMap((input) => filesUnder(join(root, input))).sort()) {
    hash.update(`${relative(root, file)}\0`);
    hash.update(readFileSync(file));
    hash.update('\0');
  }
  return hash.digest('hex');
}

function filesUnder(path: string): string[] {
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path).flatMap((name) => filesUnder(join(path, name)));
}

/** Whether `outdir` holds a bundle built from the inputs under `root` as they are now, and the image beside it is there. */
export function serverBundleCurrent(root: string, outdir = join(root, 'dist/server')): boolean {
  const hashFile = join(outdir, INPUTS_HASH_FILE);
  const imageDir = join(root, 'dist/pglite-image');
  if (!existsSync(join(outdir, 'main.js')) || !existsSync(hashFile) || !existsSync(imageDir)) return false;
  if (!readdirSync(imageDir).some((name) => name.endsWith('.tar'))) return false;
  return readFileSync(hashFile, 'utf8').trim() === bundleInputsHash(root);
}

// Compared as URLs, so a path with a space or a # still runs the check: a check that did not run would exit 0, current.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const current = serverBundleCurrent(process.cwd());
  if (current) console.log('dist/server is current: not built again');
  process.exit(current ? 0 : 1);
}
