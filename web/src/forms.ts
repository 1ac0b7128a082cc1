/**
 * The API's words turned into a person's: its 422 field messages are written for developers ("The name field must be
 * at least 1 characters."), its 401 and 429 are codes. The forms check what they can before sending (noValidate: the
 * browser's own bubbles come in the browser's language, vanish on the next click and look nothing like the messages
 * the API sends back), so both kinds of problem show the same way, under their field.
 */

const FIELD_WORDS: Record<string, string> = { name: 'name', email: 'email address', password: 'password' };

/** One field's messages from a 422, in plain words where the API's wording is known. */
export function humanFieldMessages(field: string, messages: string[]): string[] {
  const what = FIELD_WORDS[field] ?? field.replace(/_/g, ' ');
  const said = messages.map((message) => {
    const atLeast = /must be at least (\d+) characters/.exec(message);
    if (atLeast) return Number(atLeast[1]) <= 1 ? `Enter your ${what}.` : `Use at least ${atLeast[1]} characters.`;
    const atMost = /must not be greater than (\d+) characters/.exec(message);
    if (atMost) return `Use at most ${atMost[1]} characters.`;
    if (/has already been taken/.test(message) && field === 'email') return 'An account with this email address already exists.';
    if (/format is invalid|must be a valid email/.test(message))
      return field === 'email' ? 'Enter an email address like name@example.com.' : `Enter your ${what}.`;
    if (/field is required/.test(message)) return `Enter your ${what}.`;
    return message;
  });
  return [...new Set(said)];
}

/** "Wait 54 seconds", "Wait 2 minutes": how long a rate limit asks for, from its Retry-After. */
export function waitFor(seconds: number | null): string {
  if (seconds === null) return 'Wait a minute';
  if (seconds < 60) return `Wait ${seconds} ${seconds === 1 ? 'second' : 'seconds'}`;
  const minutes = Math.ceil(seconds / 60);
  return `Wait ${minutes} ${minutes === 1 ? 'minute' : 'minutes'}`;
}

/** A plausible email address: something@something.something, no spaces (the API has the last word). */
export const looksLikeEmail = (value: string) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value);
