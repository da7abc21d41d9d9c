import { html, type Markup, safeUrl } from '../../core/html.js';
import { DEFAULT_LANGUAGE, fill, type Language } from '../../core/locale.js';
import type { Collection, PublicCollection } from './backpack.collections.js';
import { backpackDocument, csrfField, shownDate } from './backpack.layout.js';
import type { BackpackBadge } from './backpack.service.js';
import { backpackMessages } from './messages/index.js';

/**
 * The backpack's collections: each with its badges (a Remove button each), a choice of the
 * earner's other badges to add, Make public / Make private (with the public page's address) and
 * Delete; and a form to make a new one. Every form carries the session's CSRF token.
 */
export function collectionsSection(
  collections: Collection[],
  badges: BackpackBadge[],
  csrf: string,
  language: Language = DEFAULT_LANGUAGE,
): Markup {
  const words = backpackMessages(language).collections;
  const byId = new Map(badges.map((badge) => [badge.credentialId, badge]));
  return html`<h2>${words.heading}</h2>
${collections.length === 0 ? html`<p>${words.empty}</p>` : ''}
${collections.map((collection) => {
  const action = `/backpack/collections/${collection.id}`;
  const others = badges.filter((badge) => !collection.credentialIds.includes(badge.credentialId));
  return html`<section class="badge" aria-label="${fill(words.label, { name: collection.name })}"><div>
<h3>${collection.name}</h3>
${
  collection.publicId
    ? html`<p>${words.public} <a href="/collections/${collection.publicId}">${words.publicLink}</a></p>`
    : html`<p>${words.private}</p>`
}
<ul>${collection.credentialIds.map((id) => {
    const badge = byId.get(id);
    return badge
      ? html`<li>${badge.name} (${badge.issuerName}) <form class="inline" method="post" action="${action}/remove">${csrfField(csrf)}<input type="hidden" name="credentialId" value="${id}"><button type="submit" class="secondary">${words.remove}</button></form></li>`
      : '';
  })}</ul>
${
  others.length > 0
    ? html`<form method="post" action="${action}/add">${csrfField(csrf)}<label for="add-${collection.id}">${fill(words.addLabel, { name: collection.name })}</label>
<select id="add-${collection.id}" name="credentialId">${others.map((badge) => html`<option value="${badge.credentialId}">${badge.name} (${badge.issuerName})</option>`)}</select>
<button type="submit" class="secondary">${words.add}</button></form>`
    : ''
}
<form class="inline" method="post" action="${action}/visibility">${csrfField(csrf)}<input type="hidden" name="public" value="${collection.publicId ? 'false' : 'true'}"><button type="submit">${collection.publicId ? words.makePrivate : words.makePublic}</button></form>
<form class="inline" method="post" action="${action}/delete">${csrfField(csrf)}<button type="submit" class="danger">${words.delete}</button></form>
</div></section>`;
})}
<form method="post" action="/backpack/collections">${csrfField(csrf)}<label for="collection-name">${words.newLabel}</label>
<input id="collection-name" name="name" type="text" required maxlength="100">
<button type="submit">${words.create}</button></form>`;
}

/** A public collection: its name, the earner's partial name and its badges, each linking to its verification page. */
export function publicCollectionPage(
  nonce: string,
  collection: PublicCollection,
  language: Language = DEFAULT_LANGUAGE,
): string {
  const all = backpackMessages(language);
  const words = all.collections;
  return backpackDocument(
    collection.name,
    nonce,
    html`<h1>${collection.name}</h1>
${collection.earner ? html`<p>${fill(words.earner, { name: collection.earner })}</p>` : ''}
${collection.badges.length === 0 ? html`<p>${words.noBadges}</p>` : ''}
${collection.badges.map((badge) => {
  const image = safeUrl(badge.imageUrl);
  return html`<article class="badge" aria-label="${badge.name}">
${image ? html`<img src="${image}" alt="">` : ''}
<div><h2>${badge.name}</h2><p>${badge.issuerName} · ${fill(all.badge.issued, { date: shownDate(badge.issuedOn, language) })}</p>
<p><a href="${badge.verifyUrl}">${words.verify}</a></p></div></article>`;
})}`,
    language,
  );
}

export function collectionGonePage(nonce: string, language: Language = DEFAULT_LANGUAGE): string {
  const words = backpackMessages(language).collections;
  return backpackDocument(
    words.goneTitle,
    nonce,
    html`<h1>${words.goneHeading}</h1><p>${words.goneBody}</p>`,
    language,
  );
}
