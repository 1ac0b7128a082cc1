/**
 * A listing attribute of type `file` (TikTok Shop's certificates): the seller uploads a PDF or an image (POST /files)
 * and the attribute takes the name the upload answers; the file attached is linked, and can be replaced or removed.
 */
import { type ReactNode, useState } from 'react';
import { api, inWorkspace, unwrap } from '../api/client';
import { UploadError } from '../ui';

const ACCEPT = 'application/pdf,image/jpeg,image/png,image/webp,image/gif';

/** Uploads one file as multipart (a part named `file`); answers its name, what the attribute gives. */
async function uploadFile(workspaceId: string, file: File): Promise<string> {
  const form = new FormData();
  form.append('file', file);
  return unwrap(await api.POST('/api/v1/files', { params: { header: inWorkspace(workspaceId) }, body: form as never })).data.name;
}

export function FileAttributeField({
  id,
  label,
  workspaceId,
  value,
  onChange,
}: {
  id: string;
  label: ReactNode;
  workspaceId: string;
  value: string;
  onChange: (value: string) => void;
}) {
  const [busyWith, setBusyWith] = useState<string | null>(null);
  const [error, setError] = useState<Error | null>(null);
  async function upload(input: HTMLInputElement) {
    const file = input.files?.[0];
    if (!file) return;
    setBusyWith(file.name);
    setError(null);
    try {
      onChange(await uploadFile(workspaceId, file));
    } catch (caught) {
      setError(caught as Error);
    } finally {
      setBusyWith(null);
      input.value = '';
    }
  }
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {value && (
        <p className="small" id={`${id}-attached`}>
          Attached:{' '}
          <a href={`/media/${value}`} target="_blank" rel="noreferrer">
            {value.endsWith('.pdf') ? 'the PDF' : 'the image'}
          </a>{' '}
          <button type="button" className="link-button" onClick={() => onChange('')}>
            Remove
          </button>
        </p>
      )}
      <input
        id={id}
        type="file"
        accept={ACCEPT}
        disabled={busyWith !== null}
        aria-describedby={`${id}-hint`}
        onChange={(event) => void upload(event.currentTarget)}
      />
      {busyWith && <progress aria-label={`Uploading ${busyWith}`} />}
      <p className="muted small hint" id={`${id}-hint`}>
        A PDF of at most 20 MB, or a JPEG, PNG, WebP or GIF image of at most 10 MB. {value ? 'Choose another to replace it.' : ''}
      </p>
      {error && <UploadError error={error} />}
    </div>
  );
}
