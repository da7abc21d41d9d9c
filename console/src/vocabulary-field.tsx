import { useState } from 'preact/hooks';
import { Field } from './ui';
import { EXTENSION_CHOICE, vocabularyChoice } from './vocabularies';

/**
 * A term of an extensible OB 3.0 vocabulary: a select of its terms, "(not given)", and "Another term
 * (ext:)", which shows a text field for the `ext:` term itself. `value` is the term as the API takes
 * it ('' when none); the API checks an `ext:` term's shape and its message says what is wrong.
 */
export function VocabularyField({
  id,
  label,
  vocabulary,
  value,
  onChange,
  hint,
}: {
  id: string;
  label: string;
  vocabulary: readonly string[];
  value: string;
  onChange: (term: string) => void;
  hint?: string;
}) {
  const [choice, setChoice] = useState(vocabularyChoice(vocabulary, value));
  return (
    <>
      <Field label={label} id={id} hint={hint}>
        <select
          id={id}
          aria-describedby={hint ? `${id}-hint` : undefined}
          value={choice}
          onChange={(event) => {
            const chosen = (event.currentTarget as HTMLSelectElement).value;
            setChoice(chosen);
            if (chosen !== EXTENSION_CHOICE) onChange(chosen);
            else if (!value.startsWith(EXTENSION_CHOICE)) onChange(EXTENSION_CHOICE);
          }}
        >
          <option value="">(not given)</option>
          {vocabulary.map((term) => (
            <option key={term} value={term}>
              {term}
            </option>
          ))}
          <option value={EXTENSION_CHOICE}>Another term (ext:)</option>
        </select>
      </Field>
      {choice === EXTENSION_CHOICE && (
        <Field
          label={`${label}: extension term`}
          id={`${id}-ext`}
          hint="ext: and a name of letters, digits, dots, hyphens or underscores, such as ext:Apprenticeship."
        >
          <input
            id={`${id}-ext`}
            required
            maxLength={100}
            spellcheck={false}
            aria-describedby={`${id}-ext-hint`}
            value={value}
            onInput={(event) => onChange((event.currentTarget as HTMLInputElement).value)}
          />
        </Field>
      )}
    </>
  );
}
