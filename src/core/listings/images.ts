/** The bytes of stored media: a product's images, for platforms that take image files (Etsy), and a listing's files. */
import type { Db } from '../../db/client.js';
import { findMedia } from '../../db/media.repo.js';
import type { ImageBytes } from './draft.js';

export function storedImageBytes(db: Db): ImageBytes {
  return async (sha256) => {
    const row = await findMedia(db, sha256);
    return row && { bytes: row.bytes, contentType: row.contentType, extension: row.extension };
  };
}
