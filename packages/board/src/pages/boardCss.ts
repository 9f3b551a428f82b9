/**
 * The Board's whole stylesheet, served as `/assets/board.css` so the CSP needs no inline styles. Colours are
 * variables: `prefers-color-scheme: dark` swaps them. Below 40rem the columns stack and wide tables scroll inside
 * their box, so no page scrolls sideways on a phone.
 */
export const boardCss = `
:root {
  color-scheme: light dark;
  --fg: #1d1d1f; --bg: #f6f6f4; --panel: #fff; --panel-2: #f0f0ec; --column: #ecece8; --line: #ddd; --line-2: #e3e3e3;
  --muted: #595959; --red: #a40000; --green: #056105; --amber: #8a4b00; --blue: #0550ae; --nav: #1d1d1f; --nav-fg: #ddd;
  --add-bg: #e6ffec; --del-bg: #ffebe9; --hunk-bg: #eef3fb; --flash: #eef6ee; --flash-error: #fbeaea;
  font-family: system-ui, sans-serif; color: var(--fg); background: var(--bg);
}
@media (prefers-color-scheme: dark) {
  :root {
    --fg: #e6e6e3; --bg: #161618; --panel: #212124; --panel-2: #2a2a2e; --column: #1c1c1f; --line: #3a3a3f; --line-2: #333338;
    --muted: #a8a8ad; --red: #ff8a80; --green: #7ee787; --amber: #f0b35a; --blue: #79b8ff; --nav: #0c0c0d; --nav-fg: #ccc;
    --add-bg: #12361d; --del-bg: #4a1a1a; --hunk-bg: #1c2a3d; --flash: #18301c; --flash-error: #3d1a1a;
  }
}
body { margin: 0; }
a { color: var(--blue); }
nav { display: flex; flex-wrap: wrap; gap: .4rem 1rem; padding: .6rem 1rem; background: var(--nav); color: #fff; align-items: baseline; }
nav a { color: var(--nav-fg); text-decoration: none; }
nav a[aria-current=page] { color: #fff; font-weight: 600; }
nav form.logout { margin: 0 0 0 auto; }
main { padding: 1rem; max-width: 80rem; overflow-wrap: anywhere; }
h1 { margin-top: 0; font-size: 1.4rem; }
h2 { font-size: 1.1rem; }
button, select, input, textarea { font: inherit; }
button { min-height: 2rem; }
a.button { display: inline-block; padding: .4rem .9rem; border: 1px solid var(--line); border-radius: 6px; background: var(--panel); text-decoration: none; }
.card { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: .6rem .8rem; margin: .5rem 0; min-width: 0; }
.card.failed { border-left: 4px solid var(--red); }
.empty, .hint { color: var(--muted); }
.error { color: var(--red); font-weight: 600; }
pre { white-space: pre-wrap; word-break: break-word; margin: .2rem 0; font-size: .85rem; }
form.action { display: inline; }
form.stack { display: flex; flex-direction: column; gap: .4rem; max-width: 40rem; }
.filters { display: flex; flex-wrap: wrap; gap: .6rem; align-items: end; }
.counts { display: flex; flex-wrap: wrap; gap: 1rem; list-style: none; padding: 0; }
table { border-collapse: collapse; width: 100%; }
td, th { text-align: left; padding: .25rem .5rem; border-bottom: 1px solid var(--line-2); }
.state.Failed { color: var(--red); } .state.Succeeded { color: var(--green); } .state.Waiting { color: var(--amber); }
.columns { display: grid; grid-auto-flow: column; grid-auto-columns: minmax(14rem, 1fr); gap: 1rem; }
.column { background: var(--column); border-radius: 6px; padding: .5rem; min-width: 0; }
.column.drop-target { outline: 2px dashed var(--blue); }
[data-draggable-card] { cursor: grab; }
[data-draggable-card]:focus-visible { outline: 2px solid var(--blue); }
.card.dragging, .card.moving { opacity: .5; }
.badge { display: inline-block; padding: 0 .45rem; border-radius: 1rem; font-size: .8rem; border: 1px solid var(--line); text-decoration: none; color: var(--fg); }
.badge.Running { border-color: var(--blue); color: var(--blue); } .badge.Waiting { border-color: var(--amber); color: var(--amber); }
.badge.Failed { border-color: var(--red); color: var(--red); } .badge.Succeeded { border-color: var(--green); color: var(--green); }
.badge.loop { color: var(--muted); }
.badge.ci.passing { border-color: var(--green); color: var(--green); } .badge.ci.failing { border-color: var(--red); color: var(--red); }
.badge.ci.pending { border-color: var(--amber); color: var(--amber); } .badge.ci.none { color: var(--muted); }
.transcript { list-style: none; padding: 0; }
.row { border-bottom: 1px dotted var(--line); }
.row.error pre { color: var(--red); } .row.operator pre { color: var(--blue); } .row.system pre, .row.usage pre { color: var(--muted); }
.diffstat summary { cursor: pointer; }
.diff-files { list-style: none; padding-left: 1rem; margin: .2rem 0; font-size: .85rem; }
.edit { margin: .2rem 0 .4rem 1rem; } .edit p { margin: .1rem 0; } .edit h3 { font-size: .9rem; margin: .3rem 0 0; }
.diff-add { color: var(--green); } .diff-del { color: var(--red); } .diff-binary { color: var(--muted); }
.patch-file { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; margin: .5rem 0; min-width: 0; }
.patch-file > summary { cursor: pointer; padding: .3rem .6rem; background: var(--panel-2); border-radius: 6px 6px 0 0; }
.patch-status { color: var(--muted); font-style: italic; }
.patch-scroll { overflow-x: auto; max-width: 100%; }
table.patch { font-size: .8rem; width: 100%; border-collapse: collapse; }
table.patch td { border: 0; padding: 0 .4rem; white-space: pre; font-family: ui-monospace, monospace; vertical-align: top; overflow-wrap: normal; }
table.patch td.ln { color: var(--muted); text-align: right; width: 1%; user-select: none; }
table.patch ins, table.patch del { text-decoration: none; }
tr.patch-add { background: var(--add-bg); } tr.patch-del { background: var(--del-bg); }
tr.patch-hunk td { background: var(--hunk-bg); }
tr.patch-note td { color: var(--muted); }
.sign { display: inline-block; width: 1.2ch; }
.chart { margin: .5rem 0 1rem; max-width: 48rem; }
.chart svg { width: 100%; height: auto; display: block; }
.chart .axis { stroke: var(--muted); }
.chart .tick { fill: var(--muted); font-size: 11px; }
.series polyline { stroke-width: 2; } .series circle { stroke: var(--panel); stroke-width: 1; }
.s0 { --c: #0b63c5; } .s1 { --c: #c2410c; } .s2 { --c: #15803d; } .s3 { --c: #7e22ce; } .s4 { --c: #a16207; } .s5 { --c: #be185d; }
.series polyline { stroke: var(--c); } .series circle { fill: var(--c); }
.legend { margin-right: .8rem; } .legend::before { content: ""; display: inline-block; width: .8rem; height: .8rem; background: var(--c); margin-right: .3rem; border-radius: 2px; vertical-align: middle; }
#flash:empty { display: none; }
.standby { margin: 0; padding: .4rem 1rem; background: var(--flash-error); font-weight: 600; }
.ledger { margin: 0; padding: .2rem 1rem; font-size: .85rem; opacity: .8; }
#flash { padding: .4rem 1rem; background: var(--flash); } #flash.error { background: var(--flash-error); }
@media (max-width: 40rem) {
  main { padding: .6rem; }
  .columns { grid-auto-flow: row; grid-auto-columns: auto; }
  table:not(.patch) { display: block; overflow-x: auto; }
  .review-actions button, .card button { min-height: 2.6rem; }
}
/* Transcript (issue 21): tool calls as their command or edit, output folded; Markdown; authors; verdicts. */
.tool-head { margin: .2rem 0 0; font-size: .85rem; } .tool-name { font-weight: 600; } .duration { color: var(--muted); }
pre.tool-command, pre.tool-args, pre.tool-edit { background: var(--panel-2); padding: .25rem .4rem; border-radius: 4px; font-family: ui-monospace, monospace; }
pre.scroll { max-height: 24rem; overflow: auto; }
ol.tool-results { list-style: none; padding-left: 1rem; margin: 0; } ol.tool-results:empty { display: none; }
.row .fold > summary { cursor: pointer; font-size: .85rem; color: var(--muted); }
.row.failed > .fold > summary, .row.failed > .tool-head { color: var(--red); }
.markdown { font-size: .95rem; } .markdown p, .markdown ul, .markdown ol { margin: .3rem 0; }
.markdown pre { background: var(--panel-2); padding: .3rem .5rem; overflow-x: auto; white-space: pre; }
.markdown code { font-family: ui-monospace, monospace; font-size: .85rem; } .markdown table { width: auto; }
.markdown h1, .markdown h2, .markdown h3, .markdown h4, .markdown h5, .markdown h6 { font-size: 1rem; margin: .4rem 0 .2rem; }
.author { font-size: .75rem; font-weight: 700; text-transform: uppercase; letter-spacing: .03em; color: var(--blue); margin-right: .4rem; }
.verdict { font-weight: 700; } .verdict.pass { color: var(--green); } .verdict.fail { color: var(--red); }
/* The Run's Attempt strip and the Runs chart's colours, from the theme's variables. */
.strip { margin: .3rem 0 .6rem; } .strip svg { width: 100%; display: block; }
.strip rect.bar { fill: var(--panel-2); stroke: var(--c); stroke-width: 2; vector-effect: non-scaling-stroke; }
.strip rect.phase { fill: var(--c); }
.strip-text { list-style: none; padding: 0; margin: .2rem 0; font-size: .85rem; }
.swatch { display: inline-block; width: .7rem; height: .7rem; border-radius: 2px; margin-right: .25rem; vertical-align: middle; background: var(--c); }
.bar.Succeeded, .run-Succeeded { --c: var(--green); } .bar.Failed, .run-Failed { --c: var(--red); }
.bar.Canceled, .run-Canceled { --c: var(--muted); } .bar.Open, .run-Running { --c: var(--blue); }
.run-Waiting { --c: var(--amber); } .run-Pending { --c: #6b7280; } .run-Queued { --c: #7e22ce; } .run-Reviewing { --c: #be185d; }
.phase.setup { --c: var(--muted); } .phase.agent { --c: var(--blue); } .phase.verify { --c: var(--amber); } .phase.harvest { --c: var(--green); }
.table-scroll { overflow-x: auto; max-width: 100%; }
`
