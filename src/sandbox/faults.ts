/** Faults a test can make a simulator's endpoint answer with : 500, a time-out, a reset, malformed JSON, or a late answer. */
import type { FastifyReply } from 'fastify';

export const FAULTS = ['error', 'timeout', 'reset', 'malformed', 'slow'] as const;
export type Fault = (typeof FAULTS)[number];
export const FAULTY_ENDPOINTS = ['token', 'identity'] as const;
export type FaultyEndpoint = (typeof FAULTY_ENDPOINTS)[number];

export interface SandboxFaults {
  set(track: string, endpoint: FaultyEndpoint, fault: Fault | null, options?: { delayMs?: number }): void;
  clear(): void;
  /** Answers with the fault set for the endpoint and returns true; false when none is set or it is `slow` (after the delay, if the caller still waits). */
  apply(track: string, endpoint: FaultyEndpoint, reply: FastifyReply, errorBody: unknown): Promise<boolean>;
}

export function createSandboxFaults(): SandboxFaults {
  const faults = new Map<string, { fault: Fault; delayMs: number }>();
  return {
    set(track, endpoint, fault, options = {}) {
      if (fault === null) faults.delete(`${track}:${endpoint}`);
      else faults.set(`${track}:${endpoint}`, { fault, delayMs: options.delayMs ?? 30_000 });
    },
    clear: () => faults.clear(),
    async apply(track, endpoint, reply, errorBody) {
      const entry = faults.get(`${track}:${endpoint}`);
      if (!entry) return false;
      switch (entry.fault) {
        case 'error':
          await reply.code(500).send(errorBody);
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
