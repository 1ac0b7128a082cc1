/**
 * Lints the OpenAPI document as the app describes itself (built without listening, on an in-memory PGlite) with
 * Redocly's linter and the rules of redocly.yaml. Run by `npm run lint`; offline: nothing is fetched, no telemetry.
 */

import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildOpenApiDocument } from './generate-api-types.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const dir = await mkdtemp(join(tmpdir(), 'storelink-openapi-'));
try {
  const file = join(dir, 'openapi.json');
  await writeFile(file, JSON.stringify(await buildOpenApiDocument(), null, 2));
  const redocly = join(root, 'node_modules', '.bin', 'redocly');
  const result = spawnSync(redocly, ['lint', file, '--config', join(root, 'redocly.yaml'), '--max-problems', '1000'], {
    stdio: 'inherit',
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  });
  process.exitCode = result.status ?? 1;
} finally {
  await rm(dir, { recursive: true, force: true });
}
