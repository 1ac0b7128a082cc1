#!/usr/bin/env node
// The operator CLI (`npx storelink …`): runs the TypeScript source through tsx (`npm start` runs the esbuild bundle instead).
import { register } from 'tsx/esm/api';

register();
await import('../src/cli.ts');
