/**
 * Fails the server build when a file of dist/server holds a character beyond Latin-1 (above U+00FF). V8 keeps every
 * module's source in memory for the life of the process, one byte a character when all of it is Latin-1 and two bytes
 * otherwise: one em dash in a comment or a regular expression (esbuild escapes them in strings, not there) doubles the
 * memory of its whole chunk, 0.4 MB for the largest. Write such a character as an escape (`\u2014`) instead.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2] ?? 'dist/server';
const problems: string[] = [];
for (const name of readdirSync(dir).filter((file) => file.endsWith('.js'))) {
  readFileSync(join(dir, name), 'utf8')
    .split('\n')
    .forEach((line, index) => {
      const found = line.match(/[^\u0000-\u00ff]/u);
      if (found) problems.push(`${join(dir, name)}:${index + 1}: "${found[0]}" in ${line.trim().slice(0, 100)}`);
    });
}
if (problems.length > 0) {
  console.error(`Characters beyond Latin-1 in the server bundle (write them as \\u escapes in the source):\n${problems.join('\n')}`);
  process.exit(1);
}
