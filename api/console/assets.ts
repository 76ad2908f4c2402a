import { createHash } from "node:crypto";

/** The console's one style sheet: no CDN, readable at 375 px, visible focus for keyboard use. */
export const STYLESHEET = `
:root { color-scheme: light; --ink: #1b2230; --muted: #596275; --line: #d5dbe5; --bg: #f4f6fa; --accent: #1d4ed8; --accent-ink: #fff; --danger: #a61b1b; --ok: #14662f; }
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: var(--bg); }
a { color: var(--accent); }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible, textarea:focus-visible, summary:focus-visible { outline: 3px solid #f59e0b; outline-offset: 2px; }
.inline-form { display: inline; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
label.check { display: flex; gap: .5rem; align-items: flex-start; font-weight: 400; }
#latest-body { background: #f8fafc; border: 1px solid #d5dbe5; border-radius: 6px; padding: .75rem; }
.skip { position: absolute; left: -999px; top: 0; background: #fff; padding: .5rem 1rem; }
.skip:focus { left: 0; z-index: 10; }
header.top { background: #fff; border-bottom: 1px solid var(--line); }
.bar { max-width: 72rem; margin: 0 auto; padding: .75rem 1rem; display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; justify-content: space-between; }
.brand { font-weight: 700; text-decoration: none; color: var(--ink); }
.workspace { color: var(--muted); }
nav.tabs { max-width: 72rem; margin: 0 auto; padding: 0 1rem; display: flex; flex-wrap: wrap; gap: .25rem; }
nav.tabs a { padding: .5rem .75rem; border-radius: 6px 6px 0 0; text-decoration: none; color: var(--ink); }
nav.tabs a[aria-current="page"] { background: var(--bg); font-weight: 600; border: 1px solid var(--line); border-bottom-color: var(--bg); }
main { max-width: 72rem; margin: 0 auto; padding: 1.25rem 1rem 3rem; }
main.narrow { max-width: 30rem; }
footer.foot { max-width: 72rem; margin: 0 auto; padding: 0 1rem 2rem; color: var(--muted); font-size: .9rem; }
h1 { font-size: 1.5rem; margin: .5rem 0 1rem; }
h2 { font-size: 1.15rem; margin: 1.5rem 0 .75rem; }
.card { background: #fff; border: 1px solid var(--line); border-radius: 10px; padding: 1rem 1.25rem; margin-bottom: 1rem; }
.card > :first-child, .card > form > :first-child { margin-top: 0; }
.card > :last-child, .card > form > :last-child { margin-bottom: 0; }
.card > form > h2:first-of-type { margin-top: 0; }
.stats { display: grid; grid-template-columns: repeat(auto-fit, minmax(10rem, 1fr)); gap: .75rem; margin: 0 0 1rem; padding: 0; list-style: none; }
.stats li { background: #fff; border: 1px solid var(--line); border-radius: 10px; padding: .75rem 1rem; }
.stats .value { display: block; font-size: 1.6rem; font-weight: 700; }
.muted { color: var(--muted); }
.small { font-size: .875rem; }
.table-wrap { position: relative; overflow-x: auto; background: #fff; border: 1px solid var(--line); border-radius: 10px; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .55rem .75rem; border-bottom: 1px solid var(--line); vertical-align: top; overflow-wrap: break-word; hyphens: manual; }
th { font-size: .85rem; color: var(--muted); font-weight: 600; }
tr:last-child td { border-bottom: 0; }
form.stack { display: grid; gap: .85rem; }
form.inline { display: flex; flex-wrap: wrap; gap: .5rem; align-items: flex-end; }
label { display: block; font-weight: 600; margin-bottom: .25rem; }
.hint { display: block; font-weight: 400; color: var(--muted); font-size: .875rem; }
.field-error { color: var(--danger); font-size: .9rem; font-weight: 600; margin: .3rem 0 0; }
.field.invalid input { border: 2px solid var(--danger); }
fieldset .field + .field { margin-top: .75rem; }
form.new-key { display: grid; grid-template-columns: 2fr 1fr 1fr; gap: .75rem 1rem; align-items: start; }
form.new-key > div:last-child { grid-column: 1 / -1; }
input[type=text], input[type=email], input[type=password], input[type=number], input[type=search], select, textarea { width: 100%; padding: .55rem .65rem; font: inherit; border: 1px solid #8a94a6; border-radius: 6px; background: #fff; color: var(--ink); }
textarea { min-height: 5rem; }
button, .button { display: inline-block; font: inherit; padding: .55rem 1.1rem; border-radius: 6px; border: 1px solid #8a94a6; background: #fff; color: var(--ink); cursor: pointer; text-decoration: none; }
button.primary, .button.primary { background: var(--accent); border-color: var(--accent); color: var(--accent-ink); font-weight: 600; }
button.danger { background: var(--danger); border-color: var(--danger); color: #fff; }
button.link { border: 0; background: none; color: var(--accent); padding: 0; text-decoration: underline; }
.alert { border-radius: 8px; padding: .65rem .9rem; margin: 0 0 1rem; border: 1px solid; }
.alert.error { color: var(--danger); background: #fdeeee; border-color: #efb9b9; }
.alert.ok { color: var(--ok); background: #eaf7ee; border-color: #a9dcb8; }
.alert.warn { color: #6b4500; background: #fff6e0; border-color: #e8c66a; }
input[aria-invalid="true"] { border-color: var(--danger); border-width: 2px; }
fieldset { border: 1px solid var(--line); border-radius: 8px; padding: .5rem 1rem .85rem; margin: 0; min-width: 0; }
legend { font-weight: 600; padding: 0 .25rem; }
.queries { display: grid; gap: .75rem; }
fieldset.query { display: grid; grid-template-columns: 1fr 1fr; gap: .5rem 1rem; }
label.choice { font-weight: 400; display: flex; gap: .5rem; align-items: flex-start; padding: .25rem 0; }
label.choice input { margin-top: .3rem; }
ol.steps { margin: 0; padding-left: 1.25rem; }
ol.steps li { padding: .2rem 0; }
.toolbar { margin: 0 0 1rem; }
button[disabled] { opacity: .6; cursor: default; }
.secret { display: flex; gap: .5rem; align-items: stretch; flex-wrap: wrap; }
.secret code { flex: 1 1 16rem; min-width: 0; padding: .6rem; background: #0f172a; color: #e2e8f0; border-radius: 6px; word-break: break-all; font-size: .9rem; }
.flag { display: inline-block; padding: .05rem .5rem; border-radius: 999px; font-size: .8rem; background: #fff3d6; border: 1px solid #e8c66a; margin: 0 .25rem .25rem 0; }
.empty { text-align: center; padding: 2rem 1rem; color: var(--muted); }
.actions { display: flex; flex-wrap: wrap; gap: .75rem; align-items: center; margin-top: 1rem; }
pre.draft { white-space: pre-wrap; font: inherit; margin: .5rem 0 0; }
ul.plain { list-style: none; padding: 0; margin: 0; }
ul.plain li { padding: .35rem 0; }
ul.packs { display: grid; grid-template-columns: repeat(auto-fit, minmax(12rem, 1fr)); gap: .75rem; margin: 0 0 .5rem; padding: 0; list-style: none; }
ul.packs li { background: #fff; border: 1px solid var(--line); border-radius: 10px; padding: 1rem; display: flex; flex-direction: column; gap: .25rem; }
ul.packs .pack-credits { font-weight: 600; }
ul.packs .price { font-size: 1.4rem; font-weight: 700; }
ul.packs form { margin-top: .5rem; }
tfoot th, tfoot td { border-top: 2px solid var(--line); border-bottom: 0; font-weight: 700; color: var(--ink); font-size: 1rem; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .35rem 1rem; margin: 0; }
dl.facts dt { font-weight: 600; }
dl.facts dd { margin: 0; overflow-wrap: break-word; }
td dl.facts { grid-template-columns: 1fr; gap: 0; }
td dl.facts dd + dt { margin-top: .25rem; }
/* Below 60rem a table of rows becomes one card per row, each cell under its label: a row of many columns no longer fits without breaking its words. */
@media (max-width: 60rem) {
  table.rows thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
  table.rows, table.rows tbody, table.rows tr, table.rows td { display: block; width: 100%; }
  table.rows tr { border-bottom: 1px solid var(--line); padding: .4rem 0; }
  table.rows tr:last-child { border-bottom: 0; }
  table.rows td { border: 0; padding: .2rem .75rem; }
  table.rows tfoot, table.rows tfoot tr, table.rows tfoot td { display: block; width: 100%; }
  table.rows tfoot th { display: none; }
  table.rows td[data-label]::before { content: attr(data-label); display: block; font-size: .8rem; font-weight: 600; color: var(--muted); }
}
@media (max-width: 40rem) {
  dl.facts { grid-template-columns: 1fr; }
  fieldset.query { grid-template-columns: 1fr; }
  form.new-key { grid-template-columns: 1fr; }
  .stats .value { font-size: 1.3rem; }
  th, td { padding: .45rem .5rem; }
}
`;

/** The only script: the copy button beside a secret shown once. */
export const SCRIPT = `
document.addEventListener("click", async (event) => {
  const button = event.target instanceof Element ? event.target.closest("[data-copy]") : null;
  if (!button) return;
  const source = document.getElementById(button.getAttribute("data-copy"));
  if (!source) return;
  try {
    await navigator.clipboard.writeText(source.textContent.trim());
    button.textContent = button.getAttribute("data-copied") || "Copied";
  } catch {
    const range = document.createRange();
    range.selectNodeContents(source);
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }
});
`;

const version = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 12);
/** Content-addressed names, so the assets can be cached for long. */
export const STYLESHEET_PATH = `/app/assets/app-${version(STYLESHEET)}.css`;
export const SCRIPT_PATH = `/app/assets/app-${version(SCRIPT)}.js`;
/** Where browsers look for a site's icon by default; pages link it there too. */
export const FAVICON_PATH = "/favicon.ico";
