/**
 * What makes the API reference (/api/v1/docs, Swagger UI) Storelink's and accessible (issue 37 item 7): a header with
 * Storelink's name and a way back to the dashboard instead of Swagger UI's top bar (with Fastify's logo and an unlabelled
 * URL box), the page in landmarks, names for the controls Swagger UI leaves without one, and colours that reach WCAG AA
 * contrast. Served as files of the page's own (`theme` of @fastify/swagger-ui), so the Content-Security-Policy needs no
 * exception. test/browser/api-reference.test.ts runs axe on the page, collapsed and with an operation open.
 */

/** Storelink's mark, for the tab: a rounded square with an S, in the dashboard's blue. */
export const DOCS_FAVICON = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1d4ed8"/>' +
    '<text x="16" y="23" text-anchor="middle" font-family="sans-serif" font-size="20" font-weight="700" fill="#fff">S</text></svg>',
);

/**
 * Runs before Swagger UI renders (its initializer waits for the page's load): puts Storelink's banner above it, then
 * names the regions and controls Swagger UI renders without a name, whenever it renders them.
 */
export const DOCS_SCRIPT = `(() => {
  const root = document.getElementById('swagger-ui');
  if (!root) return;
  const header = document.createElement('header');
  header.className = 'storelink-docs-header';
  const brand = document.createElement('a');
  brand.href = '/dashboard';
  brand.className = 'storelink-docs-brand';
  brand.textContent = 'Storelink';
  const title = document.createElement('h1');
  title.textContent = 'API reference';
  const back = document.createElement('a');
  back.href = '/profile/developer/api-access';
  back.textContent = 'Personal access tokens';
  header.append(brand, title, back);
  root.before(header);
  const name = () => {
    // The page's one h1 is the header's: the document's title comes under it; what Swagger UI shows outside its own
    // main (the API's description, the server and Authorize) is a region of its own.
    for (const heading of root.querySelectorAll('.info .title:not([aria-level])')) heading.setAttribute('aria-level', '2');
    const regions = [['.information-container', 'About the API'], ['.scheme-container', 'Server and authorization']];
    for (const [selector, label] of regions) {
      const region = root.querySelector(selector + ':not([role])');
      if (region) {
        region.setAttribute('role', 'region');
        region.setAttribute('aria-label', label);
      }
    }
    for (const select of root.querySelectorAll('select:not([aria-label])')) {
      if (select.id === 'servers') select.setAttribute('aria-label', 'Server');
      else if (select.closest('.content-type-wrapper, .response-control-media-type'))
        select.setAttribute('aria-label', 'Media type');
      else if (!select.labels || select.labels.length === 0) select.setAttribute('aria-label', 'Value');
    }
    for (const input of root.querySelectorAll('input:not([aria-label]):not([type=hidden])')) {
      if (!input.labels || input.labels.length === 0) {
        const row = input.closest('tr');
        const label = row && row.querySelector('.parameter__name');
        input.setAttribute('aria-label', label ? label.textContent.replace('*', '').trim() : 'Value');
      }
    }
    for (const area of root.querySelectorAll('textarea:not([aria-label])')) area.setAttribute('aria-label', 'Request body');
    // An example too wide for its box scrolls: the keyboard reaches it, to scroll it too.
    for (const code of root.querySelectorAll('pre.microlight:not([tabindex])')) code.setAttribute('tabindex', '0');
  };
  new MutationObserver(name).observe(root, { childList: true, subtree: true });
})();
`;

/** Colours of Swagger UI's theme darkened to at least 4.5:1 against their backgrounds; the header's own look. */
export const DOCS_STYLE = `
.storelink-docs-header { display: flex; gap: 1rem; align-items: baseline; flex-wrap: wrap; padding: 0.8rem 1.25rem;
  background: #0f172a; color: #fff; font-family: system-ui, sans-serif; }
.storelink-docs-header a { color: #fff; }
.storelink-docs-brand { font-weight: 700; font-size: 1.25rem; text-decoration: none; }
.storelink-docs-header h1 { font-size: 1.1rem; font-weight: 400; margin: 0; }
.storelink-docs-header a:last-child { margin-left: auto; }
.swagger-ui .info .title small { background: #4b5563; }
.swagger-ui .info .title small.version-stamp { background: #3f6212; }
.swagger-ui .info .title small pre { color: #fff; }
.swagger-ui .info a, .swagger-ui .info .url, .swagger-ui a.nostyle, .swagger-ui .info__license__url { color: #1d4ed8; }
.swagger-ui .opblock.opblock-get .opblock-summary-method { background: #1d5fa8; }
.swagger-ui .opblock.opblock-post .opblock-summary-method { background: #166a45; }
.swagger-ui .opblock.opblock-put .opblock-summary-method { background: #94510a; }
.swagger-ui .opblock.opblock-delete .opblock-summary-method { background: #b3261e; }
.swagger-ui .opblock.opblock-patch .opblock-summary-method { background: #0f6b5e; }
.swagger-ui .opblock.opblock-head .opblock-summary-method { background: #6b3fa0; }
.swagger-ui .opblock.opblock-options .opblock-summary-method { background: #1e4e8c; }
.swagger-ui .opblock-tag small, .swagger-ui .opblock .opblock-summary-description,
.swagger-ui .opblock .opblock-summary-operation-id, .swagger-ui .opblock .opblock-summary-path,
.swagger-ui .opblock .opblock-summary-path__deprecated { color: #1f2937; }
.swagger-ui .parameter__name.required span, .swagger-ui .parameter__name.required::after,
.swagger-ui .model .property.primitive, .swagger-ui .prop-format { color: #a3160e; }
.swagger-ui .parameter__in, .swagger-ui .parameter__type, .swagger-ui .parameter__deprecated,
.swagger-ui .response-col_links, .swagger-ui .model-title, .swagger-ui .model .deprecated,
.swagger-ui .opblock-description-wrapper p, .swagger-ui .responses-inner h4, .swagger-ui .responses-inner h5,
.swagger-ui .renderedMarkdown p, .swagger-ui table thead tr th, .swagger-ui .tab li, .swagger-ui .opblock-section-header h4,
.swagger-ui .model-box, .swagger-ui .model, .swagger-ui .prop-type { color: #1f2937; }
.swagger-ui .tab li:first-of-type::after { background: #4b5563; }
.swagger-ui .btn.authorize { color: #166a45; border-color: #166a45; }
.swagger-ui .btn.authorize svg { fill: #166a45; }
.swagger-ui .btn.try-out__btn, .swagger-ui .btn.cancel { color: #1f2937; border-color: #4b5563; }
.swagger-ui .btn.execute { background: #1d5fa8; border-color: #1d5fa8; }
.swagger-ui .response-control-media-type__accept-message { color: #166a45; }
.swagger-ui .highlight-code .microlight, .swagger-ui .microlight { background: #1f2937 !important; color: #fff !important; }
.swagger-ui .microlight span { color: #fff !important; }
.swagger-ui .model-toggle::after { filter: none; }
.swagger-ui .opblock-body pre.microlight { color: #fff; }
`;
