/** Configurations that must not load, for the tests of src/config.ts. */
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../../src/config.js';

/** The problems of a configuration that must not load. */
export function problemsOf(env: Record<string, string>): readonly string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  assert.fail(`expected a ConfigError for ${JSON.stringify(env)}`);
}
