/** "New workspace…": a modal dialog that creates a workspace (POST /workspaces, the caller its owner) and opens it. */
import { type FormEvent, useRef, useState } from 'react';
import { ApiError, api, unwrap } from '../api/client';
import { humanFieldMessages } from '../forms';
import { navigate } from '../router';
import { ErrorMessage, flash, lastWorkspace } from '../ui';

export function NewWorkspaceButton() {
  const dialog = useRef<HTMLDialogElement>(null);
  const input = useRef<HTMLInputElement>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const [busy, setBusy] = useState(false);

  function open() {
    setProblem(null);
    setError(null);
    dialog.current?.showModal();
    input.current?.focus();
  }

  async function create(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const name = String(new FormData(event.currentTarget).get('name') ?? '').trim();
    setError(null);
    setProblem(name ? null : 'Give the workspace a name, such as your shop’s or your team’s.');
    if (!name) return input.current?.focus();
    setBusy(true);
    try {
      const workspace = unwrap(await api.POST('/api/v1/workspaces', { body: { name } })).data;
      dialog.current?.close();
      lastWorkspace.set(workspace.id);
      flash.set(`The workspace “${workspace.name}” is created, and you are its owner. Connect a platform or invite people to it.`);
      navigate(`/workspace/${workspace.id}/dashboard`);
    } catch (caught) {
      const fields = caught instanceof ApiError ? caught.fields.name : undefined;
      if (fields) {
        setProblem(humanFieldMessages('name', fields).join(' '));
        input.current?.focus();
      } else setError(caught as Error);
    } finally {
      setBusy(false);
    }
  }

  return (
    <>
      <button type="button" onClick={open}>
        New workspace…
      </button>
      <dialog ref={dialog} className="dialog" aria-labelledby="new-workspace-title">
        <h2 id="new-workspace-title">New workspace</h2>
        <form onSubmit={(e) => void create(e)} noValidate>
          <p className="muted">A workspace has its own sites, catalogue, members and webhooks. You will be its owner.</p>
          {error && <ErrorMessage error={error} title="The workspace was not created" />}
          <div className="field">
            <label htmlFor="new-workspace-name">Name</label>
            <input
              id="new-workspace-name"
              name="name"
              ref={input}
              maxLength={255}
              autoComplete="off"
              aria-invalid={problem !== null}
              aria-describedby={problem ? 'new-workspace-name-error' : undefined}
            />
            {problem && (
              <p className="field-error" id="new-workspace-name-error">
                {problem}
              </p>
            )}
          </div>
          <div className="button-row">
            <button type="submit" className="primary" disabled={busy}>
              {busy ? 'Creating…' : 'Create workspace'}
            </button>
            <button type="button" onClick={() => dialog.current?.close()} disabled={busy}>
              Cancel
            </button>
          </div>
        </form>
      </dialog>
    </>
  );
}
