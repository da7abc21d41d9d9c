/**
 * Language tags as the console shows and takes them (issue 45): the console itself stays English,
 * but shows and edits every language the issuer's badges are written in. A tag is BCP 47 (RFC 5646);
 * the service decides whether it is well formed and says why not, so any tag can be typed.
 */

/** The languages offered first: the service's page and email languages, then other common ones. */
export const PAGE_LANGUAGES = ['en', 'fr', 'de', 'es', 'nl'] as const;
const SUGGESTED = [...PAGE_LANGUAGES, 'it', 'pt', 'pl', 'sv', 'da', 'fi', 'ga', 'cy', 'af', 'zu', 'ja', 'zh-Hans'];

const names = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'none' });

/** "French (fr)", "Swiss High German (de-CH)"; the tag alone when the browser has no name for it. */
export function languageLabel(tag: string): string {
  let name: string | undefined;
  try {
    name = names.of(tag);
  } catch {
    name = undefined;
  }
  return name ? `${name} (${tag})` : tag;
}

/**
 * A text input for a language tag with the common ones suggested (a datalist): a registrar picks
 * "fr" from the list or types "de-CH". `hintId` is the id of the text that describes it.
 */
export function LanguageInput({
  id,
  value,
  onInput,
  hintId,
  required = false,
}: {
  id: string;
  value: string;
  onInput: (value: string) => void;
  hintId?: string;
  required?: boolean;
}) {
  return (
    <>
      <input
        id={id}
        list={`${id}-suggestions`}
        autocomplete="off"
        spellcheck={false}
        maxLength={64}
        required={required}
        aria-describedby={hintId}
        value={value}
        onInput={(event) => onInput((event.currentTarget as HTMLInputElement).value)}
      />
      <datalist id={`${id}-suggestions`}>
        {SUGGESTED.map((tag) => (
          <option key={tag} value={tag}>
            {languageLabel(tag)}
          </option>
        ))}
      </datalist>
    </>
  );
}
