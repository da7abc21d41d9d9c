import { html, type Markup, safeUrl } from '../../core/html.js';
import type { ImportedBadge } from './backpack.import.js';
import { backpackDocument, csrfField, shownDate } from './backpack.layout.js';

const STATUS_WORDS: Record<ImportedBadge['status'], string> = {
  verified: 'verified',
  expired: 'expired',
  revoked: 'revoked by its issuer',
  suspended: 'suspended by its issuer',
  unverified: 'not verified',
};

/** The import form: a URL, JSON or JWS pasted, or a baked image chosen. */
export function importPage(nonce: string, csrf: string, error?: string): string {
  return backpackDocument(
    'Import a badge',
    nonce,
    html`<h1>Import a badge from another platform</h1>
<p>Paste the address of an Open Badges 2.0 assertion, or an Open Badges 3.0 credential (its address, its JSON or its compact JWS), or choose a badge image with the badge baked in (PNG or SVG). The backpack checks it with its issuer before showing it.</p>
${error ? html`<p class="error" role="alert">${error}</p>` : ''}
<form method="post" action="/backpack/imports" enctype="multipart/form-data">
${csrfField(csrf)}
<label for="source">Badge address, JSON or JWS</label>
<textarea id="source" name="source" rows="6"></textarea>
<label for="image">Or a baked badge image</label>
<input id="image" name="image" type="file" accept="image/png,image/svg+xml">
<div><button type="submit">Import</button></div>
</form>
<p><a href="/backpack">Back to your backpack</a></p>`,
  );
}

function importCard(badge: ImportedBadge, csrf: string): Markup {
  const image = safeUrl(badge.imageUrl);
  return html`<article class="badge" id="import-${badge.id}" aria-label="${badge.name}">
${image ? html`<img src="${image}" alt="">` : ''}
<div>
<h3>${badge.name}</h3>
<p>${badge.issuerName}${badge.issuedOn ? html` · issued ${shownDate(badge.issuedOn)}` : ''}${badge.expiresOn ? html` · expires ${shownDate(badge.expiresOn)}` : ''}</p>
<p class="status status-${badge.status}">Status: ${STATUS_WORDS[badge.status]}</p>
${badge.reason ? html`<p>${badge.reason}</p>` : ''}
<p>Imported (Open Badges ${badge.spec === 'ob2' ? '2.0' : '3.0'}), checked ${shownDate(badge.checkedAt)}${badge.sourceUrl && safeUrl(badge.sourceUrl) ? html` · <a href="${safeUrl(badge.sourceUrl) ?? ''}">original</a>` : ''}</p>
<form class="inline" method="post" action="/backpack/imports/${badge.id}/check">${csrfField(csrf)}<button type="submit" class="secondary">Check again</button></form>
<form class="inline" method="post" action="/backpack/imports/${badge.id}/delete">${csrfField(csrf)}<button type="submit" class="secondary">Remove</button></form>
</div>
</article>`;
}

/** The backpack's section of imported badges, each with its status as last checked. */
export function importedSection(imports: ImportedBadge[], csrf: string): Markup {
  return html`<h2>Imported badges</h2>
${imports.length === 0 ? html`<p>You have not imported any badges from other platforms.</p>` : imports.map((badge) => importCard(badge, csrf))}
<p><a href="/backpack/import">Import a badge</a></p>`;
}
