/** The service's logger: JSON lines by pino, with nothing secret in them. */
import pino, { type DestinationStream, type Logger } from 'pino';
import type { Config } from './config.js';

/**
 * Builds the logger the service uses. Requests are logged by path only: query strings carry OAuth codes and states.
 * Fields that could hold a secret are redacted wherever they appear.
 */
export function createLogger(config: Pick<Config, 'logLevel'>, destination?: DestinationStream): Logger {
  return pino(
    {
      level: config.logLevel,
      serializers: {
        req: (req: { method: string; url: string; ip?: string }) => ({ method: req.method, path: req.url.split('?')[0], remoteAddress: req.ip }),
      },
      redact: { paths: ['*.authorization', '*.cookie', '*.password', '*.token', '*.access_token', '*.refresh_token', '*.client_secret'], censor: '[redacted]' },
    },
    destination,
  );
}
