/** Small pieces the product pages share: addresses, the page title, a message carried over a navigation, thumbnails, prices. */
import { useState } from 'react';
import { usePageTitle } from '../ui';

export const productsUrl = (workspaceId: string) => `/workspace/${workspaceId}/products`;
export const productUrl = (workspaceId: string, productId: number | 'new') => `/workspace/${workspaceId}/products/${productId}`;

/** Sets the tab's title, so a page change is announced (the frame puts the focus on the page's heading). */
export function usePage(title: string) {
  usePageTitle(title);
}

/** The message carried over a navigation is the frame's, shared with the workspace pages. */
export { flash, useFlash } from '../ui';

/**
 * A price in its currency ("$19.99"). Display only: the amount is read as a number to format it; what is sent back is
 * always the decimal string the API gave.
 */
export function formatPrice(price: string, currency: string): string {
  try {
    return new Intl.NumberFormat(undefined, { style: 'currency', currency }).format(Number(price));
  } catch {
    return `${price} ${currency}`;
  }
}

/** Every ISO 4217 code the browser knows, with its name, for the currency select. */
export const CURRENCIES: { code: string; name: string }[] = (() => {
  const names = new Intl.DisplayNames(undefined, { type: 'currency' });
  return Intl.supportedValuesOf('currency').map((code) => ({ code, name: names.of(code) ?? code }));
})();

/** An image's thumbnail, or a neutral placeholder when there is none or it cannot be shown. Decorative: alt is empty. */
export function Thumb({ url, size = 'small' }: { url: string | null | undefined; size?: 'small' | 'large' }) {
  const [failed, setFailed] = useState(false);
  if (!url || failed) {
    return (
      <span className={`thumb thumb-${size} thumb-placeholder`} aria-hidden="true">
        <svg aria-hidden="true" viewBox="0 0 24 24" width="60%" height="60%" fill="none" stroke="currentColor" strokeWidth="1.5">
          <rect x="3" y="4" width="18" height="16" rx="2" />
          <circle cx="9" cy="10" r="2" />
          <path d="M3 17l5-5 4 4 3-3 6 6" />
        </svg>
      </span>
    );
  }
  return <img className={`thumb thumb-${size}`} src={url} alt="" loading="lazy" onError={() => setFailed(true)} />;
}
