/**
 * Files a listing names (a certificate TikTok Shop asks for): a PDF or an image, recognised by their bytes (a PDF by
 * its `%PDF-` header, an image as a product's is), never by name or declared type, and stored as the catalogue's
 * images are: once per content, named by the SHA-256 of their bytes, served at /media/<sha256>.<extension>.
 */
import { createHash } from 'node:crypto';
import type { Db } from '../../db/client.js';
import { storeMedia } from '../../db/media.repo.js';
import { IMAGE_BYTES_MAX, MEDIA_TYPES, type MediaExtension, PDF_BYTES_MAX } from '../../domain/index.js';
import { invalidField } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { imageRefusalMessage, inspectImage, mediaPath } from './images.js';

/** What a stored file is: its name (`<sha256>.<extension>`, what a listing attribute gives), type and size. */
export interface StoredFile {
  readonly sha256: string;
  readonly extension: MediaExtension;
  readonly contentType: string;
  readonly sizeBytes: number;
  readonly width: number | null;
  readonly height: number | null;
}

const MB = 1024 * 1024;
/** What a PDF starts with (ISO 32000-1 §7.5.2, the file header). */
const PDF_MAGIC = '%PDF-';

/** The file as stored, or why it is refused (the 422's message on `file`). */
export function inspectFile(bytes: Buffer): StoredFile | { refused: string } {
  if (bytes.subarray(0, PDF_MAGIC.length).toString('latin1') === PDF_MAGIC) {
    if (bytes.length > PDF_BYTES_MAX) return { refused: `A PDF must not be greater than ${PDF_BYTES_MAX / MB} MB.` };
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    return { sha256, extension: 'pdf', contentType: MEDIA_TYPES.pdf, sizeBytes: bytes.length, width: null, height: null };
  }
  const image = inspectImage(bytes);
  if (!('refused' in image))
    return image.sizeBytes > IMAGE_BYTES_MAX ? { refused: `An image must not be greater than ${IMAGE_BYTES_MAX / MB} MB.` } : image;
  if (image.refused === 'pixels') return { refused: imageRefusalMessage(image) };
  return { refused: 'The file must be a PDF or a JPEG, PNG, WebP or GIF image.' };
}

/** A stored file as the API shows it: the name a listing attribute gives, and its public URL. */
export const presentFile = (file: StoredFile, appUrl: string) => ({
  name: `${file.sha256}.${file.extension}`,
  url: `${appUrl}${mediaPath(file)}`,
  content_type: file.contentType,
  size_bytes: file.sizeBytes,
});

export function createFilesService(deps: { db: Db; clock: Clock; appUrl: string }) {
  return {
    /**
     * Stores an uploaded file (a PDF or an image) once by its hash; a refused one is a 422 on `file` and stores nothing.
     * It belongs to no product: a listing names it by its name (a TikTok Shop certificate, `certification:<id>`).
     */
    async upload(bytes: Buffer) {
      const inspected = inspectFile(bytes);
      if ('refused' in inspected) throw invalidField('file', inspected.refused);
      await storeMedia(deps.db, { ...inspected, bytes }, deps.clock.now());
      return presentFile(inspected, deps.appUrl);
    },
  };
}

export type FilesService = ReturnType<typeof createFilesService>;
