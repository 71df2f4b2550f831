// The dashboard's HTML page: a shell with its styles inline; web/app.ts (served as app.js beside it)
// draws everything. Every URL is relative, so the page works wherever it is mounted. The page holds no
// secret: its requests carry the dashboard's cookie (request-guard.ts).

const STYLE = `
:root { --draining:#b8a27a; --rebooting:#c2577f; }
.failures details { margin:.2em 0; } .failures summary { cursor:pointer; }
.failures pre.excerpt { margin:.3em 0 .6em 1.2em; padding:.5em; background:var(--bg); border:1px solid var(--line); overflow-x:auto; max-height:24em; }
:root { --waiting:#c9ced6; --applying:#f2b33d; --notready:#e8702a; --soaking:#7fb2e5; --done:#3fa66b;
  --failed:#d93a3a; --rolledback:#9b6bd6; --paused:rgba(60,70,90,.18); --fg:#1d232b; --muted:#67707c; --line:#e3e6ea; --bg:#f7f8fa; }
* { box-sizing: border-box; }
body { margin:0; font:14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; color:var(--fg); background:var(--bg); }
header { display:flex; gap:1em; align-items:baseline; padding:.7em 1.2em; background:#fff; border-bottom:1px solid var(--line); }
header h1 { font-size:1.1em; margin:0; }
header .meta { color:var(--muted); font-size:.9em; }
#connection.live { color:var(--done); } #connection.down { color:var(--failed); }
main { padding:1em 1.2em; display:flex; flex-direction:column; gap:1.2em; }
section.pool { background:#fff; border:1px solid var(--line); border-radius:6px; padding:1em 1.2em; }
.pool-head { display:flex; flex-wrap:wrap; gap:.6em 1.2em; align-items:baseline; }
.pool-head h2 { margin:0; font-size:1.15em; }
.badge { padding:.05em .5em; border-radius:9px; font-size:.8em; background:var(--line); }
.badge.paused { background:#fde6b5; } .badge.bad { background:#f8d0d0; } .badge.good { background:#d4efdd; }
.actions { margin-left:auto; display:flex; gap:.4em; }
button { font:inherit; padding:.25em .8em; border:1px solid #b8bec7; border-radius:4px; background:#fff; cursor:pointer; }
button:hover { background:#eef1f4; } button:disabled { opacity:.5; cursor:default; }
.counts { display:flex; flex-wrap:wrap; gap:.3em 1.2em; margin:.6em 0; color:var(--muted); }
.counts b { color:var(--fg); }
table { border-collapse:collapse; font-size:.9em; }
td, th { text-align:left; padding:.15em .8em .15em 0; vertical-align:top; }
th { color:var(--muted); font-weight:600; }
.cols { display:grid; grid-template-columns:repeat(auto-fit, minmax(320px, 1fr)); gap:.8em 2em; margin-top:.8em; }
.cols h3 { font-size:.95em; margin:.3em 0; }
.cols .wide { grid-column:1 / -1; }
.cols > div { min-width:0; }
.scroll { max-height:13em; overflow:auto; }
.scroll table { width:100%; }
.message { white-space:pre-wrap; overflow-wrap:anywhere; min-width:12em; }
.message[data-message] { cursor:pointer; }
.message.clip { display:-webkit-box; -webkit-box-orient:vertical; -webkit-line-clamp:2; line-clamp:2; overflow:hidden; }
.message:focus-visible { outline:2px solid var(--soaking); }
.time { white-space:nowrap; }
/* Wide windows: the history takes two columns beside the revisions, the Events two beside the
   conditions, so the plan stays on the first screen (test/cli/dashboard/dashboard-history-chromium). */
@media (min-width: 1100px) {
  .cols { grid-template-columns:repeat(3, minmax(0, 1fr)); }
  .cols [data-section="history"], .cols [data-section="events"] { grid-column:span 2; }
}
.timeline-tools { display:flex; gap:.4em; align-items:center; margin:.8em 0 .3em; color:var(--muted); font-size:.9em; }
.timeline svg { display:block; width:100%; }
.timeline .label { font-size:11px; fill:var(--fg); }
.timeline .label.group { cursor:pointer; text-decoration:underline; }
.timeline .axis { font-size:10px; fill:var(--muted); }
.legend { display:flex; flex-wrap:wrap; gap:.3em 1em; font-size:.85em; color:var(--muted); margin-top:.3em; }
.legend i { display:inline-block; width:.9em; height:.9em; border-radius:2px; vertical-align:-.1em; margin-right:.3em; }
pre.plan { background:var(--bg); border:1px solid var(--line); padding:.6em; max-height:22em; overflow:auto; font-size:12px; }
#notice { position:fixed; bottom:1em; right:1em; max-width:40em; padding:.6em 1em; border-radius:4px; background:#1d232b; color:#fff; display:none; }
#notice.error { background:var(--failed); }
.muted { color:var(--muted); }
`;

export function dashboardPage(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>nodeherd dashboard</title>
<style>${STYLE}</style>
</head>
<body>
<header><h1>nodeherd</h1><span class="meta" id="server"></span><span class="meta" id="connection">connecting…</span></header>
<main id="pools"><p class="muted">reading the cluster…</p></main>
<div id="notice" role="status"></div>
<script type="module" src="app.js"></script>
</body>
</html>
`;
}
