import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// Built into dist/web, which the server serves (src/web/dashboard.routes.ts). No plugin: Vite's own transform handles TSX.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  build: { outDir: fileURLToPath(new URL('../dist/web', import.meta.url)), emptyOutDir: true, modulePreload: { polyfill: false } },
  oxc: { jsx: { runtime: 'automatic' } },
});
