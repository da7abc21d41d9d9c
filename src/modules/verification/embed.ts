import { sha256Hex } from '../../core/hashing.js';
import { DEFAULT_LANGUAGE, SUPPORTED_LANGUAGES } from '../../core/locale.js';
import { verificationMessages } from './messages/index.js';

/*
 * The embed script (`/embed/v1.js`): plain ES2017, no dependencies. It renders live-verified cards
 * into shadow roots for `div[data-service-credential]` (an assertion URL) and
 * `div[data-service-profile]` (an earner profile URL), calling the verify API of the origin it was
 * loaded from with no key, no cookies and no referrer (whatever host name the page used for it). Text goes in through textContent only, and
 * only http(s) URLs reach src/href.
 *
 * The host page is hostile ground for styling. The card's wrapper resets and sets every inherited
 * property (`all:initial`), since the page's rules reach the host element and would be inherited
 * inside the shadow root. The styles are a constructed stylesheet where the browser has them: that
 * is not inline style, so a page whose CSP forbids inline styles still shows a styled card (older
 * browsers get a <style> element). Long unbroken names wrap instead of widening the page. A div
 * whose attribute is added or changed later is rendered (again) for its new value.
 *
 * Its words are the verification catalogue's `embed` texts in every supported language. A card is
 * in the language its div asks for (`data-lang`), else the host page's (`<html lang>`: the card sits
 * in that page's text), else the first of the browser's languages (what Accept-Language sends) that
 * has words, by the same BCP 47 lookup as the server's pages (`fr-CH` is French), else English.
 * It asks the verify API for the badge's name in the tag that chose it (`lang`: an `fr-CH`
 * translation first, then `fr`), and marks the name with its language when it is not the card's.
 */
const WORDS = Object.fromEntries(
  SUPPORTED_LANGUAGES.map((language) => [language, verificationMessages(language).embed]),
);

const source = (home: string) => `(function () {
  'use strict';
  var me = document.currentScript;
  var origin = me && me.src ? new URL(me.src).origin : location.origin;
  var home = ${JSON.stringify(home)};
  var host = new URL(origin).host;
  var C = 'data-service-credential';
  var P = 'data-service-profile';
  var shown = new WeakMap();
  var WORDS = ${JSON.stringify(WORDS)};
  var STATUSES = { valid: 1, expired: 1, revoked: 1, unknown: 1 };
  var REASONS = { 'Revoked by the issuer': 'reasonByIssuer', 'Replaced by a newer credential': 'reasonReplaced' };
  var CSS = ':host{display:block}' +
    '.box{all:initial;visibility:inherit;display:grid;grid-template-columns:minmax(0,1fr);gap:8px;max-width:440px;font:14px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;color:#1b1f24;text-align:start}' +
    '.card{display:flex;gap:12px;align-items:center;padding:12px;border:1px solid #d8dde4;border-left:4px solid #8a94a3;border-radius:8px;background:#fff;min-width:0;overflow-wrap:break-word;overflow-wrap:anywhere}' +
    'img{width:64px;height:64px;object-fit:contain;flex:none}.body{min-width:0}' +
    '.st{font-weight:700;text-transform:uppercase;font-size:12px;letter-spacing:.04em}' +
    '.nm{font-weight:600;font-size:15px}.is,.rc,.wait,.fail{color:#4a5361}.lk{color:#0b4fa8}.hd{font-weight:700;font-size:15px;margin:0}' +
    '.s-valid{border-left-color:#0f5c2a}.s-valid .st{color:#0f5c2a}' +
    '.s-expired{border-left-color:#6b4100}.s-expired .st{color:#6b4100}' +
    '.s-revoked,.s-unknown{border-left-color:#9b1111}.s-revoked .st,.s-unknown .st{color:#9b1111}';
  var sheet = null;

  function lookup(tag) {
    var t = String(tag || '').toLowerCase();
    while (t) {
      if (Object.prototype.hasOwnProperty.call(WORDS, t)) return t;
      var cut = t.lastIndexOf('-');
      t = cut > 0 ? t.slice(0, cut) : '';
    }
    return null;
  }
  function wordsFor(div) {
    var tags = [div.getAttribute('data-lang'), document.documentElement.lang].concat(navigator.languages || [navigator.language]);
    for (var i = 0; i < tags.length; i++) {
      var found = lookup(tags[i]);
      var tag = String(tags[i]);
      if (found) return { lang: found, tag: tag.length <= 35 ? tag : found, w: WORDS[found] };
    }
    return { lang: ${JSON.stringify(DEFAULT_LANGUAGE)}, tag: ${JSON.stringify(DEFAULT_LANGUAGE)}, w: WORDS[${JSON.stringify(DEFAULT_LANGUAGE)}] };
  }
  function fmt(text, values) {
    return text.replace(/\\{(\\w+)\\}/g, function (whole, name) {
      return Object.prototype.hasOwnProperty.call(values, name) ? String(values[name]) : whole;
    });
  }

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text != null) e.textContent = text;
    return e;
  }
  function web(u, base) {
    try {
      var p = new URL(u, base);
      return p.protocol === 'https:' || p.protocol === 'http:' ? p.href : null;
    } catch (e) {
      return null;
    }
  }
  function ours(u, base, path) {
    var p = web(u, base);
    if (!p) return null;
    p = new URL(p);
    return (p.origin === origin || p.origin === home) && p.pathname.indexOf(path) === 0 ? p : null;
  }
  function json(r) {
    if (!r.ok) throw { status: r.status };
    return r.json();
  }
  function why(w, e, what) {
    var s = e && e.status;
    if (s === 404) return w[what === 'credential' ? 'goneCredential' : 'goneProfile'];
    if (s === 429) return w.tooMany;
    if (s) return fmt(w[what === 'credential' ? 'answeredCredential' : 'answeredProfile'], { host: host, status: s });
    return fmt(w[what === 'credential' ? 'unreachableCredential' : 'unreachableProfile'], { host: host });
  }
  function opts(extra) {
    var o = { mode: 'cors', credentials: 'omit', referrerPolicy: 'no-referrer' };
    for (var k in extra) o[k] = extra[k];
    return o;
  }
  function post(path, body) {
    return fetch(origin + path, opts({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).then(json);
  }
  function mount(host, lang) {
    var root = host.shadowRoot || host.attachShadow({ mode: 'open' });
    while (root.firstChild) root.removeChild(root.firstChild);
    if ('adoptedStyleSheets' in root && typeof CSSStyleSheet === 'function' && CSSStyleSheet.prototype.replaceSync) {
      if (!sheet) {
        sheet = new CSSStyleSheet();
        sheet.replaceSync(CSS);
      }
      root.adoptedStyleSheets = [sheet];
    } else root.appendChild(el('style', null, CSS));
    var box = el('div', 'box');
    box.setAttribute('aria-live', 'polite');
    box.setAttribute('lang', lang);
    root.appendChild(box);
    return box;
  }
  function note(box, cls, text) {
    box.textContent = '';
    box.appendChild(el('div', 'card ' + cls, text));
  }
  function card(w, v, lang) {
    var s = v && v.authentic && STATUSES[v.status] ? v.status : 'unknown';
    var c = el('div', 'card s-' + s);
    var local = v.credential && v.credential.localized;
    var badge = v.credential && (local && typeof local.name === 'string' ? local.name : v.credential.name);
    var img = v.credential && web(v.credential.imageUrl);
    if (img) {
      var i = el('img');
      i.referrerPolicy = 'no-referrer';
      i.width = i.height = 64;
      i.alt = fmt(w.badgeAlt, { badge: badge });
      i.src = img;
      c.appendChild(i);
    }
    var b = el('div', 'body');
    b.appendChild(el('div', 'st', w[s]));
    if (s === 'unknown') b.appendChild(el('div', 'is', w.noMatch));
    if (s === 'revoked' && v.revokedReason) {
      var known = Object.prototype.hasOwnProperty.call(REASONS, v.revokedReason) ? w[REASONS[v.revokedReason]] : null;
      b.appendChild(el('div', 'is', known || v.revokedReason));
    }
    if (v.credential) {
      var nm = el('div', 'nm', badge);
      if (local && typeof local.language === 'string' && lookup(local.language) !== lang) nm.setAttribute('lang', local.language);
      b.appendChild(nm);
    }
    if (v.issuer) b.appendChild(el('div', 'is', fmt(w.issuedBy, { issuer: v.issuer.name })));
    if (v.recipientName) b.appendChild(el('div', 'rc', fmt(w.awardedTo, { recipient: v.recipientName })));
    var page = ours(v.verifyPageUrl || '', undefined, '/verify/');
    if (page) {
      var a = el('a', 'lk', w.view);
      a.href = page.href;
      a.target = '_blank';
      a.rel = 'noopener';
      b.appendChild(a);
    }
    c.appendChild(b);
    return c;
  }
  function credential(div) {
    var words = wordsFor(div);
    var w = words.w;
    var box = mount(div, words.lang);
    note(box, 'wait', w.verifying);
    post('/api/v1/verify', { id: div.getAttribute(C), lang: words.tag }).then(function (v) {
      box.textContent = '';
      box.appendChild(card(w, v, words.lang));
    }, function (e) {
      note(box, 'fail', why(w, e, 'credential'));
    });
  }
  function profile(div) {
    var words = wordsFor(div);
    var w = words.w;
    var box = mount(div, words.lang);
    note(box, 'wait', w.verifying);
    var url = ours(div.getAttribute(P) || '', location.href, '/v1/profiles/');
    if (!url) return note(box, 'fail', fmt(w.notProfile, { host: host }));
    fetch(origin + url.pathname, opts({})).then(json).then(function (p) {
      return post('/api/v1/verify/bulk', { ids: p.credentials, lang: words.tag }).then(function (r) {
        box.textContent = '';
        box.appendChild(el('div', 'hd', p.name ? fmt(w.credentialsOf, { name: p.name }) : w.credentials));
        if (!r.results.length) box.appendChild(el('div', 'card', w.noCredentials));
        r.results.forEach(function (v) { box.appendChild(card(w, v, words.lang)); });
      });
    }).catch(function (e) {
      note(box, 'fail', why(w, e, 'profile'));
    });
  }
  function scan(node) {
    if (!node || node.nodeType !== 1) return;
    var found = [node].concat([].slice.call(node.querySelectorAll('div[' + C + '],div[' + P + ']')));
    found.forEach(function (n) {
      if (n.tagName !== 'DIV') return;
      var what = n.hasAttribute(C) ? 'c ' + n.getAttribute(C) : n.hasAttribute(P) ? 'p ' + n.getAttribute(P) : null;
      if (what === null || shown.get(n) === what) return;
      shown.set(n, what);
      if (n.hasAttribute(C)) credential(n);
      else profile(n);
    });
  }
  function start() {
    scan(document.body);
    new MutationObserver(function (records) {
      records.forEach(function (r) {
        if (r.type === 'attributes') scan(r.target);
        else [].forEach.call(r.addedNodes, scan);
      });
    }).observe(document.documentElement, { childList: true, subtree: true, attributes: true, attributeFilter: [C, P] });
  }
  if (document.body) start();
  else document.addEventListener('DOMContentLoaded', start);
})();
`;

/**
 * The script for a service whose public URLs start with `publicBaseUrl`, built once at start-up with
 * indentation stripped (every statement ends in `;` or a brace, so lines stay lines). The page may
 * have loaded it under another host name (localhost, 127.0.0.1, an internal name): links and profile
 * URLs of either origin are this service's, and every request goes to the origin the script came from.
 */
export function embedScript(publicBaseUrl: string): { script: string; etag: string } {
  const script = source(new URL(publicBaseUrl).origin)
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .join('\n');
  return { script, etag: `"${sha256Hex(script).slice(0, 32)}"` };
}
