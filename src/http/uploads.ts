/** A multipart upload's one file part, as the upload routes read it (a product's image, a listing's file). */
import type { FastifyRequest } from 'fastify';
import { IMAGE_ALT_LENGTH_MAX } from '../domain/index.js';
import { AppError } from '../errors.js';

/**
 * A refusal before the body's end leaves its rest unread: the connection is closed after the answer (as with the
 * import's 413), so a kept-alive connection does not wait behind the rest until a 408.
 */
export const CLOSE = { connection: 'close' };

const MB = 1024 * 1024;

/**
 * The one file part, named `file`, and an optional `alt` field of an upload; anything else is 422 on `file`. `noun`
 * names the file in the messages; `bytesMax` is the multipart limit the route registered, said in the 422 past it.
 */
export async function readUpload(
  request: FastifyRequest,
  { noun, bytesMax }: { noun: string; bytesMax: number },
): Promise<{ bytes: Buffer; alt: string | null }> {
  const refuse = (message: string, headers: Record<string, string> = {}) =>
    new AppError('validation_failed', { fields: { file: [message] }, headers });
  const refuseAlt = (message: string) => new AppError('validation_failed', { fields: { alt: [message] }, headers: CLOSE });
  if (!request.isMultipart()) throw refuse('The file field is required: send multipart/form-data with one part named file.');
  let bytes: Buffer | null = null;
  let alt: string | null = null;
  try {
    for await (const part of request.parts()) {
      if (part.type === 'file') {
        if (part.fieldname !== 'file') throw refuse(`Send the ${noun} in a part named file.`, CLOSE);
        bytes = await part.toBuffer();
      } else if (part.fieldname === 'alt' && typeof part.value === 'string') {
        if (part.value.length > IMAGE_ALT_LENGTH_MAX)
          throw refuseAlt(`The alt must not be greater than ${IMAGE_ALT_LENGTH_MAX} characters.`);
        // PostgreSQL's text cannot hold NUL: the schema refuses it in a JSON body, and this is a multipart field's only check.
        if (part.value.includes('\u0000')) throw refuseAlt('The alt field must not contain a NUL character.');
        alt = part.value;
      }
    }
  } catch (error) {
    if (error instanceof AppError) throw error;
    const code = (error as { code?: string }).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE') throw refuse(`The file must not be greater than ${bytesMax / MB} MB.`, CLOSE);
    if (code === 'FST_FILES_LIMIT' || code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT')
      throw refuse('Send one file part, named file.', CLOSE);
    throw refuse('The upload could not be read as multipart/form-data.', CLOSE);
  }
  if (!bytes || bytes.length === 0) throw refuse('The file field is required.');
  return { bytes, alt };
}
