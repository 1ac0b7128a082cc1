/** What every outbound call shares, to platforms and webhook receivers alike (DESIGN §8). */

export type Fetch = typeof globalThis.fetch;

/**
 * An HTTP status that says "not now" rather than "no": server errors and throttling. Such a failure is retried and
 * never taken as the platform refusing a code or a grant.
 */
export function isPassingFailure(status: number): boolean {
  return status >= 500 || status === 429;
}

/**
 * The signal of one outbound call: aborted at its own deadline (a TimeoutError, as AbortSignal.timeout) or when `stop`
 * is (with stop's reason), whichever comes first. This is AbortSignal.any([stop, AbortSignal.timeout(ms)]) by hand:
 * on Node 20 AbortSignal.any keeps every signal it makes referenced from a long-lived source until that source aborts
 * (nodejs/node#55351; still so on Node 20.20: a million calls left a million entries on the source, 40 to 70 MB),
 * whereas this listens on `stop` only until the deadline.
 */
export function deadlineSignal(timeoutMs: number, stop: AbortSignal): AbortSignal {
  const controller = new AbortController();
  const onStop = () => {
    clearTimeout(timer);
    controller.abort(stop.reason);
  };
  const timer = setTimeout(() => {
    stop.removeEventListener('abort', onStop);
    controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
  }, timeoutMs);
  timer.unref();
  if (stop.aborted) onStop();
  else stop.addEventListener('abort', onStop, { once: true });
  return controller.signal;
}
