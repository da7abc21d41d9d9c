import { html, type Markup, safeUrl } from '../../core/html.js';
import type { Collection, PublicCollection } from './backpack.collections.js';
import { backpackDocument, csrfField, shownDate } from './backpack.layout.js';
import type { BackpackBadge } from './backpack.service.js';

/**
 * The backpack's collections: each with its badges (a Remove button each), a choice of the
 * earner's other badges to add, Make public / Make private (with the public page's address) and
 * Delete; and a form to make a new one. Every form carries the session's CSRF token.
 */
export function collectionsSection(collections: Collection[], badges: BackpackBadge[], csrf: string): Markup {
  const byId = new Map(badges.map((badge) => [badge.credentialId, badge]));
  return html`<h2>Collections</h2>
${collections.length === 0 ? html`<p>Group your badges into collections; a collection can have a public page.</p>` : ''}
${collections.map((collection) => {
  const action = `/backpack/collections/${collection.id}`;
  const others = badges.filter((badge) => !collection.credentialIds.includes(badge.credentialId));
  return html`<section class="badge" aria-label="Collection ${collection.name}"><div>
<h3>${collection.name}</h3>
${
  collection.publicId
    ? html`<p>Public: <a href="/collections/${collection.publicId}">its public page</a></p>`
    : html`<p>Private: only you see it.</p>`
}
<ul>${collection.credentialIds.map((id) => {
    const badge = byId.get(id);
    return badge
      ? html`<li>${badge.name} (${badge.issuerName}) <form class="inline" method="post" action="${action}/remove">${csrfField(csrf)}<input type="hidden" name="credentialId" value="${id}"><button type="submit" class="secondary">Remove</button></form></li>`
      : '';
  })}</ul>
${
  others.length > 0
    ? html`<form method="post" action="${action}/add">${csrfField(csrf)}<label for="add-${collection.id}">Add a badge to ${collection.name}</label>
<select id="add-${collection.id}" name="credentialId">${others.map((badge) => html`<option value="${badge.credentialId}">${badge.name} (${badge.issuerName})</option>`)}</select>
<button type="submit" class="secondary">Add</button></form>`
    : ''
}
<form class="inline" method="post" action="${action}/visibility">${csrfField(csrf)}<input type="hidden" name="public" value="${collection.publicId ? 'false' : 'true'}"><button type="submit">${collection.publicId ? 'Make private' : 'Make public'}</button></form>
<form class="inline" method="post" action="${action}/delete">${csrfField(csrf)}<button type="submit" class="danger">Delete collection</button></form>
</div></section>`;
})}
<form method="post" action="/backpack/collections">${csrfField(csrf)}<label for="collection-name">New collection</label>
<input id="collection-name" name="name" type="text" required maxlength="100">
<button type="submit">Create collection</button></form>`;
}

/** A public collection: its name, the earner's partial name and its badges, each linking to its verification page. */
export function publicCollectionPage(nonce: string, collection: PublicCollection): string {
  return backpackDocument(
    collection.name,
    nonce,
    html`<h1>${collection.name}</h1>
${collection.earner ? html`<p>Badges of ${collection.earner}</p>` : ''}
${collection.badges.length === 0 ? html`<p>This collection has no badges.</p>` : ''}
${collection.badges.map((badge) => {
  const image = safeUrl(badge.imageUrl);
  return html`<article class="badge" aria-label="${badge.name}">
${image ? html`<img src="${image}" alt="">` : ''}
<div><h2>${badge.name}</h2><p>${badge.issuerName} · issued ${shownDate(badge.issuedOn)}</p>
<p><a href="${badge.verifyUrl}">Verify this badge</a></p></div></article>`;
})}`,
  );
}

export function collectionGonePage(nonce: string): string {
  return backpackDocument(
    'Not found',
    nonce,
    html`<h1>This collection is not public</h1><p>Its owner made it private, or the address is wrong.</p>`,
  );
}
