// The nugget_evaluation annotation page (templates/nugget_evaluation/_unit.html), beside annotate.js and unit.js.
//
// Assignment: one nugget is current (outlined); s, p and n mark it supported, partly or not and move to the next
// unmarked one; the key that marks the last nugget left submits the answer. j / k (or the arrow keys) move between
// nuggets; Enter submits (a changed mark, say) once every nugget is marked, and otherwise goes to the first one
// left. A click on a mark makes its nugget current.
//
// Creation: each row is a nugget (an importance and a text). In a row's text, Enter adds a row below, Backspace in an
// empty row deletes it, Alt+Up / Alt+Down move the row, Alt+M merges it with the next, Alt+V switches vital and okay,
// Alt+1 (2, ...) starts from the first (second, ...) proposed list, Ctrl+Enter submits. "Start from" a proposed list copies its nuggets into the rows (the server records which were
// kept, edited or added). What is on screen is kept as a draft shortly after each change.
(function () {
  "use strict";

  var container = document.getElementById("annotate-unit");
  if (!container) return;
  var unit = window.ConcordUnit;
  var DRAFT_DELAY_MS = 800;
  var draftTimer = null;

  function card() { return document.getElementById("nugget-card"); }
  function form() { return document.getElementById("nugget-form"); }
  function status(text) { var el = document.getElementById("draft-status"); if (el) el.textContent = text; }

  function scheduleDraft() {
    var c = card();
    if (!c || c.classList.contains("editing")) return;
    if (draftTimer) clearTimeout(draftTimer);
    draftTimer = setTimeout(saveDraft, DRAFT_DELAY_MS);
  }

  function saveDraft() {
    draftTimer = null;
    var c = card(), f = form();
    if (!c || !f) return;
    var body = new FormData(f);
    status("Saving draft…");
    fetch(c.getAttribute("data-draft-url"), {
      method: "POST", body: body, credentials: "same-origin",
      headers: unit ? unit.headers() : { "X-Requested-With": "fetch" },
    }).then(function (response) {
      if (c !== card()) return;
      if (response.ok) { status("Draft saved"); return; }
      if (response.status === 401) { status("Draft not saved: your session has ended"); if (unit) unit.signInNeeded(); return; }
      return response.text().then(function (text) { status("Draft not saved: " + text); });
    }).catch(function () { if (c === card()) status("Draft not saved: no connection"); });
  }

  // --- Assignment ---

  function markSets() { return Array.prototype.slice.call(container.querySelectorAll("fieldset.nugget-mark")); }
  function marked(fs) { return !!fs.querySelector("input:checked"); }
  function current() { return container.querySelector("fieldset.nugget-mark[aria-current]"); }

  function setCurrent(fs) {
    markSets().forEach(function (el) { el.removeAttribute("aria-current"); });
    if (!fs) return;
    fs.setAttribute("aria-current", "true");
    fs.scrollIntoView({ block: "nearest" });
  }

  function countLeft() {
    var sets = markSets(), left = sets.filter(function (fs) { return !marked(fs); }).length;
    var el = document.getElementById("marks-count");
    if (el) el.textContent = left ? left + " of " + sets.length + " left" : "all " + sets.length + " marked";
    return left;
  }

  function nextUnmarked(from) {
    var sets = markSets(), start = sets.indexOf(from);
    for (var i = 1; i <= sets.length; i++) {
      var fs = sets[(start + i) % sets.length];
      if (!marked(fs)) return fs;
    }
    return null;
  }

  function mark(letter) {
    var fs = current();
    if (!fs) return;
    var input = fs.querySelector(".mark-" + letter + " input");
    if (!input) return;
    var before = countLeft();
    input.checked = true;
    var left = countLeft();
    setCurrent(left ? nextUnmarked(fs) : fs);
    // The mark that completes the answer submits it (the next answer comes on its own; u steps back to change it).
    // A mark changed once every nugget was marked waits for Enter.
    if (before === 1 && left === 0) { submitMarks(); return; }
    scheduleDraft();
  }

  function move(step) {
    var sets = markSets(), at = sets.indexOf(current());
    var next = sets[Math.min(sets.length - 1, Math.max(0, at + step))];
    if (next) setCurrent(next);
  }

  function submitMarks() {
    if (countLeft()) {
      setCurrent(markSets().filter(function (fs) { return !marked(fs); })[0]);
      status("Mark every nugget first.");
      return;
    }
    if (draftTimer) { clearTimeout(draftTimer); draftTimer = null; }
    var button = document.getElementById("nugget-submit");
    if (window.htmx) window.htmx.process(container);
    if (button) button.click();
  }

  function assignmentKeys(event) {
    var key = window.ConcordKeys.of(event);  // "" where the person's choice of shortcuts makes it none
    key = key.length === 1 ? key.toLowerCase() : key;
    var acts = { s: function () { mark("s"); }, p: function () { mark("p"); }, n: function () { mark("n"); },
                 j: function () { move(1); }, ArrowDown: function () { move(1); },
                 k: function () { move(-1); }, ArrowUp: function () { move(-1); }, Enter: submitMarks };
    if (!acts[key]) return;
    event.preventDefault();
    if (unit && !unit.accepts(event)) return;
    acts[key]();
  }

  // --- Creation ---

  function rowsBox() { return document.getElementById("nugget-rows"); }
  function rows() { return Array.prototype.slice.call(rowsBox().querySelectorAll(".nugget-row")); }
  function textOf(row) { return row.querySelector(".nugget-text-input"); }

  function newRow(after, text, importance, from) {
    var template = document.getElementById("nugget-row-template");
    var row = template.content.firstElementChild.cloneNode(true);
    wireRow(row);
    textOf(row).value = text || "";
    if (importance) row.querySelector("select").value = importance;
    row.querySelector("input[name=nugget_from]").value = from || "";
    if (after) after.after(row); else rowsBox().appendChild(row);
    return row;
  }

  function wireRow(row) {
    var tools = row.querySelector(".nugget-row-tools");
    if (tools) tools.hidden = false;
  }

  function act(row, what) {
    var all = rows(), at = all.indexOf(row);
    if (what === "up" && at > 0) all[at - 1].before(row);
    else if (what === "down" && at < all.length - 1) all[at + 1].after(row);
    else if (what === "merge" && at < all.length - 1) {
      var next = all[at + 1];
      textOf(row).value = [textOf(row).value.trim(), textOf(next).value.trim()].filter(Boolean).join(" ");
      // A merged nugget is the assessor's own: it comes from no single proposal.
      row.querySelector("input[name=nugget_from]").value = "";
      next.remove();
    } else if (what === "delete") {
      var focus = all[at - 1] || all[at + 1];
      if (all.length > 1) row.remove(); else { textOf(row).value = ""; focus = row; }
      if (focus) textOf(focus).focus();
      scheduleDraft();
      return;
    } else if (what === "importance") {
      var select = row.querySelector("select");
      select.value = select.value === "vital" ? "okay" : "vital";
    } else return;
    textOf(row).focus();
    scheduleDraft();
  }

  function startFrom(source) {
    var proposal = container.querySelector('.nugget-proposal[data-source="' + CSS.escape(source) + '"]');
    if (!proposal) return;
    var written = rows().some(function (row) { return textOf(row).value.trim(); });
    if (written && !window.confirm("Replace the nuggets written so far with this list?")) return;
    rows().forEach(function (row) { row.remove(); });
    proposal.querySelectorAll("li").forEach(function (li) {
      newRow(null, li.querySelector(".proposal-text").textContent, li.getAttribute("data-importance"), li.getAttribute("data-id"));
    });
    document.getElementById("started-from").value = source;
    var first = rows()[0];
    if (first) textOf(first).focus();
    scheduleDraft();
  }

  function creationKeys(event) {
    var row = event.target.closest && event.target.closest(".nugget-row");
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      if (draftTimer) { clearTimeout(draftTimer); draftTimer = null; }
      if (window.htmx) window.htmx.process(container);
      document.getElementById("nugget-submit").click();
      return;
    }
    if (event.altKey && /^Digit[1-9]$/.test(event.code)) {
      var offered = container.querySelectorAll(".nugget-proposal");
      var chosen = offered[Number(event.code.slice(5)) - 1];
      if (chosen) { event.preventDefault(); startFrom(chosen.getAttribute("data-source")); }
      return;
    }
    if (!row || !event.target.classList.contains("nugget-text-input")) return;
    if (event.key === "Enter") { event.preventDefault(); textOf(newRow(row)).focus(); return; }
    if (event.key === "Backspace" && !event.target.value && rows().length > 1) { event.preventDefault(); act(row, "delete"); return; }
    if (!event.altKey) return;
    var key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
    var what = { ArrowUp: "up", ArrowDown: "down", m: "merge", v: "importance", "µ": "merge", "√": "importance" }[key];
    if (what) { event.preventDefault(); act(row, what); }
  }

  // --- Wiring ---

  function init() {
    var c = card();
    if (!c) return;
    if (c.getAttribute("data-step-kind") === "assignment") {
      var sets = markSets();
      countLeft();
      setCurrent(sets.filter(function (fs) { return !marked(fs); })[0] || sets[0]);
    } else {
      rows().forEach(wireRow);
      var add = document.getElementById("nugget-add");
      if (add) add.hidden = false;
      container.querySelectorAll(".nugget-start").forEach(function (b) { b.hidden = false; });
      var empty = rows().filter(function (row) { return !textOf(row).value; })[0];
      textOf(empty || rows()[rows().length - 1]).focus();
    }
  }

  container.addEventListener("click", function (event) {
    var target = event.target;
    var c = card();
    if (!c || !target.closest) return;
    var fs = target.closest("fieldset.nugget-mark");
    if (fs && target.matches("input")) { setCurrent(fs); countLeft(); scheduleDraft(); return; }
    var tool = target.closest("[data-act]");
    if (tool) { act(tool.closest(".nugget-row"), tool.getAttribute("data-act")); return; }
    var start = target.closest("[data-start]");
    if (start) { startFrom(start.getAttribute("data-start")); return; }
    if (target.closest("#nugget-add")) { textOf(newRow(rows()[rows().length - 1])).focus(); }
  });
  container.addEventListener("input", function (event) {
    if (event.target.closest && event.target.closest("#nugget-form")) scheduleDraft();
  });
  container.addEventListener("change", function (event) {
    if (event.target.closest && event.target.closest("#nugget-form")) scheduleDraft();
  });
  document.addEventListener("keydown", function (event) {
    var c = card();
    if (!c || event.repeat) return;
    var help = document.getElementById("help");
    if (help && help.open) return;
    if (c.getAttribute("data-step-kind") === "creation") { creationKeys(event); return; }
    var tag = event.target && event.target.tagName;
    if (tag === "TEXTAREA" || tag === "SELECT" || (tag === "INPUT" && event.target.type === "text")) return;
    assignmentKeys(event);
  });
  container.addEventListener("htmx:afterSwap", function () {
    if (draftTimer) { clearTimeout(draftTimer); draftTimer = null; }
    init();
  });
  init();
})();
