/**
 * Inline confirmations (role "alertdialog") and where the focus goes around them: Cancel, the safe choice, has it when
 * one opens; Escape cancels; once it closes the focus is back on the button that opened it, or, when that button is
 * gone (a revoked token's row, a disconnected site's Disconnect), on what the page shows instead.
 */
import { type KeyboardEvent, type ReactNode, useEffect, useRef } from 'react';

/** The ref to put on the opening button, and `focusNext(pick)`: after the next renders, the focus goes to `pick()`'s element. */
export function useFocusReturn<T extends HTMLElement = HTMLButtonElement>() {
  const opener = useRef<T>(null);
  const pending = useRef<(() => HTMLElement | null | undefined) | null>(null);
  // After every render: the element may appear only once the page has loaded again.
  useEffect(() => {
    const element = pending.current?.();
    if (!element) return;
    pending.current = null;
    element.focus();
  });
  return {
    opener,
    /** Focus `pick()` (the opener by default) as soon as a render has put it on the page. */
    focusNext: (pick: () => HTMLElement | null | undefined = () => opener.current) => {
      pending.current = pick;
    },
  };
}

export function Confirm({
  id,
  children,
  confirmLabel,
  busyLabel,
  busy = false,
  tone = 'danger',
  onConfirm,
  onCancel,
}: {
  id: string;
  children: ReactNode;
  confirmLabel: string;
  busyLabel?: string;
  busy?: boolean;
  tone?: 'danger' | 'neutral';
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const cancel = useRef<HTMLButtonElement>(null);
  useEffect(() => cancel.current?.focus(), []);
  const cancelOnEscape = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key !== 'Escape' || busy) return;
    event.stopPropagation();
    onCancel();
  };
  return (
    <div className={tone === 'danger' ? 'confirm' : 'confirm neutral'} role="alertdialog" aria-labelledby={id} onKeyDown={cancelOnEscape}>
      <p id={id}>{children}</p>
      <div className="button-row">
        <button type="button" className={tone === 'danger' ? 'danger' : 'primary'} onClick={onConfirm} disabled={busy}>
          {busy && busyLabel ? busyLabel : confirmLabel}
        </button>
        <button type="button" ref={cancel} onClick={onCancel} disabled={busy}>
          Cancel
        </button>
      </div>
    </div>
  );
}
