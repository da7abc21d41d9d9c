import { html, Markup } from '../../core/html.js';
import { PATHS } from './lti.constants.js';
import type { LaunchView } from './lti.service.js';

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

function layout(title: string, nonce: string, body: Markup, script: string | null = null): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title><style nonce="${nonce}">${new Markup(STYLE)}</style></head>
<body><main>${body}</main>${script === null ? '' : html`<script nonce="${nonce}">${new Markup(script)}</script>`}</body></html>`
    .value;
}

export function messagePage(title: string, message: string, nonce: string): string {
  return layout(title, nonce, html`<h1>${title}</h1><p>${message}</p>`);
}

export function registeredPage(platformName: string, nonce: string): string {
  // LTI-DR 1.0 §3.6 "Step 4: Registration Completed and Activation": the tool tells its opener
  // (a window or the frame's parent) that it is done, and the platform closes it.
  return layout(
    'Accolade is registered',
    nonce,
    html`<h1>Accolade is registered</h1><p>${platformName} can now place badges in courses. You can close this window.</p>`,
    "(window.opener || window.parent).postMessage({ subject: 'org.imsglobal.lti.close' }, '*');",
  );
}

export function ruleForm(token: string, definition: { id: string; name: string }, nonce: string): string {
  return layout(
    'Add a badge',
    nonce,
    html`<h1>Add “${definition.name}” to the course</h1>
<form method="post" action="${PATHS.deepLinks}">
<input type="hidden" name="token" value="${token}"><input type="hidden" name="definitionId" value="${definition.id}">
<fieldset><legend>Award the badge</legend>
<label><input type="radio" name="rule" value="launch" checked> When the learner opens it</label>
<label><input type="radio" name="rule" value="score"> When their score reaches</label>
<label>Minimum score (%) <input type="number" name="minScore" min="0" max="100" step="any" value="80"></label>
</fieldset>
<button type="submit">Add to course</button></form>`,
  );
}

export function autoPostPage(returnUrl: string, jwt: string, nonce: string): string {
  return layout(
    'Adding the badge',
    nonce,
    html`<h1>Adding the badge…</h1><form id="return" method="post" action="${returnUrl}">
<input type="hidden" name="JWT" value="${jwt}"><button type="submit">Continue</button></form>`,
    "document.getElementById('return').submit();",
  );
}

export function launchPage(view: LaunchView, nonce: string): string {
  switch (view.page) {
    case 'picker':
      return layout(
        'Choose a badge',
        nonce,
        view.definitions.length === 0
          ? html`<h1>Choose a badge</h1><p>The issuer has no active badges yet.</p>`
          : html`<h1>Choose a badge</h1><form method="post" action="${PATHS.deepLinks}">
<input type="hidden" name="token" value="${view.token}">
${view.definitions.map((d) => html`<p><button type="submit" name="definitionId" value="${d.id}">${d.name}</button></p>`)}
</form>`,
      );
    case 'earned':
      return layout(
        'Badge earned',
        nonce,
        html`<h1>You earned “${view.badge}”</h1>
<p><a href="${view.verifyUrl}" target="_blank" rel="noopener">See your badge on its verification page</a></p>
${view.certificateUrl ? html`<p><a href="${view.certificateUrl}" target="_blank" rel="noopener">Download your certificate (PDF)</a></p>` : ''}
${
  view.wallet
    ? html`<h2>Keep it in a wallet</h2><p><img class="qr" alt="QR code of the wallet offer" src="${view.wallet.qr}"></p>
<p><a href="${view.wallet.lcwUrl}" target="_blank" rel="noopener">Open in the Learner Credential Wallet</a></p>`
    : ''
}`,
      );
    case 'progress':
      return layout(
        'Badge requirement',
        nonce,
        html`<h1>“${view.badge}”</h1><p>You earn this badge when your score reaches ${view.minScore}%.</p>
<p>${view.percent === null ? 'No score has been recorded for you yet.' : `Your score so far: ${Math.round(view.percent * 10) / 10}%.`}</p>`,
      );
    case 'no_email':
      return messagePage(
        `“${view.badge}”`,
        'The LMS did not share your email address with Accolade, so the badge cannot be issued to you. Ask your instructor.',
        nonce,
      );
    case 'nothing':
      return messagePage('Accolade', view.message, nonce);
    case 'instructor':
      return layout(
        `Who has earned ${view.badge}`,
        nonce,
        html`<h1>Who has earned “${view.badge}”</h1>
<p class="muted">${view.rule === 'score' ? `Awarded when a learner's score reaches ${view.minScore ?? 100}%.` : 'Awarded when a learner opens the link.'}</p>
${view.notice ? html`<p class="notice" role="status">${view.notice}</p>` : ''}
<form method="post" action="${PATHS.awards}"><input type="hidden" name="token" value="${view.token}">
<table><thead><tr><th scope="col">Select</th><th scope="col">Learner</th>${view.rule === 'score' ? html`<th scope="col">Score</th>` : ''}<th scope="col">Badge</th></tr></thead>
<tbody>${view.rows.map(
          (
            row,
          ) => html`<tr><td><input type="checkbox" name="userId" value="${row.userId}" aria-label="Select ${row.name}"${row.earned || !row.hasEmail ? html` disabled` : ''}></td>
<td>${row.name}</td>${view.rule === 'score' ? html`<td>${row.percent === null ? '–' : `${Math.round(row.percent * 10) / 10}%`}</td>` : ''}
<td>${row.earned ? 'Earned' : row.hasEmail ? 'Not yet' : 'No email shared'}</td></tr>`,
        )}</tbody></table>
<button type="submit">Award to selected</button></form>
<form method="post" action="${PATHS.sync}"><input type="hidden" name="token" value="${view.token}"><button type="submit" class="secondary">Check scores now</button></form>`,
      );
  }
}
