import { sha256Hex } from '../../core/hashing.js';

/*
 * The verification page's stylesheet and script, served as static files so the page's
 * Content-Security-Policy needs no 'unsafe-inline': the only inline element is a nonce'd <style>
 * carrying the issuer's validated brand colour.
 */

export const PAGE_CSS = `
:root{--brand:#1f3a5f;--on-brand:#fff;--brand-line:var(--brand);--ink:#1b1f24;--muted:#4a5361;--line:#d8dde4;--bg:#f5f7fa;--card:#fff;
--ok:#0f5c2a;--ok-bg:#e3f3e8;--warn:#6b4100;--warn-bg:#fff1d6;--bad:#9b1111;--bad-bg:#fde8e8;--info:#1d3f73;--info-bg:#e6eef9;
font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--ink);background:var(--bg)}
*{box-sizing:border-box}
body{margin:0;line-height:1.5}
a{color:#0b4fa8}
a:focus-visible,.button:focus-visible{outline:3px solid #0b4fa8;outline-offset:2px}
.issuer-bar a:focus-visible{outline-color:var(--on-brand)}
.skip{position:absolute;left:-999px}
.skip:focus{left:1rem;top:1rem;background:#fff;padding:.5rem;z-index:1}
.issuer-bar{background:var(--brand);color:var(--on-brand);border-bottom:1px solid var(--line)}
.issuer-bar .inner{max-width:60rem;margin:0 auto;padding:.9rem 1.25rem;display:flex;flex-wrap:wrap;align-items:center;gap:.75rem}
.issuer-bar img{height:2.5rem;width:auto;max-width:10rem;background:#fff;border-radius:.25rem;padding:.15rem}
.issuer-bar .issuer-name{font-weight:600;font-size:1.1rem;color:inherit;text-decoration:none}
.languages{margin-left:auto;font-size:.9rem}
.languages ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.25rem .75rem;justify-content:flex-end}
.languages a{color:inherit}
.languages [aria-current]{font-weight:700}
main{max-width:60rem;margin:0 auto;padding:1.25rem}
main.narrow{max-width:42rem}
.status{border-radius:.5rem;padding:1rem 1.25rem;margin:0 0 1.25rem;border:1px solid}
.status p{margin:0}
.status .label{font-weight:700;font-size:1.15rem}
.status-valid{background:var(--ok-bg);color:var(--ok);border-color:var(--ok)}
.status-expired{background:var(--warn-bg);color:var(--warn);border-color:var(--warn)}
.status-revoked,.status-unknown{background:var(--bad-bg);color:var(--bad);border-color:var(--bad)}
.status-replaced{background:var(--info-bg);color:var(--info);border-color:var(--info)}
.status-replaced a{color:inherit;font-weight:600}
.layout{display:grid;grid-template-columns:minmax(0,1fr) 16rem;gap:1.25rem}
.card{background:var(--card);border:1px solid var(--line);border-radius:.5rem;padding:1.25rem}
.card+.card{margin-top:1.25rem}
.card>h2:first-child{margin-top:0}
.credential{display:flex;gap:1.25rem;align-items:flex-start}
.credential>div{min-width:0;max-width:100%}
.badge{width:8.5rem;height:8.5rem;object-fit:contain;flex:none}
.badge-frame{position:relative;flex:none;display:flex;align-items:center;justify-content:center}
.inactive .badge{filter:grayscale(1);opacity:.45}
.stamp{position:absolute;transform:rotate(-20deg);border:3px solid var(--bad);color:var(--bad);background:rgba(255,255,255,.85);
font-weight:800;font-size:1.2rem;letter-spacing:.08em;text-transform:uppercase;padding:.1rem .5rem;border-radius:.3rem}
.stamp.replaced{border-color:var(--info);color:var(--info)}
.list{padding-left:1.1rem;margin:0}
.list li+li{margin-top:.5rem}
.muted{color:var(--muted)}
blockquote{margin:0;font-style:italic}
h1{font-size:1.6rem;line-height:1.25;margin:0 0 .35rem}
h1,h2,p,li,.issuer-name{overflow-wrap:break-word}
time{white-space:nowrap}
h2{font-size:1.05rem;margin:1.25rem 0 .4rem}
.lead{margin:.1rem 0;color:var(--muted)}
.lead strong{color:var(--ink)}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:1rem 0 0}
dl.facts dt{color:var(--muted)}
dl.facts dd{margin:0;overflow-wrap:anywhere}
.prose{white-space:pre-line;margin:0}
.chips{list-style:none;padding:0;margin:0;display:flex;flex-wrap:wrap;gap:.4rem}
.chips li{border:1px solid var(--line);border-radius:1rem;padding:.1rem .7rem;background:var(--bg)}
.share h2{margin-top:0}
.button{display:block;text-align:center;padding:.6rem .9rem;margin:0 0 .6rem;border-radius:.4rem;font-weight:600;
text-decoration:none;border:2px solid var(--brand-line);color:var(--ink);background:#fff;cursor:pointer}
.button.primary{background:#0a66c2;border-color:#0a66c2;color:#fff}
.copy-status{min-height:1.5em;margin:0 0 .5rem;color:var(--muted)}
.qr{margin:1rem 0 0;text-align:center}
.qr svg{width:11rem;height:11rem;max-width:100%}
.qr figcaption{color:var(--muted);font-size:.9rem}
.page-url{overflow-wrap:anywhere;font-size:.85rem;color:var(--muted)}
footer{max-width:60rem;margin:0 auto;padding:0 1.25rem 2rem;color:var(--muted);font-size:.9rem}
@media (max-width:52rem){.layout{grid-template-columns:minmax(0,1fr)}.credential{flex-direction:column;align-items:center;text-align:center}
dl.facts{text-align:left}}
@media (max-width:30rem){dl.facts{grid-template-columns:minmax(0,1fr);gap:0}dl.facts dd{margin-bottom:.5rem}time{white-space:normal}}
@media print{:root{background:#fff}.languages{display:none}.issuer-bar{background:#fff;color:#000;border-bottom:2px solid #000}
.issuer-bar .inner{max-width:none;padding:0 0 .5rem}.credential{flex-direction:row;align-items:flex-start;text-align:left}.status{print-color-adjust:exact;-webkit-print-color-adjust:exact}
.share h2{display:none}a.criteria::after{content:" (" attr(href) ")"}
.issuer-bar img{padding:0}.button,.copy-status,.skip{display:none}.card{border:none;padding:0}
.layout{grid-template-columns:1fr 12rem}.status{border-width:2px}a{color:#000;text-decoration:none}
main,footer{max-width:none;padding-left:0;padding-right:0}}
`.trim();

/**
 * Copy link: copies the page URL and records a share_link through the same redirect the no-script
 * link uses. The link acts as a button (Enter or Space); a modified or middle click keeps its
 * usual meaning.
 */
export const PAGE_JS = `
function copyLink(link) {
  var url = link.getAttribute('data-copy');
  var status = document.getElementById('copy-status');
  var say = function (text) { if (status) status.textContent = text; };
  var words = function (name) { return status ? status.getAttribute(name) : ''; };
  fetch(link.href, { credentials: 'omit', redirect: 'manual', keepalive: true }).catch(function () {});
  if (navigator.clipboard && navigator.clipboard.writeText) {
    navigator.clipboard.writeText(url).then(function () { say(words('data-copied')); }, function () { say(words('data-copy-this') + ' ' + url); });
  } else {
    say(words('data-copy-this') + ' ' + url);
  }
}
function copyTarget(event) {
  return event.target instanceof Element ? event.target.closest('a[data-copy]') : null;
}
document.addEventListener('click', function (event) {
  var link = copyTarget(event);
  if (!link || event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey || event.altKey) return;
  event.preventDefault();
  copyLink(link);
});
document.addEventListener('keydown', function (event) {
  var link = copyTarget(event);
  if (!link || event.key !== ' ') return;
  event.preventDefault();
  copyLink(link);
});
`.trim();

/** Changes whenever either file does, so the page can let browsers cache them for a year. */
export const PAGE_ASSETS_VERSION = sha256Hex(PAGE_CSS + PAGE_JS).slice(0, 12);
