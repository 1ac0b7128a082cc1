/** Fastify's lib/symbols.js, CommonJS without types of its own: its symbols by name. Not a public API of Fastify's. */
declare module 'fastify/lib/symbols.js' {
  const symbols: Readonly<Record<string, symbol | undefined>>;
  export default symbols;
}
