/**
 * Progressive enhancement, served as `/assets/board.js`: forms post with fetch and refresh `<main>`, pages follow
 * `/events`, and the Run page appends its transcript from its stream. Rows are built with `textContent` only.
 */
export const boardScript = `(() => {
  const csrf = document.querySelector('meta[name="csrf-token"]')?.getAttribute("content") ?? "";
  const flash = (text, failed) => {
    const el = document.getElementById("flash");
    if (!el) return;
    el.textContent = text;
    el.className = failed ? "error" : "";
  };
  let refreshing = false;
  const refresh = async () => {
    if (refreshing) return;
    refreshing = true;
    try {
      const res = await fetch(location.href, { headers: { Accept: "text/html" } });
      if (!res.ok) return;
      const doc = new DOMParser().parseFromString(await res.text(), "text/html");
      const next = doc.getElementById("main");
      const current = document.getElementById("main");
      if (next && current) current.replaceWith(next);
      follow();
    } finally {
      refreshing = false;
    }
  };
  document.addEventListener("submit", async (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.hasAttribute("data-live-form")) return;
    const question = form.getAttribute("data-confirm");
    if (question && !confirm(question)) { event.preventDefault(); return; }
    event.preventDefault();
    const res = await fetch(form.action, {
      method: "POST",
      body: new URLSearchParams(new FormData(form)),
      headers: { Accept: "application/json", "X-CSRF-Token": csrf }
    });
    const body = await res.json().catch(() => ({}));
    // Intervene says what became of the message (ADR 0062): delivered, queued or refused, with how or why.
    const told = res.ok && body.status && body.detail ? body.status + ": " + body.detail : undefined;
    flash(res.ok ? (told ?? "Done.") : (body.message ?? res.statusText), !res.ok || body.status === "refused");
    await refresh();
  });
  const rowOf = (line) => {
    const li = document.createElement("li");
    li.className = "row " + line.kind;
    li.dataset.testid = "transcript-row";
    li.dataset.seq = String(line.seq);
    li.dataset.kind = line.kind;
    const pre = document.createElement("pre");
    pre.dataset.testid = "transcript-text";
    pre.textContent = line.text;
    if (line.kind === "tool_call" || line.kind === "tool_result") {
      const details = document.createElement("details");
      const summary = document.createElement("summary");
      summary.textContent = (line.kind === "tool_call" ? "\\u25b6 " : "\\u25c0 ") + (line.tool ?? "tool");
      details.append(summary, pre);
      li.append(details);
    } else li.append(pre);
    return li;
  };
  let stream;
  const follow = () => {
    const box = document.querySelector("[data-transcript]");
    if (!box || box.dataset.follow !== "yes" || stream) return;
    const params = new URLSearchParams({ after: box.dataset.lastSeq ?? "0", version: box.dataset.version ?? "0", note: box.dataset.note ?? "0" });
    if (box.dataset.attemptId) params.set("attempt", box.dataset.attemptId);
    stream = new EventSource("/api/runs/" + box.dataset.runId + "/stream?" + params);
    stream.addEventListener("transcript", (event) => {
      const data = JSON.parse(event.data);
      const target = document.querySelector("[data-transcript]");
      if (!target || target.dataset.attemptId !== data.attemptId) return;
      const list = target.querySelector("ol");
      for (const line of data.rows) {
        if (line.seq <= Number(target.dataset.lastSeq ?? "0")) continue;
        list?.append(rowOf(line));
        target.dataset.lastSeq = String(line.seq);
      }
    });
    stream.addEventListener("state", () => refresh());
    stream.addEventListener("attempt", () => refresh());
    stream.addEventListener("note", () => refresh());
  };
  if (document.body.dataset.live === "page") {
    new EventSource("/events").addEventListener("changed", () => refresh());
  }
  follow();
})();
`
