/** The thin I/O half of Login with Amazon: both Amazon adapters exchange and refresh through it. */
import type { Clock } from '../../lib/clock.js';
import type { TokenSet } from '../contracts/connect.js';
import { type PlatformHttp, readAnswer } from '../http.js';
import { buildLwaCodeGrant, buildLwaRefreshGrant } from './requests.js';
import { parseLwaTokenResponse } from './responses.js';

export interface LwaClient {
  exchangeCode(code: string, redirectUri: string): Promise<TokenSet>;
  refreshToken(refreshToken: string): Promise<TokenSet>;
}

/** `tokenUrl` is the region's `/auth/o2/token` (platforms.md §4.1), or a simulator's. */
export function createLwaClient(
  config: { tokenUrl: string; clientId: string; clientSecret: string },
  deps: { http: PlatformHttp; clock: Clock },
): LwaClient {
  const client = { clientId: config.clientId, clientSecret: config.clientSecret };
  const post = (form: Record<string, string>) => deps.http.request(config.tokenUrl, { method: 'POST', form });
  return {
    async exchangeCode(code, redirectUri) {
      const answer = await post(buildLwaCodeGrant({ ...client, code, redirectUri }));
      return readAnswer(answer, (status, body) => parseLwaTokenResponse(status, body, deps.clock.now()));
    },
    async refreshToken(refreshToken) {
      const answer = await post(buildLwaRefreshGrant({ ...client, refreshToken }));
      return readAnswer(answer, (status, body) => parseLwaTokenResponse(status, body, deps.clock.now(), refreshToken));
    },
  };
}
