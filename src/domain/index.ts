/** The domain's vocabulary, imported by db/, http/, core/, platforms/ and the sandbox alike. */
export * from './accounts.js';
export * from './advertising.js';
export * from './catalogue.js';
export * from './events.js';
export * from './limits.js';
export * from './listings.js';
export * from './orders.js';
export * from './platforms.js';
export * from './sites.js';
