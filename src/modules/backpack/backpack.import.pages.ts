import { html, type Markup, safeUrl } from '../../core/html.js';
import { DEFAULT_LANGUAGE, fill, type Language } from '../../core/locale.js';
import type { ImportedBadge } from './backpack.import.js';
import { backpackDocument, csrfField, shownDate } from './backpack.layout.js';
import { backpackMessages } from './messages/index.js';

/** The import form: a URL, JSON or JWS pasted, or a baked image chosen. */
export function importPage(nonce: string, csrf: string, error?: string, language: Language = DEFAULT_LANGUAGE): string {
  const words = backpackMessages(language).imports;
  return backpackDocument(
    words.title,
    nonce,
    html`<h1>${words.heading}</h1>
<p>${words.lead}</p>
${error ? html`<p class="error" role="alert">${error}</p>` : ''}
<form method="post" action="/backpack/imports" enctype="multipart/form-data">
${csrfField(csrf)}
<label for="source">${words.source}</label>
<textarea id="source" name="source" rows="6"></textarea>
<label for="image">${words.image}</label>
<input id="image" name="image" type="file" accept="image/png,image/svg+xml">
<div><button type="submit">${words.submit}</button></div>
</form>
<p><a href="/backpack">${words.back}</a></p>`,
    language,
  );
}

function importCard(badge: ImportedBadge, csrf: string, language: Language): Markup {
  const words = backpackMessages(language);
  const image = safeUrl(badge.imageUrl);
  const date = (iso: string) => ({ date: shownDate(iso, language) });
  const imported = fill(words.imports.imported, {
    version: badge.spec === 'ob2' ? '2.0' : '3.0',
    date: shownDate(badge.checkedAt, language),
  });
  return html`<article class="badge" id="import-${badge.id}" aria-label="${badge.name}">
${image ? html`<img src="${image}" alt="">` : ''}
<div>
<h3>${badge.name}</h3>
<p>${badge.issuerName}${badge.issuedOn ? html` · ${fill(words.badge.issued, date(badge.issuedOn))}` : ''}${badge.expiresOn ? html` · ${fill(words.badge.expires, date(badge.expiresOn))}` : ''}</p>
<p class="status status-${badge.status}">${fill(words.badge.status, { status: words.check[badge.status] })}</p>
${badge.reason ? html`<p>${badge.reason}</p>` : ''}
<p>${imported}${badge.sourceUrl && safeUrl(badge.sourceUrl) ? html` · <a href="${safeUrl(badge.sourceUrl) ?? ''}">${words.imports.original}</a>` : ''}</p>
<form class="inline" method="post" action="/backpack/imports/${badge.id}/check">${csrfField(csrf)}<button type="submit" class="secondary">${words.imports.checkAgain}</button></form>
<form class="inline" method="post" action="/backpack/imports/${badge.id}/delete">${csrfField(csrf)}<button type="submit" class="secondary">${words.imports.remove}</button></form>
</div>
</article>`;
}

/** The backpack's section of imported badges, each with its status as last checked. */
export function importedSection(imports: ImportedBadge[], csrf: string, language: Language = DEFAULT_LANGUAGE): Markup {
  const words = backpackMessages(language).imports;
  return html`<h2>${words.section}</h2>
${imports.length === 0 ? html`<p>${words.none}</p>` : imports.map((badge) => importCard(badge, csrf, language))}
<p><a href="/backpack/import">${words.link}</a></p>`;
}
