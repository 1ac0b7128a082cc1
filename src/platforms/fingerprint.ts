/** What a part of a listing was when the platform last took it: equal prints, nothing to send. */
import { createHash } from 'node:crypto';

export const fingerprint = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('base64url').slice(0, 22);
