/** The bytes of a product's stored images, for platforms that take image files (Etsy). */
import type { Db } from '../../db/client.js';
import { findMedia } from '../../db/media.repo.js';
import type { ImageBytes } from './draft.js';

export function storedImageBytes(db: Db): ImageBytes {
  return async (sha256) => {
    const row = await findMedia(db, sha256);
    // An image row keeps its media row (a foreign key): a missing one is a broken database, not a seller's mistake.
    if (!row) throw new Error(`the stored image ${sha256} is missing`);
    return { bytes: row.bytes, contentType: row.contentType };
  };
}
