/**
 * The editor's images: add by URL, upload a file (POST /products/{id}/images, once the product is saved), order by
 * dragging or with the move buttons, alt text, remove. The order and alt texts are saved with the product.
 */
import { type DragEvent, useRef, useState } from 'react';
import { api, inWorkspace, unwrap } from '../api/client';
import { UploadError } from '../ui';
import { type Draft, IMAGES_MAX, type ImageDraft, move, newKey } from './product-draft';
import { describedBy, type Errors, FieldError, messagesUnder, type Update } from './product-options';
import { Thumb } from './product-parts';

const ACCEPT = 'image/jpeg,image/png,image/webp,image/gif';

/** Uploads one file as multipart (a part named `file`); answers the stored image. */
async function uploadImage(workspaceId: string, productId: number, file: File) {
  const form = new FormData();
  form.append('file', file);
  return unwrap(
    await api.POST('/api/v1/products/{product_id}/images', {
      params: { path: { product_id: productId }, header: inWorkspace(workspaceId) },
      body: form as never,
    }),
  ).data;
}

export function ImagesEditor({
  workspaceId,
  productId,
  draft,
  update,
  errors,
  onUploaded,
}: {
  workspaceId: string;
  productId: number | null;
  draft: Draft;
  update: Update;
  errors: Errors;
  onUploaded: () => void;
}) {
  const images = draft.images;
  const [announcement, setAnnouncement] = useState('');
  const [dragFrom, setDragFrom] = useState<number | null>(null);
  const [dragOver, setDragOver] = useState<number | null>(null);
  const full = images.length >= IMAGES_MAX;

  const setImages = (change: (images: ImageDraft[]) => ImageDraft[]) => update((d) => ({ ...d, images: change(d.images) }));
  const reorder = (from: number, to: number, focusId?: (index: number) => string) => {
    if (to < 0 || to >= images.length || from === to) return;
    setImages((list) => move(list, from, to));
    setAnnouncement(`Image ${from + 1} moved to position ${to + 1} of ${images.length}.`);
    // The moved image's button keeps the focus; at an end, the one that still moves it.
    if (focusId) setTimeout(() => document.getElementById(focusId(to))?.focus(), 0);
  };
  const drop = (event: DragEvent, to: number) => {
    event.preventDefault();
    if (dragFrom !== null) reorder(dragFrom, to);
    setDragFrom(null);
    setDragOver(null);
  };

  return (
    <section className="card" aria-labelledby="product-images-heading">
      <h2 id="product-images-heading" tabIndex={-1}>
        Images{' '}
        <span className="muted small">
          ({images.length} of {IMAGES_MAX})
        </span>
      </h2>
      <p className="muted small">The first image is the main one. Drag an image, or use its move buttons, to change the order.</p>
      {messagesUnder(
        errors,
        'images',
        images.map((_, i) => `images.${i}`),
      ).map((m) => (
        <p className="field-error" key={m}>
          {m}
        </p>
      ))}
      <p className="visually-hidden" role="status" aria-live="polite">
        {announcement}
      </p>
      {images.length === 0 ? (
        <p className="empty">No images yet.</p>
      ) : (
        <ol className="image-list">
          {images.map((image, i) => {
            const altId = `product-images-${i}-alt`;
            const messages = messagesUnder(errors, `images.${i}`);
            const upId = (at: number) => (at === 0 ? `image-${images[i]!.key}-down` : `image-${images[i]!.key}-up`);
            const downId = (at: number) => (at === images.length - 1 ? `image-${images[i]!.key}-up` : `image-${images[i]!.key}-down`);
            return (
              <li
                key={image.key}
                className={`image-item${dragFrom === i ? ' dragging' : ''}${dragOver === i && dragFrom !== i ? ' drop-target' : ''}`}
                draggable
                onDragStart={(event) => {
                  event.dataTransfer.effectAllowed = 'move';
                  event.dataTransfer.setData('text/plain', String(i));
                  setDragFrom(i);
                }}
                onDragOver={(event) => {
                  event.preventDefault();
                  setDragOver(i);
                }}
                onDragLeave={() => setDragOver((over) => (over === i ? null : over))}
                onDrop={(event) => drop(event, i)}
                onDragEnd={() => {
                  setDragFrom(null);
                  setDragOver(null);
                }}
              >
                <span className="drag-handle" aria-hidden="true" title="Drag to reorder">
                  ⠿
                </span>
                <Thumb url={image.url} size="large" />
                <div className="image-fields">
                  <p className="image-position">
                    <strong>Image {i + 1}</strong>
                    {i === 0 && <span className="badge">Main image</span>}
                    {image.id === undefined && <span className="badge badge-warn">Not saved yet</span>}
                    {!image.uploaded && <span className="badge">From a URL</span>}
                  </p>
                  {!image.uploaded && (
                    <p className="muted small">Etsy and TikTok Shop take uploaded files only: upload this image to list it there.</p>
                  )}
                  <div className="field">
                    <label htmlFor={altId}>
                      Alt text <span className="visually-hidden">of image {i + 1}</span>
                    </label>
                    <input
                      id={altId}
                      value={image.alt}
                      maxLength={500}
                      placeholder="What the image shows, for people who cannot see it"
                      aria-invalid={messages.length > 0}
                      aria-describedby={describedBy(altId, messages)}
                      onChange={(e) => setImages((list) => list.map((img, k) => (k === i ? { ...img, alt: e.target.value } : img)))}
                    />
                    <FieldError id={altId} messages={messages.length ? messages : undefined} />
                  </div>
                  <div className="button-row">
                    <button type="button" id={`image-${image.key}-up`} disabled={i === 0} onClick={() => reorder(i, i - 1, upId)}>
                      {/* Named "Move image 2 up": the visible words are in the name, as speech input needs (WCAG 2.5.3). */}
                      <span aria-hidden="true">↑ </span>Move <span className="visually-hidden">image {i + 1} </span>up
                    </button>
                    <button
                      type="button"
                      id={`image-${image.key}-down`}
                      disabled={i === images.length - 1}
                      onClick={() => reorder(i, i + 1, downId)}
                    >
                      <span aria-hidden="true">↓ </span>Move <span className="visually-hidden">image {i + 1} </span>down
                    </button>
                    <button
                      type="button"
                      aria-label={`Remove image ${i + 1}`}
                      onClick={() => {
                        setImages((list) => list.filter((_, k) => k !== i));
                        setAnnouncement(`Image ${i + 1} removed. Save to keep the change.`);
                        setTimeout(() => document.getElementById('image-url')?.focus(), 0);
                      }}
                    >
                      Remove
                    </button>
                  </div>
                </div>
              </li>
            );
          })}
        </ol>
      )}
      <div className="image-add">
        <AddByUrl full={full} onAdd={(url) => setImages((list) => [...list, { key: newKey(), url, alt: '', uploaded: false }])} />
        <UploadImage workspaceId={workspaceId} productId={productId} full={full} onUploaded={onUploaded} />
      </div>
    </section>
  );
}

function AddByUrl({ full, onAdd }: { full: boolean; onAdd: (url: string) => void }) {
  const [url, setUrl] = useState('');
  const [error, setError] = useState<string | null>(null);
  function add(event: { preventDefault(): void }) {
    event.preventDefault();
    const value = url.trim();
    if (!/^https?:\/\/\S+$/i.test(value)) return setError('Give a public http or https address of the image.');
    setError(null);
    setUrl('');
    onAdd(value);
  }
  // A form of its own inside the product form is not allowed in HTML, so Enter is handled here.
  return (
    <div className="field">
      <label htmlFor="image-url">Add an image by URL</label>
      <div className="inline-input">
        <input
          id="image-url"
          type="url"
          value={url}
          placeholder="https://…"
          disabled={full}
          aria-invalid={!!error}
          aria-describedby={error ? 'image-url-error' : undefined}
          onChange={(e) => setUrl(e.target.value)}
          onKeyDown={(e) => e.key === 'Enter' && add(e)}
        />
        <button type="button" onClick={add} disabled={full}>
          Add image
        </button>
      </div>
      <FieldError id="image-url" messages={error ? [error] : undefined} />
    </div>
  );
}

function UploadImage({
  workspaceId,
  productId,
  full,
  onUploaded,
}: {
  workspaceId: string;
  productId: number | null;
  full: boolean;
  onUploaded: () => void;
}) {
  const input = useRef<HTMLInputElement>(null);
  const [busyWith, setBusyWith] = useState<string | null>(null);
  const [error, setError] = useState<Error | null>(null);
  async function upload(file: File) {
    if (productId === null) return;
    setBusyWith(file.name);
    setError(null);
    try {
      await uploadImage(workspaceId, productId, file);
      onUploaded();
    } catch (caught) {
      setError(caught as Error);
    } finally {
      setBusyWith(null);
      if (input.current) input.current.value = '';
    }
  }
  return (
    <div className="field">
      <span className="label">Or upload a file</span>
      <input
        ref={input}
        type="file"
        accept={ACCEPT}
        hidden
        tabIndex={-1}
        aria-hidden="true"
        onChange={(event) => {
          const file = event.currentTarget.files?.[0];
          if (file) void upload(file);
        }}
      />
      <div className="inline-input">
        <button
          type="button"
          aria-describedby="upload-hint"
          disabled={productId === null || full || busyWith !== null}
          onClick={() => input.current?.click()}
        >
          {busyWith ? `Uploading ${busyWith}…` : 'Upload an image…'}
        </button>
        {busyWith && <progress aria-label={`Uploading ${busyWith}`} />}
      </div>
      <p className="muted small" id="upload-hint">
        {productId === null
          ? 'Save the product first; then you can upload images to it.'
          : 'JPEG, PNG, WebP or GIF, at most 10 MB and 10,000 px a side. Uploaded at once; it is added as the last image.'}
      </p>
      {error && <UploadError error={error} />}
    </div>
  );
}
