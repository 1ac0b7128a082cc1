/**
 * Uploaded images: recognised by their bytes (never by name or declared type), measured, and named by the SHA-256 of
 * their bytes, so the same image is stored once and its URL never changes.
 */
import { createHash } from 'node:crypto';
import { imageSize } from 'image-size';
import { IMAGE_PIXELS_MAX, IMAGE_SIDE_PX_MAX, IMAGE_TYPES, type ImageExtension, type MediaExtension } from '../../domain/index.js';

export interface InspectedImage {
  readonly sha256: string;
  readonly extension: ImageExtension;
  readonly contentType: string;
  readonly width: number;
  readonly height: number;
  readonly sizeBytes: number;
}

/** image-size's names of the four accepted formats. */
const ACCEPTED: Record<string, ImageExtension> = { jpg: 'jpg', png: 'png', webp: 'webp', gif: 'gif' };

/** Why an upload is refused: not an image of the four formats, or more pixels than IMAGE_SIDE_PX_MAX and IMAGE_PIXELS_MAX allow. */
export type ImageRefusal = { readonly refused: 'format' } | { readonly refused: 'pixels'; readonly width: number; readonly height: number };

/**
 * The image's format and size, read from its header only (nothing is decoded), or why it is refused: not a JPEG, PNG,
 * WebP or GIF image it can measure, or a pixel flood (OWASP File Upload Cheat Sheet).
 */
export function inspectImage(bytes: Buffer): InspectedImage | ImageRefusal {
  let measured: ReturnType<typeof imageSize>;
  try {
    measured = imageSize(bytes);
  } catch {
    return { refused: 'format' };
  }
  const extension = measured.type ? ACCEPTED[measured.type] : undefined;
  if (!extension || !measured.width || !measured.height) return { refused: 'format' };
  const { width, height } = measured;
  if (width > IMAGE_SIDE_PX_MAX || height > IMAGE_SIDE_PX_MAX || width * height > IMAGE_PIXELS_MAX) {
    return { refused: 'pixels', width, height };
  }
  return {
    sha256: createHash('sha256').update(bytes).digest('hex'),
    extension,
    contentType: IMAGE_TYPES[extension],
    width,
    height,
    sizeBytes: bytes.length,
  };
}

/** What a refused upload's 422 says on `file`. */
export function imageRefusalMessage(refusal: ImageRefusal): string {
  if (refusal.refused === 'format') return 'The file must be a JPEG, PNG, WebP or GIF image.';
  const side = IMAGE_SIDE_PX_MAX.toLocaleString('en-US');
  const megapixels = (IMAGE_PIXELS_MAX / 1_000_000).toLocaleString('en-US');
  const found = `${refusal.width.toLocaleString('en-US')} x ${refusal.height.toLocaleString('en-US')}`;
  return `The image must be at most ${side} pixels a side and ${megapixels} megapixels in all; this one is ${found} pixels.`;
}

/** The public path of stored bytes: /media/<sha256>.<extension>. */
export const mediaPath = (image: { sha256: string; extension: string }) => `/media/${image.sha256}.${image.extension}`;

/** A /media/ file name: the hash and an accepted extension (an image's, or a PDF's), or null. */
export function parseMediaName(name: string): { sha256: string; extension: MediaExtension } | null {
  const match = /^([0-9a-f]{64})\.(jpg|png|webp|gif|pdf)$/.exec(name);
  return match ? { sha256: match[1]!, extension: match[2] as MediaExtension } : null;
}
