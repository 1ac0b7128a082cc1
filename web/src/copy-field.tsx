/** A value shown once (an invitation link, a webhook's signing secret): read-only, selected on focus, with Copy and Done. */
import { type ReactNode, useState } from 'react';

export function ShownOnce({
  id,
  label,
  value,
  children,
  onDone,
}: {
  id: string;
  label: string;
  value: string;
  /** What the value is and why it is shown only now. */
  children: ReactNode;
  onDone: () => void;
}) {
  const [copied, setCopied] = useState(false);
  async function copy() {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(true);
    } catch {
      // Clipboard access can be refused (no permission, not a secure origin); the value stays there to select.
      setCopied(false);
    }
  }
  return (
    <div className="new-token" role="status" aria-live="polite">
      {children}
      <div className="token-value">
        <label htmlFor={id} className="visually-hidden">
          {label}
        </label>
        <input id={id} readOnly value={value} onFocus={(e) => e.currentTarget.select()} />
        <button type="button" onClick={() => void copy()}>
          {copied ? 'Copied' : 'Copy'}
        </button>
        <button type="button" onClick={onDone}>
          Done
        </button>
      </div>
    </div>
  );
}
