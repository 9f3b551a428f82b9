/** The Board's whole stylesheet, served as `/assets/board.css` so the CSP needs no inline styles. */
export const boardCss = `
:root { font-family: system-ui, sans-serif; color: #1d1d1f; background: #f6f6f4; }
body { margin: 0; }
nav { display: flex; gap: 1rem; padding: .6rem 1rem; background: #1d1d1f; color: #fff; align-items: baseline; }
nav a { color: #ddd; text-decoration: none; }
nav a[aria-current=page] { color: #fff; font-weight: 600; }
nav form.logout { margin: 0 0 0 auto; }
main { padding: 1rem; max-width: 80rem; }
h1 { margin-top: 0; font-size: 1.4rem; }
h2 { font-size: 1.1rem; }
.card { background: #fff; border: 1px solid #ddd; border-radius: 6px; padding: .6rem .8rem; margin: .5rem 0; }
.card.failed { border-left: 4px solid #c33; }
.empty { color: #777; }
.error { color: #b00; font-weight: 600; }
pre { white-space: pre-wrap; word-break: break-word; margin: .2rem 0; font-size: .85rem; }
form.action { display: inline; }
form.stack { display: flex; flex-direction: column; gap: .4rem; max-width: 40rem; }
.filters { display: flex; flex-wrap: wrap; gap: .6rem; align-items: end; }
.counts { display: flex; gap: 1rem; list-style: none; padding: 0; }
table { border-collapse: collapse; width: 100%; }
td, th { text-align: left; padding: .25rem .5rem; border-bottom: 1px solid #e3e3e3; }
.state.Failed { color: #b00; } .state.Succeeded { color: #070; } .state.Waiting { color: #a60; }
.columns { display: grid; grid-auto-flow: column; grid-auto-columns: minmax(14rem, 1fr); gap: 1rem; }
.column { background: #ecece8; border-radius: 6px; padding: .5rem; }
.transcript { list-style: none; padding: 0; }
.row { border-bottom: 1px dotted #ddd; }
.row.error pre { color: #b00; } .row.operator pre { color: #05a; } .row.system pre, .row.usage pre { color: #666; }
.diffstat summary { cursor: pointer; }
.diff-files { list-style: none; padding-left: 1rem; margin: .2rem 0; font-size: .85rem; }
.edit { margin: .2rem 0 .4rem 1rem; } .edit p { margin: .1rem 0; } .edit h3 { font-size: .9rem; margin: .3rem 0 0; }
.diff-add { color: #070; } .diff-del { color: #b00; } .diff-binary { color: #777; }
#flash:empty { display: none; }
#flash { padding: .4rem 1rem; background: #eef6ee; } #flash.error { background: #fbeaea; }
`
