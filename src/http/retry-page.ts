/** The page a failed advertising connection lands on: what went wrong, a fresh try for the same site, and the way back (DESIGN §4). */

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function renderRetryPage(input: { retryUrl: string | null; backUrl: string; message: string }): string {
  const retry = input.retryUrl ? `<a class="primary" href="${escapeHtml(input.retryUrl)}">Try again</a>` : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Amazon Ads was not connected</title>
<style>
  body { font: 16px/1.5 system-ui, sans-serif; margin: 0; background: #f4f4f5; color: #18181b; }
  main { max-width: 30rem; margin: 2rem auto; background: #fff; padding: 1.5rem; border-radius: .75rem; }
  a { display: inline-block; margin: .5rem 1rem 0 0; padding: .6rem 1.2rem; border-radius: .5rem; border: 1px solid #71717a; color: inherit; text-decoration: none; }
  a.primary { background: #2563eb; border-color: #2563eb; color: #fff; }
  a:focus-visible { outline: 3px solid #2563eb; outline-offset: 2px; }
</style></head>
<body><main>
  <h1>Amazon Ads was not connected</h1>
  <p>${escapeHtml(input.message)}</p>
  <p>Your Amazon seller connection is unchanged.</p>
  ${retry}<a href="${escapeHtml(input.backUrl)}">Back</a>
</main></body></html>`;
}
