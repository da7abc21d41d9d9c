import { html, type Markup } from '../../core/html.js';
import { DEFAULT_LANGUAGE, fill, formatDate, type Language } from '../../core/locale.js';
import type { EarnerClr } from './clr.service.js';
import { clrMessages } from './messages/index.js';

/** The backpack's section of the earner's CLRs (completed pathways); nothing when there are none. */
export function clrSection(records: EarnerClr[], language: Language = DEFAULT_LANGUAGE): Markup {
  if (records.length === 0) return html``;
  const words = clrMessages(language);
  const date = (iso: string) => ({ date: formatDate(language, iso) });
  return html`<h2>${words.heading}</h2>
<p>${words.lead}</p>
${records.map(
  (record) => html`<article class="badge" aria-label="${record.pathwayName}">
<div>
<h3>${record.pathwayName}</h3>
<p>${record.issuerName} · ${fill(words.issued, date(record.validFrom))}${record.validUntil ? html` · ${fill(words.validUntil, date(record.validUntil))}` : ''}</p>
<p class="links"><a href="${record.credentialUrl}">${words.credential}</a></p>
</div>
</article>`,
)}`;
}
