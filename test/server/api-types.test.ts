import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { generateApiFiles, OPENAPI_FILE, TYPES_FILE } from '../../scripts/generate-api-types.js';

test("the dashboard's committed OpenAPI document and API types match the API (run npm run gen:api when this fails)", async () => {
  const { openapi, types } = await generateApiFiles();
  assert.equal(await readFile(OPENAPI_FILE, 'utf8'), openapi, `${OPENAPI_FILE} is stale: run npm run gen:api`);
  assert.equal(await readFile(TYPES_FILE, 'utf8'), types, `${TYPES_FILE} is stale: run npm run gen:api`);
});
