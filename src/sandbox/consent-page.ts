/** The simulators' consent page: looks like a platform's, says plainly it is a sandbox (DESIGN §6). */

import type { FastifyReply } from 'fastify';
import { CONSENT_CHOICE_PROBLEM, type Decision, readConsent } from './context.js';

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A further choice a simulator offers on its consent page (an Etsy account without a shop, several TikTok shops). */
export interface ConsentOption {
  /** The form field; a form submitted without it means the first value. */
  name: string;
  label: string;
  /** `[value, text]` pairs, the first one selected. */
  values: ReadonlyArray<readonly [value: string, text: string]>;
}

function renderOption(option: ConsentOption): string {
  const id = escapeHtml(option.name);
  const values = option.values.map(([value, text]) => `<option value="${escapeHtml(value)}">${escapeHtml(text)}</option>`).join('');
  return `<label for="${id}">${escapeHtml(option.label)}</label>
      <select id="${id}" name="${id}">${values}</select>`;
}

export function renderConsentPage(input: {
  platformName: string;
  appName: string;
  access: readonly string[];
  action: string;
  params: Readonly<Record<string, string>>;
  options?: readonly ConsentOption[];
}): string {
  const options = input.options ?? [];
  // The form adds its own `account`, `decision` and options; a copy from the query would arrive as a second value.
  const own = new Set(['account', 'decision', ...options.map((option) => option.name)]);
  const hidden = Object.entries(input.params)
    .filter(([name]) => !own.has(name))
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('\n      ');
  const access = input.access.map((item) => `<li>${escapeHtml(item)}</li>`).join('');
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(input.platformName)} (sandbox): authorize ${escapeHtml(input.appName)}</title>
<style>
  body { font: 16px/1.5 system-ui, sans-serif; margin: 0; background: #f4f4f5; color: #18181b; }
  main { max-width: 28rem; margin: 2rem auto; background: #fff; padding: 1.5rem; border-radius: .75rem; box-shadow: 0 1px 4px #0002; }
  .sandbox { background: #fef3c7; border: 1px solid #f59e0b; padding: .5rem .75rem; border-radius: .5rem; }
  label { display: block; margin: 1rem 0 .25rem; font-weight: 600; }
  input[type=text], select { width: 100%; box-sizing: border-box; padding: .5rem; font: inherit; }
  .actions { display: flex; gap: .75rem; margin-top: 1.5rem; flex-wrap: wrap; }
  button { font: inherit; padding: .6rem 1.2rem; border-radius: .5rem; border: 1px solid #71717a; background: #fff; cursor: pointer; }
  /* #15803d: 5.0:1 with white, above the 4.5:1 WCAG AA asks of text (#16a34a was 3.3:1) */
  button[value=allow] { background: #15803d; border-color: #15803d; color: #fff; }
  button:focus-visible, input:focus-visible, select:focus-visible { outline: 3px solid #2563eb; outline-offset: 2px; }
</style></head>
<body><main>
  <p class="sandbox" role="note"><strong>Sandbox.</strong> This is Storelink's simulator of ${escapeHtml(input.platformName)}, not the real platform. No real account is connected.</p>
  <h1>${escapeHtml(input.platformName)}</h1>
  <p><strong>${escapeHtml(input.appName)}</strong> would like to access your account:</p>
  <ul>${access}</ul>
  <form method="post" action="${escapeHtml(input.action)}">
      ${hidden}
      <label for="account">Sandbox account number</label>
      <input type="text" id="account" name="account" value="1" inputmode="numeric" pattern="[0-9]{1,6}">
      ${options.map(renderOption).join('\n      ')}
      <div class="actions">
        <button type="submit" name="decision" value="allow">Allow</button>
        <button type="submit" name="decision" value="deny">Deny</button>
        <button type="submit" name="decision" value="fail" title="Grants a code that the token endpoint then rejects">Allow with a code that will be rejected</button>
      </div>
  </form>
</main></body></html>`;
}

export function renderSandboxError(platformName: string, message: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(platformName)} (sandbox): error</title></head>
<body><main><p><strong>Sandbox.</strong> ${escapeHtml(platformName)} simulator</p><h1>This request cannot be authorized</h1><p>${escapeHtml(message)}</p></main></body></html>`;
}

/**
 * The decision and account of a submitted consent form, or null once the platform's error page is answered (400): a
 * request `problem` (unknown client, unregistered redirect) or an unreadable choice is never redirected back.
 */
export function consentChoice(
  reply: FastifyReply,
  platformName: string,
  form: Readonly<Record<string, string | undefined>>,
  problem: string | null,
) {
  const choice: { decision: Decision; account: number } | null = readConsent(form);
  if (problem || !choice) {
    void reply
      .code(400)
      .type('text/html')
      .send(renderSandboxError(platformName, problem ?? CONSENT_CHOICE_PROBLEM));
    return null;
  }
  return choice;
}
