import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

/** A message read out when it appears. */
export function Alert({
  kind = 'error',
  children,
}: {
  kind?: 'error' | 'info' | 'success';
  children: ComponentChildren;
}) {
  return (
    <p class={`alert ${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      {children}
    </p>
  );
}

/** A labelled form field; the label names the input for assistive technology and for tests. */
export function Field({
  label,
  id,
  hint,
  children,
}: {
  label: string;
  id: string;
  hint?: string;
  children: ComponentChildren;
}) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {children}
      {hint && (
        <small id={`${id}-hint`} class="hint">
          {hint}
        </small>
      )}
    </div>
  );
}

/**
 * A panel of list filters, a form named by `label`: submitting it runs `onFilter` (when given) and
 * never loads a page.
 */
export function FilterForm({
  label,
  onFilter,
  children,
}: {
  label: string;
  onFilter?: () => void;
  children: ComponentChildren;
}) {
  return (
    <form
      class="panel filters"
      aria-label={label}
      onSubmit={(event) => {
        event.preventDefault();
        onFilter?.();
      }}
    >
      {children}
    </form>
  );
}

/** A labelled date input (a UTC day, `YYYY-MM-DD`) of a filter form. */
export function DateField({
  label,
  id,
  value,
  onInput,
}: {
  label: string;
  id: string;
  value: string;
  onInput: (event: Event) => void;
}) {
  return (
    <Field label={label} id={id}>
      <input id={id} type="date" value={value} onInput={onInput} />
    </Field>
  );
}

export function formatDate(value: string | null | undefined): string {
  if (!value) return '—';
  return new Date(value).toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });
}

/** The value of a text input from its change event. */
export const inputValue = (event: Event) => (event.currentTarget as HTMLInputElement).value;

/**
 * Asks before something that cannot be undone (issue 39 §6): a modal `alertdialog` named by its
 * title, described by its text, with Cancel first (focused) and a confirm button named for the
 * action. Escape cancels. `confirmDisabled` holds the confirm button until a required field is filled.
 */
export function ConfirmDialog({
  id,
  title,
  confirmLabel,
  onConfirm,
  onCancel,
  confirmDisabled = false,
  destructive = true,
  children,
}: {
  id: string;
  title: string;
  confirmLabel: string;
  onConfirm: () => void;
  onCancel: () => void;
  confirmDisabled?: boolean;
  /** False for a confirmation that takes nothing away (resend, renew, correct): a plain button, not red. */
  destructive?: boolean;
  children: ComponentChildren;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);
  return (
    <dialog
      ref={ref}
      class="confirm"
      role="alertdialog"
      aria-modal="true"
      aria-labelledby={`${id}-title`}
      aria-describedby={`${id}-text`}
      onCancel={(event) => {
        event.preventDefault();
        onCancel();
      }}
    >
      <h2 id={`${id}-title`}>{title}</h2>
      <div id={`${id}-text`}>{children}</div>
      <div class="actions">
        {/* biome-ignore lint/a11y/noAutofocus: a dialog moves focus to its safe choice */}
        <button type="button" class="secondary" autoFocus onClick={onCancel}>
          Cancel
        </button>
        <button type="button" class={destructive ? 'danger' : undefined} disabled={confirmDisabled} onClick={onConfirm}>
          {confirmLabel}
        </button>
      </div>
    </dialog>
  );
}

/**
 * What a user whose role may not change a page sees there (issue 39 §7): the page's title and why
 * nothing can be changed, instead of forms and buttons the server would refuse.
 */
export function ReadOnlyNotice({ what }: { what: string }) {
  return (
    <p class="alert info" role="status">
      Only an owner can manage {what}. Ask an owner of this issuer to make the change.
    </p>
  );
}

/**
 * A roster file's text: UTF-8 when it is valid UTF-8, otherwise Windows-1252, the encoding older
 * Excel versions save "CSV" in (a "Zoë" would otherwise arrive as "Zo�").
 */
export async function readTextFile(file: Blob): Promise<string> {
  const bytes = await file.arrayBuffer();
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return new TextDecoder('windows-1252').decode(bytes);
  }
}

/** Saves `body` as a file named `name` through the browser's download, as a link with `download` would. */
export function saveFile(name: string, body: Blob): void {
  const url = URL.createObjectURL(body);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  // After the click has started the download; revoking at once can cancel it in some browsers.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
