import { html } from '../../core/html.js';
import { backpackCsp } from '../backpack/backpack.pages.js';
import { SCOPE_DESCRIPTIONS } from './obapi.scopes.js';

/**
 * The backpack's policy, with the client's redirect origin also a form target: the answer to
 * "Allow" redirects (through the authorization endpoint) to the client, and a browser holds every
 * redirect of a form's navigation to form-action (CSP 3).
 */
export function consentCsp(nonce: string, redirectOrigin: string | null): string {
  const policy = backpackCsp(nonce);
  if (!redirectOrigin || !/^https?:\/\/[^\s;,']+$/.test(redirectOrigin)) return policy;
  return policy.replace("form-action 'self'", `form-action 'self' ${redirectOrigin}`);
}

const STYLE =
  'body{font-family:system-ui,sans-serif;max-width:36rem;margin:2rem auto;padding:0 1rem;line-height:1.5;color:#1b1b1b}' +
  'button{font-size:1rem;padding:.5rem 1rem;border-radius:6px;border:1px solid #1f4e79;background:#1f4e79;color:#fff;cursor:pointer;margin:.75rem .5rem 0 0}' +
  'button.secondary{background:#fff;color:#1f4e79}li{margin:.5rem 0}code{font-size:.8rem;color:#57606a}';

/**
 * The consent page of the Open Badges API's authorization: the client by the name it registered
 * (and its address), each scope it asks for as the specification describes it, "Allow" and "Deny".
 */
export function consentPage(
  nonce: string,
  input: {
    action: string;
    csrf: string;
    clientName: string;
    clientUri: string | null;
    redirectHost: string;
    scopes: string[];
  },
): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>Allow ${input.clientName}?</title><style nonce="${nonce}">${STYLE}</style></head>
<body><main>
<h1>Allow ${input.clientName} to use your badges?</h1>
<p><strong>${input.clientName}</strong>${input.clientUri ? html` (${input.clientUri})` : ''} will be sent back to <strong>${input.redirectHost}</strong> and asks for:</p>
<ul>${input.scopes.map((scope) => html`<li>${SCOPE_DESCRIPTIONS[scope] ?? scope}<br><code>${scope}</code></li>`)}</ul>
<p>Deleting your backpack account ends this access.</p>
<form method="post" action="${input.action}">
<input type="hidden" name="csrf" value="${input.csrf}">
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny" class="secondary">Deny</button>
</form>
</main></body></html>`.value;
}
