import { html, type Markup } from '../../core/html.js';
import type { EarnerClr } from './clr.service.js';

const dateFormat = new Intl.DateTimeFormat('en-GB', { dateStyle: 'long', timeZone: 'UTC' });
const shown = (iso: string) => dateFormat.format(new Date(iso));

/** The backpack's section of the earner's CLRs (completed pathways); nothing when there are none. */
export function clrSection(records: EarnerClr[]): Markup {
  if (records.length === 0) return html``;
  return html`<h2>Your learner records</h2>
<p>Each Comprehensive Learner Record (CLR 2.0) holds the signed badges of a pathway you completed.</p>
${records.map(
  (record) => html`<article class="badge" aria-label="${record.pathwayName}">
<div>
<h3>${record.pathwayName}</h3>
<p>${record.issuerName} · issued ${shown(record.validFrom)}${record.validUntil ? html` · valid until ${shown(record.validUntil)}` : ''}</p>
<p class="links"><a href="${record.credentialUrl}">CLR 2.0 credential</a></p>
</div>
</article>`,
)}`;
}
