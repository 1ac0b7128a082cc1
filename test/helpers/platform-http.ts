/** A platform's HTTP played from recorded answers, and the check of a PlatformError, for the adapters' own tests. */
import { PlatformError, type PlatformFailure } from '../../src/platforms/contracts/errors.js';
import type { PlatformAnswer, PlatformHttp } from '../../src/platforms/http.js';

/** A PlatformHttp that answers each call with the next of `answers`, records what was sent, and fails a call too many. */
export function fakeHttp(...answers: PlatformAnswer[]) {
  const sent: Array<{ url: string; init: Parameters<PlatformHttp['request']>[1] }> = [];
  const http: PlatformHttp = {
    request: async (url, init) => {
      sent.push({ url, init });
      const answer = answers.shift();
      if (!answer) throw new Error(`unexpected call to ${url}`);
      return answer;
    },
  };
  return { http, sent };
}

/** For assert.throws and assert.rejects: a PlatformError for `reason`, with `message` (exactly, or matching) if given. */
export const rejects = (reason: PlatformFailure, message?: string | RegExp) => (error: unknown) =>
  error instanceof PlatformError &&
  error.reason === reason &&
  (message === undefined || (typeof message === 'string' ? error.message === message : message.test(error.message)));
