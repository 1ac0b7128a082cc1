#!/usr/bin/env node
// The operator CLI (`npx storelink …`): runs the TypeScript source through tsx, like `npm start` does.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli.ts');
