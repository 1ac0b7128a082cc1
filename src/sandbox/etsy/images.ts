/**
 * A listing's images (listings.md §1.5): uploadListingImage (multipart: `image`, `rank`, `alt_text`), getListingImages
 * and deleteListingImage. The bytes must be a JPEG, PNG, GIF or WebP image; they are not kept, only what Etsy answers
 * about them.
 */
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { EtsyGuard } from './guard.js';
import type { ListingStore, StoredListing } from './listing-store.js';
import { presentImage } from './present.js';

/** ASSUMPTION: Etsy's documents give no upload size limit here; 20 MB keeps the sandbox bounded. */
const IMAGE_BYTES_MAX = 20 * 1024 * 1024;
/** Etsy's `alt_text` limit and its 20 images per listing (listings.md §1.4, §1.5). */
const ALT_TEXT_MAX = 500;
const IMAGES_MAX = 20;

/** The image format of the bytes by their magic numbers, with the dimensions a PNG or GIF header gives; null if not an image. */
function imageOf(bytes: Buffer): { width: number | null; height: number | null } | null {
  const starts = (hex: string, at = 0) => bytes.subarray(at, at + hex.length / 2).toString('hex') === hex;
  if (starts('89504e470d0a1a0a') && bytes.length >= 24) return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  if (starts('474946383761') || starts('474946383961'))
    return bytes.length >= 10 ? { width: bytes.readUInt16LE(6), height: bytes.readUInt16LE(8) } : null;
  if (starts('ffd8ff') || (starts('52494646') && starts('57454250', 8))) return { width: null, height: null };
  return null;
}

interface Upload {
  bytes: Buffer | null;
  fields: Record<string, string>;
}

/** The parts of the upload; a string when the body cannot be read as Etsy's multipart form. */
async function readUpload(request: FastifyRequest): Promise<Upload | string> {
  if (!request.isMultipart()) return 'The request must be multipart/form-data with the image in a part named image.';
  const upload: Upload = { bytes: null, fields: {} };
  try {
    for await (const part of request.parts()) {
      if (part.type === 'file' && part.fieldname === 'image') upload.bytes = await part.toBuffer();
      else if (part.type === 'file') return `Unexpected file part ${part.fieldname}.`;
      else upload.fields[part.fieldname] = String(part.value);
    }
  } catch (error) {
    const code = (error as { code?: string }).code;
    return code === 'FST_REQ_FILE_TOO_LARGE' ? 'The image is too large.' : 'The upload could not be read as multipart/form-data.';
  }
  return upload;
}

/** The problem with an upload's fields, or null; `rank` is from 1, `overwrite` replaces the image at that rank. */
function uploadProblem(upload: Upload, listing: StoredListing): string | null {
  const { rank, alt_text: alt, overwrite } = upload.fields;
  if (!upload.bytes) return 'image is required.';
  if (!imageOf(upload.bytes)) return 'The image must be a JPEG, PNG, GIF or WebP file.';
  if (rank !== undefined && !/^[0-9]{1,2}$/.test(rank)) return 'rank must be a positive integer.';
  if (alt !== undefined && alt.length > ALT_TEXT_MAX) return `alt_text cannot be longer than ${ALT_TEXT_MAX} characters.`;
  if (listing.images.length >= IMAGES_MAX && overwrite !== 'true') return `A listing can have at most ${IMAGES_MAX} images.`;
  return null;
}

function addImage(store: ListingStore, listing: StoredListing, upload: Upload, created: number) {
  const { width, height } = imageOf(upload.bytes!)!;
  const rank = Math.min(Math.max(Number(upload.fields.rank ?? listing.images.length + 1), 1), listing.images.length + 1);
  const image = {
    listing_image_id: store.nextId('image'),
    url_base: store.imageBase,
    listing_id: listing.listing_id,
    rank,
    alt_text: upload.fields.alt_text ?? null,
    full_width: width,
    full_height: height,
    created_timestamp: Math.floor(created / 1000),
  };
  const replaced = upload.fields.overwrite === 'true' && rank <= listing.images.length ? 1 : 0;
  listing.images.splice(rank - 1, replaced, image);
  listing.images.forEach((each, i) => void (each.rank = i + 1));
  return image;
}

export function registerImages(app: FastifyInstance, guard: EtsyGuard, store: ListingStore, now: () => number) {
  const path = '/v3/application/shops/:shopId/listings/:listingId/images';
  const ownListing = (request: FastifyRequest, reply: FastifyReply): StoredListing | null => {
    const { shopId, listingId } = request.params as { shopId: string; listingId: string };
    const listing = /^[0-9]{1,15}$/.test(listingId) ? store.get(Number(listingId)) : undefined;
    if (listing && String(listing.shop_id) === shopId) return listing;
    void reply.code(404).send({ error: `Could not find a listing with listing_id = ${listingId}` });
    return null;
  };
  const admit = (request: FastifyRequest, reply: FastifyReply, operation: string, scope: string) =>
    guard.admitGrant(request, reply, { operation, fault: 'images', scope, shopId: (request.params as { shopId: string }).shopId });

  // Multipart bodies are taken by the upload alone: every other sandbox route stays form or JSON.
  app.register(async (uploads) => {
    await uploads.register(multipart, { limits: { fileSize: IMAGE_BYTES_MAX, files: 1, fields: 5, parts: 6 } });
    uploads.post(path, async (request, reply) => {
      if (!(await admit(request, reply, 'uploadListingImage', 'listings_w'))) return reply;
      const listing = ownListing(request, reply);
      if (!listing) return reply;
      const upload = await readUpload(request);
      const problem = typeof upload === 'string' ? upload : uploadProblem(upload, listing);
      if (problem) return reply.code(400).send({ error: problem });
      const image = addImage(store, listing, upload as Upload, now());
      return guard.answer(reply, 'images', 201, presentImage(image));
    });
  });

  app.get(path, async (request, reply) => {
    if (!(await admit(request, reply, 'getListingImages', 'listings_r'))) return reply;
    const listing = ownListing(request, reply);
    if (!listing) return reply;
    return guard.answer(reply, 'images', 200, { count: listing.images.length, results: listing.images.map(presentImage) });
  });

  app.delete(`${path}/:imageId`, async (request, reply) => {
    if (!(await admit(request, reply, 'deleteListingImage', 'listings_w'))) return reply;
    const listing = ownListing(request, reply);
    if (!listing) return reply;
    const imageId = Number((request.params as { imageId: string }).imageId);
    const index = listing.images.findIndex((image) => image.listing_image_id === imageId);
    if (index < 0) return reply.code(404).send({ error: `Could not find an image with listing_image_id = ${imageId}` });
    listing.images.splice(index, 1);
    listing.images.forEach((each, i) => void (each.rank = i + 1));
    return guard.answer(reply, 'images', 204);
  });
}
