/**
 * Upload Product Image (listings.md §2.4, [T3]) and Upload Product File (`POST /product/202309/files/upload`, "Upload
 * non-image files, such as PDF or video … submit certifications or reports", multipart `data` and `name`, answer
 * `{id, url, name, format}`; the sandbox takes PDFs only, videos being no listing's): multipart with the file in part `data` and `use_case`; the answer
 * `{uri, url, width, height, use_case}` names an image TikTok now hosts, the only kind a product may use. The bytes are
 * not kept, only what TikTok answers about them; the sandbox serves one placeholder picture at every hosted URL.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { imageSize } from 'image-size';
import type { SandboxContext } from '../context.js';
import type { TikTokError } from './errors.js';
import { PRODUCT_ERRORS as E } from './product-errors.js';
import type { ProductGuard } from './product-guard.js';
import type { HostedFile, HostedImage, ProductStore } from './product-store.js';

const IMAGE_BYTES_MAX = 10 * 1024 * 1024;
/** Upload Product File: "Max PDF size: 20 MB". */
export const FILE_BYTES_MAX = 20 * 1024 * 1024;
/** A file name as Upload Product File wants it: its extension, no spaces, no other period, no symbol at its start. */
const FILE_NAME = /^[A-Za-z0-9][^\s.]*\.[A-Za-z0-9]+$/;
const USE_CASES = ['MAIN_IMAGE', 'ATTRIBUTE_IMAGE', 'DESCRIPTION_IMAGE', 'CERTIFICATION_IMAGE', 'SIZE_CHART_IMAGE'];
/** image-size's names of the formats TikTok takes (JPG/JPEG/PNG/WEBP/BMP; HEIC is refused here as unsupported). */
const FORMATS = new Set(['jpg', 'png', 'webp', 'bmp']);
/** A 16x16 PNG: what the sandbox serves for every hosted image. */
const PLACEHOLDER_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAIAAACQkWg2AAAAIUlEQVR42mP4v98dK5KP348VMYxqoIkGXBK4DBrVQBMNALxyoRB9qZcRAAAAAElFTkSuQmCC',
  'base64',
);

/** The file and use case of the upload, or the error refusing it. */
async function readUpload(request: FastifyRequest): Promise<{ bytes: Buffer | null; useCase: string } | TikTokError> {
  let bytes: Buffer | null = null;
  let useCase = 'MAIN_IMAGE';
  try {
    for await (const part of request.parts()) {
      if (part.type === 'file' && part.fieldname === 'data') bytes = await part.toBuffer();
      else if (part.type === 'file') await part.toBuffer();
      else if (part.fieldname === 'use_case') useCase = String(part.value);
    }
  } catch (error) {
    return (error as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE' ? E.imageTooBig : E.imageInvalid;
  }
  return { bytes, useCase };
}

/** The image's dimensions, or the error refusing it (listings.md §2.4: 100–20,000 px; a main image 300–4,000 px). */
function measure(bytes: Buffer, useCase: string): { width: number; height: number } | TikTokError {
  let size: { width?: number; height?: number; type?: string };
  try {
    size = imageSize(bytes);
  } catch {
    return E.imageInvalid;
  }
  if (!size.type || !FORMATS.has(size.type)) return E.imageUnsupported;
  const { width = 0, height = 0 } = size;
  const [min, max] = useCase === 'MAIN_IMAGE' ? [300, 4_000] : [100, 20_000];
  return [width, height].every((side) => side >= min && side <= max) ? { width, height } : E.imageDimensions;
}

export function registerProductImages(app: FastifyInstance, context: SandboxContext, guard: ProductGuard, store: ProductStore) {
  app.post('/product/202309/images/upload', async (request, reply) => {
    const admitted = await guard.admit(request, reply, { operation: 'upload_image', fault: 'images', multipart: true });
    if (!admitted) return reply;
    const upload = await readUpload(request);
    if (Array.isArray(upload)) return guard.fail(reply, upload as TikTokError);
    const { bytes, useCase } = upload as { bytes: Buffer | null; useCase: string };
    if (!bytes) return guard.fail(reply, E.fieldInvalid('data', 'is required: send the image in a part named data.'));
    if (!USE_CASES.includes(useCase)) return guard.fail(reply, E.fieldInvalid('use_case', `must be one of ${USE_CASES.join(', ')}.`));
    if (bytes.length > IMAGE_BYTES_MAX) return guard.fail(reply, E.imageTooBig);
    const size = measure(bytes, useCase);
    if (Array.isArray(size)) return guard.fail(reply, size as TikTokError);
    const key = randomBytes(16).toString('hex');
    const image: HostedImage = {
      uri: `tos-maliva-i-o3syd03w52-us/${key}`,
      url: `${context.sandboxUrl}/tiktok-shop/images/${key}`,
      ...(size as { width: number; height: number }),
      use_case: useCase,
    };
    store.images.set(image.uri, image);
    return guard.succeed(reply, image, 'images');
  });

  app.post('/product/202309/files/upload', async (request, reply) => {
    const admitted = await guard.admit(request, reply, { operation: 'upload_file', fault: 'images', multipart: true });
    if (!admitted) return reply;
    let bytes: Buffer | null = null;
    let name: string | null = null;
    try {
      for await (const part of request.parts()) {
        if (part.type === 'file' && part.fieldname === 'data') bytes = await part.toBuffer();
        else if (part.type === 'file') await part.toBuffer();
        else if (part.fieldname === 'name') name = String(part.value);
      }
    } catch {
      return guard.fail(reply, E.fileNotPdf);
    }
    if (!bytes) return guard.fail(reply, E.fieldInvalid('data', 'is required: send the file in a part named data.'));
    if (bytes.length > FILE_BYTES_MAX || bytes.subarray(0, 5).toString('latin1') !== '%PDF-') return guard.fail(reply, E.fileNotPdf);
    if (name !== null && !FILE_NAME.test(name)) return guard.fail(reply, E.fileName);
    const key = randomBytes(16).toString('hex');
    const file: HostedFile = {
      id: `v${key}`,
      url: `${context.sandboxUrl}/tiktok-shop/files/${key}`,
      name: name ?? 'file.pdf',
      format: 'PDF',
    };
    store.files.set(file.id, file);
    return guard.succeed(reply, file, 'images');
  });

  // TikTok's image host, as the sandbox plays it: any hosted image is the placeholder.
  app.get('/images/:key', async (request, reply) => {
    const uri = `tos-maliva-i-o3syd03w52-us/${(request.params as { key: string }).key}`;
    if (!store.images.has(uri)) return reply.code(404).send();
    return reply.header('cache-control', 'public, max-age=86400').type('image/png').send(PLACEHOLDER_PNG);
  });
}
