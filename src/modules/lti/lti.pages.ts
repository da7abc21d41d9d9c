import { html, Markup } from '../../core/html.js';
import { DEFAULT_LANGUAGE, fill, formatLocale, formatNumber, type Language } from '../../core/locale.js';
import { PATHS } from './lti.constants.js';
import type { InstructorNotice, LaunchView } from './lti.service.js';
import { type LtiMessages, ltiMessages } from './messages/index.js';

/*
 * The pages the LMS shows in its frame (or new window): server-rendered like the verification page,
 * no script but the nonce'd few lines that post the deep linking response and close registration.
 */

const STYLE = `
body{font:16px/1.5 system-ui,sans-serif;margin:0;padding:1.5rem;color:#1f2933;background:#fff}
main{max-width:44rem;margin:0 auto}h1{font-size:1.4rem;margin:0 0 1rem}
button{font:inherit;padding:.5rem 1rem;border:1px solid #1d4ed8;background:#1d4ed8;color:#fff;border-radius:.375rem;cursor:pointer;margin:.25rem 0}
button.secondary{background:#fff;color:#1d4ed8}
fieldset{border:1px solid #cbd2d9;border-radius:.375rem;margin:1rem 0;padding:.75rem 1rem}
label{display:block;margin:.25rem 0}input[type=number]{font:inherit;width:6rem;padding:.25rem}
table{border-collapse:collapse;width:100%;margin:1rem 0}th,td{text-align:left;padding:.375rem;border-bottom:1px solid #e4e7eb}
.notice{background:#ecfdf5;border:1px solid #10b981;padding:.5rem 1rem;border-radius:.375rem}
.muted{color:#52606d}a{color:#1d4ed8}img.qr{width:12rem;height:12rem}
`;

/** The policy of these pages: framed by any LMS, forms posted to `formAction` only. */
export function ltiCsp(nonce: string, formAction = "'self'"): string {
  return [
    "default-src 'none'",
    `style-src 'nonce-${nonce}'`,
    `script-src 'nonce-${nonce}'`,
    'img-src data:',
    `form-action ${formAction}`,
    'frame-ancestors *',
    "base-uri 'none'",
  ].join('; ');
}

function layout(
  title: string,
  nonce: string,
  body: Markup,
  script: string | null = null,
  language: Language = DEFAULT_LANGUAGE,
): string {
  return html`<!doctype html>
<html lang="${language}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title><style nonce="${nonce}">${new Markup(STYLE)}</style></head>
<body><main>${body}</main>${script === null ? '' : html`<script nonce="${nonce}">${new Markup(script)}</script>`}</body></html>`
    .value;
}

export function messagePage(
  title: string,
  message: string,
  nonce: string,
  language: Language = DEFAULT_LANGUAGE,
): string {
  return layout(title, nonce, html`<h1>${title}</h1><p>${message}</p>`, null, language);
}

export function registeredPage(platformName: string, nonce: string, language: Language = DEFAULT_LANGUAGE): string {
  const words = ltiMessages(language).registered;
  // LTI-DR 1.0 §3.6 "Step 4: Registration Completed and Activation": the tool tells its opener
  // (a window or the frame's parent) that it is done, and the platform closes it.
  return layout(
    words.title,
    nonce,
    html`<h1>${words.title}</h1><p>${fill(words.body, { platform: platformName })}</p>`,
    "(window.opener || window.parent).postMessage({ subject: 'org.imsglobal.lti.close' }, '*');",
    language,
  );
}

export function ruleForm(
  token: string,
  definition: { id: string; name: string },
  nonce: string,
  language: Language = DEFAULT_LANGUAGE,
): string {
  const words = ltiMessages(language).rule;
  return layout(
    words.title,
    nonce,
    html`<h1>${fill(words.heading, { badge: definition.name })}</h1>
<form method="post" action="${PATHS.deepLinks}">
<input type="hidden" name="token" value="${token}"><input type="hidden" name="definitionId" value="${definition.id}">
<fieldset><legend>${words.legend}</legend>
<label><input type="radio" name="rule" value="launch" checked> ${words.onLaunch}</label>
<label><input type="radio" name="rule" value="score"> ${words.onScore}</label>
<label>${words.minScore} <input type="number" name="minScore" min="0" max="100" step="any" value="80"></label>
</fieldset>
<button type="submit">${words.submit}</button></form>`,
    null,
    language,
  );
}

export function autoPostPage(
  returnUrl: string,
  jwt: string,
  nonce: string,
  language: Language = DEFAULT_LANGUAGE,
): string {
  const words = ltiMessages(language).autoPost;
  return layout(
    words.title,
    nonce,
    html`<h1>${words.heading}</h1><form id="return" method="post" action="${returnUrl}">
<input type="hidden" name="JWT" value="${jwt}"><button type="submit">${words.continue}</button></form>`,
    "document.getElementById('return').submit();",
    language,
  );
}

const percentFormats = new Map<Language, Intl.NumberFormat>();

/** A score out of 100 as the language writes a percentage ("80%", "80 %"), to a tenth at most. */
function percent(language: Language, value: number): string {
  let format = percentFormats.get(language);
  if (!format) {
    format = new Intl.NumberFormat(formatLocale(language), { style: 'percent', maximumFractionDigits: 1 });
    percentFormats.set(language, format);
  }
  return format.format(value / 100);
}

const pluralRules = new Map<Language, Intl.PluralRules>();

function noticeText(words: LtiMessages['instructor'], notice: InstructorNotice, language: Language): string {
  if (notice.done === 'onOpen') return words.onOpen;
  let rules = pluralRules.get(language);
  if (!rules) {
    rules = new Intl.PluralRules(formatLocale(language));
    pluralRules.set(language, rules);
  }
  const one = rules.select(notice.count) === 'one';
  const template =
    notice.done === 'awarded'
      ? one
        ? words.awardedOne
        : words.awardedOther
      : one
        ? words.checkedOne
        : words.checkedOther;
  return fill(template, { count: formatNumber(language, notice.count) });
}

/** A launch's page in `language` (the routes choose it from the launch's locale, see lti.routes.ts). */
export function launchPage(view: LaunchView, nonce: string, language: Language = DEFAULT_LANGUAGE): string {
  const words = ltiMessages(language);
  const badge = ('badge' in view && view.badge) || words.thisBadge;
  switch (view.page) {
    case 'picker':
      return layout(
        words.picker.title,
        nonce,
        view.definitions.length === 0
          ? html`<h1>${words.picker.title}</h1><p>${words.picker.none}</p>`
          : html`<h1>${words.picker.title}</h1><form method="post" action="${PATHS.deepLinks}">
<input type="hidden" name="token" value="${view.token}">
${view.definitions.map((d) => html`<p><button type="submit" name="definitionId" value="${d.id}">${d.name}</button></p>`)}
</form>`,
        null,
        language,
      );
    case 'earned':
      return layout(
        words.earned.title,
        nonce,
        html`<h1>${fill(words.earned.heading, { badge })}</h1>
<p><a href="${view.verifyUrl}" target="_blank" rel="noopener">${words.earned.verify}</a></p>
${view.certificateUrl ? html`<p><a href="${view.certificateUrl}" target="_blank" rel="noopener">${words.earned.certificate}</a></p>` : ''}
${
  view.wallet
    ? html`<h2>${words.earned.walletHeading}</h2><p><img class="qr" alt="${words.earned.qr}" src="${view.wallet.qr}"></p>
<p><a href="${view.wallet.lcwUrl}" target="_blank" rel="noopener">${words.earned.lcw}</a></p>`
    : ''
}`,
        null,
        language,
      );
    case 'progress':
      return layout(
        words.progress.title,
        nonce,
        html`<h1>“${badge}”</h1><p>${fill(words.progress.rule, { score: percent(language, view.minScore) })}</p>
<p>${view.percent === null ? words.progress.none : fill(words.progress.soFar, { score: percent(language, view.percent) })}</p>`,
        null,
        language,
      );
    case 'no_email':
      return messagePage(`“${badge}”`, words.noEmail, nonce, language);
    case 'nothing':
      return messagePage('Accolade', words.nothing[view.reason], nonce, language);
    case 'instructor': {
      const w = words.instructor;
      const rule =
        view.rule === 'score' ? fill(w.ruleScore, { score: percent(language, view.minScore ?? 100) }) : w.ruleLaunch;
      return layout(
        fill(w.title, { badge }),
        nonce,
        html`<h1>${fill(w.heading, { badge })}</h1>
<p class="muted">${rule}</p>
${view.notice ? html`<p class="notice" role="status">${noticeText(w, view.notice, language)}</p>` : ''}
<form method="post" action="${PATHS.awards}"><input type="hidden" name="token" value="${view.token}">
<table><thead><tr><th scope="col">${w.select}</th><th scope="col">${w.learner}</th>${view.rule === 'score' ? html`<th scope="col">${w.score}</th>` : ''}<th scope="col">${w.badge}</th></tr></thead>
<tbody>${view.rows.map(
          (
            row,
          ) => html`<tr><td><input type="checkbox" name="userId" value="${row.userId}" aria-label="${fill(w.selectLearner, { name: row.name })}"${row.earned || !row.hasEmail ? html` disabled` : ''}></td>
<td>${row.name}</td>${view.rule === 'score' ? html`<td>${row.percent === null ? '–' : percent(language, row.percent)}</td>` : ''}
<td>${row.earned ? w.earned : row.hasEmail ? w.notYet : w.noEmail}</td></tr>`,
        )}</tbody></table>
<button type="submit">${w.award}</button></form>
<form method="post" action="${PATHS.sync}"><input type="hidden" name="token" value="${view.token}"><button type="submit" class="secondary">${w.check}</button></form>`,
        null,
        language,
      );
    }
  }
}
