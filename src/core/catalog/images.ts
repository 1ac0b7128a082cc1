/**
 * Uploaded images: recognised by their bytes (never by name or declared type), measured, and named by the SHA-256 of
 * their bytes, so the same image is stored once and its URL never changes.
 */
import { createHash } from 'node:crypto';
import { imageSize } from 'image-size';
import { IMAGE_TYPES, type ImageExtension } from '../../domain/index.js';

export interface InspectedImage {
  readonly sha256: string;
  readonly extension: ImageExtension;
  readonly contentType: string;
  readonly width: number;
  readonly height: number;
  readonly sizeBytes: number;
}

/** The largest width or height: PNG's own limit (its header has room for twice as much), and what an integer column holds. */
const DIMENSION_MAX = 2 ** 31 - 1;

/** image-size's names of the four accepted formats. */
const ACCEPTED: Record<string, ImageExtension> = { jpg: 'jpg', png: 'png', webp: 'webp', gif: 'gif' };

/** The image's format and size, or null when the bytes are not a JPEG, PNG, WebP or GIF image it can measure. */
export function inspectImage(bytes: Buffer): InspectedImage | null {
  let measured: ReturnType<typeof imageSize>;
  try {
    measured = imageSize(bytes);
  } catch {
    return null;
  }
  const extension = measured.type ? ACCEPTED[measured.type] : undefined;
  if (!extension || !measured.width || !measured.height || measured.width > DIMENSION_MAX || measured.height > DIMENSION_MAX) return null;
  return {
    sha256: createHash('sha256').update(bytes).digest('hex'),
    extension,
    contentType: IMAGE_TYPES[extension],
    width: measured.width,
    height: measured.height,
    sizeBytes: bytes.length,
  };
}

/** The public path of stored bytes: /media/<sha256>.<extension>. */
export const mediaPath = (image: { sha256: string; extension: string }) => `/media/${image.sha256}.${image.extension}`;

/** A /media/ file name: the hash and an accepted extension, or null. */
export function parseMediaName(name: string): { sha256: string; extension: ImageExtension } | null {
  const match = /^([0-9a-f]{64})\.(jpg|png|webp|gif)$/.exec(name);
  return match ? { sha256: match[1]!, extension: match[2] as ImageExtension } : null;
}
