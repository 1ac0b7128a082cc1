/**
 * Faults a test can make a simulator's endpoint answer with: transport faults (500, a time-out, a reset, malformed JSON,
 * a late answer) and the platform's own error classes (a refused grant, the operator's misconfigured app, a passing
 * failure, throttling with `Retry-After`), each in the platform's own words, which every simulator supplies.
 */
import type { FastifyReply } from 'fastify';

export const FAULTS = [
  'error',
  'timeout',
  'reset',
  'malformed',
  'slow',
  'refused',
  'misconfigured',
  'passing',
  'throttled',
  'ghost',
] as const;
export type Fault = (typeof FAULTS)[number];
/**
 * `token` and `identity` on every track; `listings`, `listing`, `inventory` and `images` are the Etsy simulator's
 * listing endpoints (src/sandbox/etsy/): `listings` createDraftListing and getListingsByShop, `listing` a listing's
 * read, update and delete, `inventory` and `images` those of a listing. `advertising` is every Sponsored Products call
 * of the Amazon Ads simulator (`/sp/*`) and `reports` its reporting calls (`/reporting/reports`).
 */
export const FAULTY_ENDPOINTS = ['token', 'identity', 'listings', 'listing', 'inventory', 'images', 'advertising', 'reports'] as const;
export type FaultyEndpoint = (typeof FAULTY_ENDPOINTS)[number];
/**
 * `ghost` is a write that happens although its answer is Etsy's 500 (listings.md §1.11), so only endpoints that write
 * can have it; the route itself answers it after the write (`ghosts`). On `advertising` the batch is applied, then the
 * Ads API's 500 answered (a lost answer).
 */
export const GHOSTLY_ENDPOINTS: readonly FaultyEndpoint[] = ['listings', 'listing', 'inventory', 'images', 'advertising'];

/** One answer of the platform: its HTTP status and JSON body. */
export interface PlatformAnswer {
  status: number;
  body: unknown;
}

/**
 * How the simulated platform words each error class: `error` is its 500 body; `refused` says the grant is gone
 * (`invalid_grant`, TikTok's 36004xxx), `misconfigured` that the app's own credentials are wrong (`invalid_client`,
 * Etsy's missing shared secret, TikTok's 36009004), `passing` a failure worth retrying (`server_error`,
 * `temporarily_unavailable`, TikTok's 36009003 or 36009007) and `throttled` a rate limit, sent with `Retry-After`.
 */
export interface FaultAnswers {
  error: unknown;
  refused: PlatformAnswer;
  misconfigured: PlatformAnswer;
  passing: PlatformAnswer;
  throttled: PlatformAnswer;
}

export interface FaultOptions {
  /** How late `slow` answers (default 30 s). */
  delayMs?: number;
  /** The `Retry-After` seconds `throttled` sends (default 30). */
  retryAfterSeconds?: number;
}

export interface SandboxFaults {
  set(track: string, endpoint: FaultyEndpoint, fault: Fault | null, options?: FaultOptions): void;
  clear(): void;
  /** Answers with the fault set for the endpoint and returns true; false when none is set or it is `slow` (after the delay, if the caller still waits). */
  apply(track: string, endpoint: FaultyEndpoint, reply: FastifyReply, answers: FaultAnswers): Promise<boolean>;
  /** True when the endpoint's fault is `ghost`: the route does its work, then answers as `error` would. */
  ghosts(track: string, endpoint: FaultyEndpoint): boolean;
}

export function createSandboxFaults(): SandboxFaults {
  const faults = new Map<string, { fault: Fault; delayMs: number; retryAfterSeconds: number }>();
  return {
    set(track, endpoint, fault, options = {}) {
      if (fault === 'ghost' && !GHOSTLY_ENDPOINTS.includes(endpoint)) throw new Error(`${endpoint} does not write, so it cannot ghost`);
      if (fault === null) faults.delete(`${track}:${endpoint}`);
      else
        faults.set(`${track}:${endpoint}`, {
          fault,
          delayMs: options.delayMs ?? 30_000,
          retryAfterSeconds: options.retryAfterSeconds ?? 30,
        });
    },
    clear: () => faults.clear(),
    ghosts: (track, endpoint) => faults.get(`${track}:${endpoint}`)?.fault === 'ghost',
    async apply(track, endpoint, reply, answers) {
      const entry = faults.get(`${track}:${endpoint}`);
      if (!entry) return false;
      switch (entry.fault) {
        case 'ghost':
          // Answered by the route after its write.
          return false;
        case 'error':
          await reply.code(500).send(answers.error);
          return true;
        case 'refused':
        case 'misconfigured':
        case 'passing': {
          const answer = answers[entry.fault];
          await reply.code(answer.status).send(answer.body);
          return true;
        }
        case 'throttled':
          await reply.code(answers.throttled.status).header('retry-after', String(entry.retryAfterSeconds)).send(answers.throttled.body);
          return true;
        case 'malformed':
          await reply.code(200).type('application/json').send('{"access_token": "trunc');
          return true;
        case 'reset':
          reply.hijack();
          reply.raw.socket?.destroy();
          return true;
        case 'timeout':
          // Never answers; the caller's deadline is what ends the request.
          reply.hijack();
          return true;
        case 'slow': {
          // Answers late, unless the caller hung up first (then there is no one to answer and no timer to keep).
          let timer: NodeJS.Timeout | undefined;
          const hungUp = await new Promise<boolean>((resolve) => {
            timer = setTimeout(() => resolve(false), entry.delayMs);
            reply.raw.once('close', () => resolve(true));
          });
          clearTimeout(timer);
          if (hungUp) reply.hijack();
          return hungUp;
        }
      }
    },
  };
}
