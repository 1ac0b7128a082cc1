/** APP_SECRET and ENCRYPTION_KEY: from the environment, or outside production generated once and kept in DATA_DIR (DESIGN §1). */
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEncryptionKey, type Config } from './config.js';

export type ResolvedConfig = Config & { readonly appSecret: string; readonly encryptionKey: Buffer };

/** Fills the secrets the environment left unset; `warn` is told which ones were generated or reused and where. */
export function resolveSecrets(config: Config, warn: (message: string) => void): ResolvedConfig {
  if (config.appSecret !== null && config.encryptionKey !== null) return config as ResolvedConfig;
  const file = join(config.dataDir, 'secrets.json');
  const stored = readStoredSecrets(file);
  const appSecret = config.appSecret ?? stored?.appSecret ?? randomBytes(32).toString('base64url');
  const encryptionKey = config.encryptionKey ?? (stored ? parseEncryptionKey(stored.encryptionKey) : null) ?? randomBytes(32);
  if (!stored) {
    mkdirSync(config.dataDir, { recursive: true });
    writeFileSync(file, JSON.stringify({ appSecret, encryptionKey: encryptionKey.toString('hex') }, null, 2), { mode: 0o600 });
    chmodSync(file, 0o600);
  }
  const missing = [config.appSecret === null && 'APP_SECRET', config.encryptionKey === null && 'ENCRYPTION_KEY'].filter(Boolean).join(' and ');
  warn(`${missing} not set: using the development secret kept in ${file}. Set them in production.`);
  return Object.freeze({ ...config, appSecret, encryptionKey });
}

function readStoredSecrets(file: string): { appSecret: string; encryptionKey: string } | null {
  if (!existsSync(file)) return null;
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as { appSecret?: unknown; encryptionKey?: unknown };
  if (typeof parsed.appSecret !== 'string' || typeof parsed.encryptionKey !== 'string') throw new Error(`${file} is not a secrets file written by Storelink`);
  return { appSecret: parsed.appSecret, encryptionKey: parsed.encryptionKey };
}
