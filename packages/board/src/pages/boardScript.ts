/**
 * Progressive enhancement, served as `/assets/board.js`: forms post with fetch and refresh `<main>`, pages follow
 * `/events`, and the Run page appends its transcript from its stream: rows as the server rendered them (escaped there),
 * parsed with DOMParser, which runs no script.
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
      if (next?.dataset.documentTitle) document.title = next.dataset.documentTitle;
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
  // Transcript rows arrive as the server renders them (TranscriptLines): parsed inert, never run as script. A tool
  // result joins the oldest waiting call of its tool, as transcriptItems pairs them, with the call's duration.
  const duration = (ms) => {
    if (ms < 1000) return Math.max(0, Math.round(ms)) + " ms";
    if (ms < 60000) return (ms / 1000).toFixed(1) + " s";
    const s = Math.round(ms / 1000);
    return Math.floor(s / 60) + " min " + (s % 60) + " s";
  };
  const rowsOf = (html) => [...new DOMParser().parseFromString("<ol>" + html + "</ol>", "text/html").body.firstChild.children];
  const place = (list, row) => {
    const tool = row.dataset.tool;
    const call = row.dataset.kind === "tool_result"
      ? [...list.querySelectorAll(":scope > li[data-pending]")].find((li) => tool === undefined || li.dataset.tool === tool)
      : undefined;
    // A one-shot call (transcriptItems' ONE_SHOT: apply_patch) is done once any row follows it.
    list.querySelectorAll(':scope > li[data-pending][data-tool="apply_patch"]').forEach((li) => li.removeAttribute("data-pending"));
    if (!call) { list.append(row); return; }
    call.removeAttribute("data-pending");
    call.querySelector(":scope > ol.tool-results")?.append(row);
    const took = call.querySelector(":scope > .tool-head [data-testid=tool-duration]");
    if (took) took.textContent = duration(Number(row.dataset.at) - Number(call.dataset.at));
  };
  // Follows the tail only while the reader is at the bottom of the page; scrolled up, the page stays where it is.
  const atBottom = () => window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 40;
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
      const list = target.querySelector("ol.transcript");
      const stick = atBottom();
      data.rows.forEach((line, i) => {
        if (line.seq <= Number(target.dataset.lastSeq ?? "0")) return;
        for (const row of rowsOf(data.html[i] ?? "")) if (list) place(list, row);
        target.dataset.lastSeq = String(line.seq);
      });
      if (stick) window.scrollTo({ top: document.documentElement.scrollHeight });
    });
    stream.addEventListener("state", () => refresh());
    stream.addEventListener("attempt", () => refresh());
    stream.addEventListener("note", () => refresh());
  };
  // The Board: a card dragged onto another column, or moved with Alt+Arrow while focused, posts its own Move form.
  const moveCard = (card, column) => {
    const form = card.querySelector("form.move");
    const select = form?.querySelector("select[name=column]");
    if (!form || !select || !column || column === card.closest("[data-column]")?.dataset.column) return;
    select.value = column;
    card.classList.add("moving");
    form.requestSubmit();
  };
  document.addEventListener("dragstart", (event) => {
    const card = event.target instanceof Element ? event.target.closest("[data-draggable-card]") : null;
    if (!card || !event.dataTransfer) return;
    event.dataTransfer.setData("text/plain", card.dataset.itemKey ?? "");
    event.dataTransfer.effectAllowed = "move";
    card.classList.add("dragging");
  });
  document.addEventListener("dragend", (event) => {
    if (event.target instanceof Element) event.target.classList.remove("dragging");
    document.querySelectorAll(".column.drop-target").forEach((el) => el.classList.remove("drop-target"));
  });
  document.addEventListener("dragover", (event) => {
    const column = event.target instanceof Element ? event.target.closest("[data-drop-column]") : null;
    if (!column || !document.querySelector(".dragging")) return;
    event.preventDefault();
    document.querySelectorAll(".column.drop-target").forEach((el) => el !== column && el.classList.remove("drop-target"));
    column.classList.add("drop-target");
  });
  document.addEventListener("drop", (event) => {
    const column = event.target instanceof Element ? event.target.closest("[data-drop-column]") : null;
    const card = document.querySelector(".dragging");
    if (!column || !card) return;
    event.preventDefault();
    column.classList.remove("drop-target");
    moveCard(card, column.dataset.column);
  });
  document.addEventListener("keydown", (event) => {
    const card = event.target instanceof Element && event.target.matches("[data-draggable-card]") ? event.target : null;
    if (!card || !event.altKey || (event.key !== "ArrowLeft" && event.key !== "ArrowRight")) return;
    const columns = [...document.querySelectorAll("[data-drop-column]")];
    const at = columns.indexOf(card.closest("[data-drop-column]"));
    const next = columns[at + (event.key === "ArrowLeft" ? -1 : 1)];
    if (at < 0 || !next) return;
    event.preventDefault();
    moveCard(card, next.dataset.column);
  });
  // Times: relative on the page ("5 min ago", "running 2 min"), the UTC time in their title.
  const span = (ms) => {
    const s = Math.max(0, Math.round(ms / 1000));
    if (s < 60) return s + " s";
    const m = Math.floor(s / 60);
    if (m < 60) return m + " min";
    const h = Math.floor(m / 60);
    if (h < 48) return h + " h " + (m % 60) + " min";
    return Math.floor(h / 24) + " days";
  };
  const relativeTimes = () => {
    const now = Date.now();
    document.querySelectorAll("time[data-relative]").forEach((el) => {
      const at = Date.parse(el.getAttribute("datetime") ?? "");
      if (Number.isNaN(at)) return;
      const ms = now - at;
      const text = el.dataset.relative === "elapsed" ? span(ms) : ms < 45000 ? "just now" : span(ms) + " ago";
      if (el.textContent !== text) el.textContent = text;
    });
  };
  relativeTimes();
  setInterval(relativeTimes, 15000);
  new MutationObserver(() => relativeTimes()).observe(document.body, { childList: true, subtree: true });
  if (document.body.dataset.live === "page") {
    new EventSource("/events").addEventListener("changed", () => refresh());
  }
  follow();
})();
`
