/** APP_SECRET and ENCRYPTION_KEY: from the environment, or outside production generated once and kept in DATA_DIR (DESIGN §1). */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Config, ConfigError, parseEncryptionKey } from './config.js';

export type ResolvedConfig = Config & { readonly appSecret: string; readonly encryptionKey: Buffer };

interface StoredSecrets {
  appSecret: string;
  encryptionKey: string;
}

/**
 * Fills the secrets the environment left unset from `DATA_DIR/secrets.json`, generating the file (mode 0600) on first
 * use. The file only ever holds generated values, never ones given in the environment. A file that cannot be read is
 * a ConfigError rather than a silent new key: credentials sealed under the old key would be lost.
 */
export function resolveSecrets(config: Config, warn: (message: string) => void): ResolvedConfig {
  if (config.appSecret !== null && config.encryptionKey !== null) return config as ResolvedConfig;
  const file = join(config.dataDir, 'secrets.json');
  let stored = readStoredSecrets(file);
  if (!stored) {
    stored = { appSecret: randomBytes(32).toString('base64url'), encryptionKey: randomBytes(32).toString('hex') };
    mkdirSync(config.dataDir, { recursive: true });
    writeFileSync(file, `${JSON.stringify(stored, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  }
  const missing = [config.appSecret === null && 'APP_SECRET', config.encryptionKey === null && 'ENCRYPTION_KEY']
    .filter(Boolean)
    .join(' and ');
  warn(`${missing} not set: using the development value kept in ${file}. Set them in production.`);
  return Object.freeze({
    ...config,
    appSecret: config.appSecret ?? stored.appSecret,
    encryptionKey: config.encryptionKey ?? parseEncryptionKey(stored.encryptionKey)!,
  });
}

function readStoredSecrets(file: string): StoredSecrets | null {
  if (!existsSync(file)) return null;
  const problem = (what: string) =>
    new ConfigError([`DATA_DIR: ${file} ${what}; fix or remove it (removing it loses credentials sealed under its key)`]);
  let parsed: { appSecret?: unknown; encryptionKey?: unknown };
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8')) as typeof parsed;
  } catch {
    throw problem('is not valid JSON');
  }
  if (typeof parsed.appSecret !== 'string' || parsed.appSecret.length < 32) throw problem('has no usable appSecret');
  if (typeof parsed.encryptionKey !== 'string' || !parseEncryptionKey(parsed.encryptionKey)) throw problem('has no usable encryptionKey');
  return { appSecret: parsed.appSecret, encryptionKey: parsed.encryptionKey };
}
