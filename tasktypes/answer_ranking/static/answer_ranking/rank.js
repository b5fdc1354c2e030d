// The ranking page: order every candidate of a topic, best first, by drag and drop or by keyboard alone.
//   j / k            select the next / previous candidate
//   J / K (shift)    move the selected candidate down / up
//   1 - 9            move the selected candidate to that place
//   t                tie it with the one above (when the campaign allows ties)
//   o                show / hide the full text of a long candidate
//   d / D            next / previous dimension (when the campaign ranks by several)
//   Enter            submit the whole ranking; u back to the previous topic; ? guidelines
//   c                keep this order: the order shown is already the annotator's own
//   x                leave the selected candidate unranked (with rank_depth)
// While the focus is in the list, also (whatever the person's shortcut setting: they act only there, WCAG 2.1.4):
//   Up / Down        select the previous / next candidate; Home / End the first / last
//   Shift+Up / Down  move the selected candidate up / down
//   Space            show / hide its full text
// Elsewhere the arrow keys and Space scroll the page as usual.
// Without sight: each list is a listbox, one stop for Tab (roving tabindex): the selected candidate is the one with
// the focus, aria-selected, and its name says its place ("Candidate B, place 2 of 5", "... tied with the one above",
// "..., not ranked"); its text is its description. A key that acts on a candidate brings the focus to it. A move is
// said in #rank-said ("Candidate B moved to place 1 of 5."), apart from the draft's line, which speaks only when a
// draft is not saved.
// With the campaign's rank_depth k (data-depth) only the best k need a place: each list holds its ranked candidates
// first (data-ranked says how many) and below a "Not ranked" line the rest, which the ranking leaves out
// (docs/answer_ranking.md). A number key or Shift+K across the line ranks a candidate, x or Shift+J across it
// unranks one; Enter submits once every dimension ranks at least min(k, candidates).
// The list in the page is the state: every change is written to the form's hidden "ranking" field
// at once (so a submit always sends what is on screen) and saved as a draft shortly after.
// The page starts from a shuffled order, which must never pass for the expert's ranking: Enter submits only once
// every dimension was moved or explicitly kept (c), and the ranking records which ("order_confirmed",
// docs/answer_ranking.md). Sending, signing in again and keys in time: static/js/unit.js.
(function () {
  "use strict";

  var container = document.getElementById("annotate-unit");
  var help = document.getElementById("help");
  if (!container) return;

  var DRAFT_DELAY_MS = 400;
  var card = null;        // the unit's card, null on the "all done" page
  var panel = null;       // the dimension shown
  var selected = {};      // dimension -> index of the selected candidate
  var draftTimer = null;
  var dragged = null;
  var confirmed = {};     // dimension -> "moved" | "kept": how its order was settled
  var confirmRequired = true;

  // One request at a time, and no key for a topic before it is on screen: static/js/unit.js decides.
  var unit = window.ConcordUnit;
  function busy() { return unit ? unit.busy() : false; }
  container.addEventListener("htmx:afterSwap", function () { init(); });
  // However the ranking is submitted (Enter, c, or a click on the button), a draft still waiting to be sent is
  // dropped: sent after the submit it would reach a submitted unit (answered 409) and say nothing useful.
  container.addEventListener("submit", function () {
    if (draftTimer) { clearTimeout(draftTimer); draftTimer = null; }
  }, true);

  function items(list) { return Array.prototype.slice.call(list.querySelectorAll(":scope > .rank-item")); }
  function activeList() { return panel ? panel.querySelector(".rank-list") : null; }
  function dimension() { return panel ? panel.getAttribute("data-dimension") : null; }
  function tiesAllowed() { return card && card.getAttribute("data-ties") === "1"; }
  function partial() { return !!card && card.hasAttribute("data-depth"); }
  // How many of LIST's candidates are ranked (its first ones): all of them unless the campaign has rank_depth.
  function rankedCount(list) {
    return partial() ? Number(list.getAttribute("data-ranked") || 0) : items(list).length;
  }
  function need(list) { return Math.min(Number(card.getAttribute("data-depth")), items(list).length); }

  function init() {
    card = document.getElementById("rank-card");
    panel = null;
    selected = {};
    if (draftTimer) { clearTimeout(draftTimer); draftTimer = null; }
    if (!card) return;
    try { confirmed = JSON.parse(card.getAttribute("data-confirmed") || "{}") || {}; } catch (e) { confirmed = {}; }
    confirmRequired = card.getAttribute("data-confirm-required") !== "0";
    tell("");
    card.querySelectorAll(".rank-list").forEach(function (list) { renumber(list); });
    showPanel(card.querySelector(".rank-panel"));
    writeValue();
  }

  // Whether EL is in the list shown.
  function inList(el) {
    var list = activeList();
    return !!(list && el && el.closest && el.closest(".rank-list") === list);
  }

  function showPanel(next) {
    if (!next) return;
    // The focus in the list about to be hidden would fall to the page: it follows to the list shown.
    var follow = inList(document.activeElement);
    panel = next;
    card.querySelectorAll(".rank-panel").forEach(function (p) { p.hidden = p !== next; });
    card.querySelectorAll(".rank-tab").forEach(function (tab) {
      var on = tab.getAttribute("data-dimension") === next.getAttribute("data-dimension");
      tab.classList.toggle("active", on);
      tab.setAttribute("aria-selected", on ? "true" : "false");
    });
    select(selected[dimension()] || 0, follow);
  }

  // Select the candidate at INDEX of the list shown: the list's one stop for Tab, and aria-selected. FOCUS: move the
  // focus to it too; a topic or dimension just shown leaves the focus where it is (unit.js: on the topic's heading).
  function select(index, focus) {
    var list = activeList();
    if (!list) return;
    var all = items(list);
    if (!all.length) return;
    index = Math.max(0, Math.min(all.length - 1, index));
    selected[dimension()] = index;
    all.forEach(function (li, n) {
      li.classList.toggle("selected", n === index);
      li.setAttribute("aria-selected", n === index ? "true" : "false");
      li.tabIndex = n === index ? 0 : -1;
    });
    // Scrolled by hand, not by focus(): "nearest" keeps it above the pinned buttons (unit.js).
    if (focus) all[index].focus({ preventScroll: true });
    all[index].scrollIntoView({ block: "nearest" });
  }

  function focusSelected() { select(selected[dimension()] || 0, true); }

  // Places shown beside each candidate (tie groups share one) and said in each one's name: the place drawn beside
  // a candidate is hidden from assistive technology.
  function renumber(list) {
    var place = 0;
    var ranked = rankedCount(list);
    var all = items(list);
    all.forEach(function (li, n) {
      var unranked = n >= ranked;
      li.classList.toggle("unranked", unranked);
      if (n === 0 || n === ranked) li.classList.remove("tied");
      if (!unranked && !li.classList.contains("tied")) place += 1;
      li.querySelector(".rank-pos").textContent = unranked ? "–" : String(place);
      li.setAttribute("data-place", unranked ? "not ranked" : "place " + place + " of " + all.length);
      li.setAttribute("aria-label", labelOf(li) + ", " + li.getAttribute("data-place") +
        (li.classList.contains("tied") ? ", tied with the one above" : ""));
    });
    if (partial()) placeCut(list, ranked);
  }

  // "Candidate B": the label drawn on LI, without its tie note.
  function labelOf(li) { return li.querySelector(".rank-label").firstChild.nodeValue.trim(); }

  // What a screen reader hears after a move or a tie (#rank-said, role=status). The same words again are said
  // again: a status line that does not change is not read.
  function tell(text) {
    var line = document.getElementById("rank-said");
    if (line) line.textContent = text && line.textContent === text ? text + "\u00a0" : text;
  }

  // With rank_depth, how many candidates are still to place, in words ("" once enough are ranked).
  function leftToPlace(list) {
    var left = partial() ? need(list) - rankedCount(list) : 0;
    return left > 0 ? " " + left + " more to rank." : "";
  }

  // LI's new place after a move ("Candidate B moved to place 1 of 5."), or that it stays where it is (MOVED false).
  function tellMove(list, li, moved) {
    var label = labelOf(li);
    var place = li.getAttribute("data-place");
    var words;
    if (place === "not ranked") words = label + (moved ? " moved below the line: not ranked." : " stays not ranked.");
    else words = label + (moved ? " moved to " : " stays at ") + place + ".";
    tell(words + leftToPlace(list));
  }

  // The "Not ranked" line goes under the ranked candidates and says how many more the annotator must place.
  function placeCut(list, ranked) {
    var cut = list.querySelector(":scope > .rank-cut");
    if (!cut) return;
    var all = items(list);
    list.insertBefore(cut, all[ranked] || null);
    cut.hidden = ranked >= all.length;
    var left = need(list) - ranked;
    cut.querySelector(".rank-cut-note").textContent = left > 0
      ? "Place " + left + " more above this line: select a candidate and press a number key." : "";
  }

  function ranking() {
    var rankings = {};
    card.querySelectorAll(".rank-list").forEach(function (list) {
      var groups = [];
      var ranked = rankedCount(list);
      items(list).forEach(function (li, n) {
        if (n >= ranked) return;  // unranked: left out of the ranking
        var key = li.getAttribute("data-key");
        if (li.classList.contains("tied") && groups.length) groups[groups.length - 1].push(key);
        else groups.push([key]);
      });
      rankings[list.getAttribute("data-dimension")] = groups;
    });
    var value = { rankings: rankings };
    var settled = {};
    dimensions().forEach(function (name) { if (confirmed[name]) settled[name] = confirmed[name]; });
    if (Object.keys(settled).length) {
      // A ranking recorded without confirmations (imported) and now changed: what was not moved was kept.
      if (!confirmRequired) dimensions().forEach(function (name) { settled[name] = settled[name] || "kept"; });
      value.order_confirmed = settled;
    }
    return value;
  }

  function dimensions() {
    return Array.prototype.map.call(card.querySelectorAll(".rank-list"), function (list) {
      return list.getAttribute("data-dimension");
    });
  }

  // The dimensions still in the order the page started from, neither moved nor kept.
  function unsettled() {
    if (!confirmRequired) return [];
    return dimensions().filter(function (name) { return !confirmed[name]; });
  }

  function titleOf(name) {
    var tab = card.querySelector('.rank-tab[data-dimension="' + name + '"]');
    return tab ? tab.textContent.trim() : "";
  }

  function confirmNote(text) {
    var el = document.getElementById("rank-confirm");
    if (!el) return;
    el.textContent = text || "";
    el.hidden = !text;
  }

  // The first dimension that ranks fewer than the best k (rank_depth), or null.
  function shortOf() {
    if (!partial()) return null;
    var lists = Array.prototype.slice.call(card.querySelectorAll(".rank-list"));
    for (var n = 0; n < lists.length; n += 1) if (rankedCount(lists[n]) < need(lists[n])) return lists[n];
    return null;
  }

  function refuseShort(list) {
    var name = list.getAttribute("data-dimension");
    var where = dimensions().length > 1 ? titleOf(name) + ": rank" : "Rank";
    var left = need(list) - rankedCount(list);
    confirmNote(where + " the best " + need(list) + " first: " + left + " more to place above the “Not ranked” " +
      "line. Select a candidate with j/k and press a number key to put it in that place.");
    showPanel(card.querySelector('.rank-panel[data-dimension="' + name + '"]'));
  }

  // Enter on a dimension nobody arranged: say so, show it, and send nothing.
  function refuseUnsettled(left) {
    var where = dimensions().length > 1 ? titleOf(left[0]) + ": the" : "The";
    // An assisted arm's page starts from a model's order (data-start="model"), not a shuffled one.
    var start = card.getAttribute("data-start") === "model" ? "the model's order" : "the shuffled order";
    confirmNote(where + " candidates are still in " + start + " the page started with, and that is not a " +
      "ranking yet. Move them into your order, or press c (Keep this order) if this order is already yours.");
    showPanel(card.querySelector('.rank-panel[data-dimension="' + left[0] + '"]'));
  }

  function writeValue() {
    var input = document.getElementById("ranking-value");
    if (input) input.value = JSON.stringify(ranking());
  }

  function changed(list) {
    confirmed[list.getAttribute("data-dimension")] = "moved";
    confirmNote("");
    renumber(list);
    writeValue();
    // An edit of a submitted ranking is saved by submitting it; drafts are for work not yet submitted.
    if (card.getAttribute("data-editing") === "1") return;
    if (draftTimer) clearTimeout(draftTimer);
    status("");
    draftTimer = setTimeout(saveDraft, DRAFT_DELAY_MS);
  }

  // The draft's line is seen, not heard: a screen reader hears only that a draft was not saved (tell).
  function status(text) {
    var el = document.getElementById("draft-status");
    if (el) el.textContent = text;
  }

  function draftRefused(text) {
    status(text);
    tell(text);
  }

  function saveDraft() {
    draftTimer = null;
    if (!card) return;
    var token = card.querySelector("input[name=csrfmiddlewaretoken]");
    var body = new FormData();
    body.append("assignment", card.getAttribute("data-assignment"));
    body.append("draft", JSON.stringify(ranking()));
    var mine = card;
    status("Saving draft…");
    fetch(card.getAttribute("data-draft-url"), {
      method: "POST", body: body, credentials: "same-origin",
      headers: unit ? unit.headers() : { "X-CSRFToken": token ? token.value : "", "X-Requested-With": "fetch" },
    }).then(function (response) {
      if (mine !== card) return;  // the next topic is shown meanwhile
      if (response.ok) { status("Draft saved"); return; }
      if (response.status === 401) {
        draftRefused("Draft not saved: your session has ended");
        if (unit) unit.signInNeeded();
        return;
      }
      return response.text().then(function (text) { draftRefused("Draft not saved: " + text); });
    }).catch(function () {
      if (mine === card) draftRefused("Draft not saved: no connection");
    });
  }

  // Move the candidate at FROM to index TO of LIST, and say its new place. A group's first candidate leaving hands
  // the group to the next one; the moved candidate starts a place of its own.
  // With rank_depth, RANKED says whether it ends up ranked (above the line; TO is then within the ranked ones)
  // or not; it may cross the line without moving (FROM === TO).
  function move(list, from, to, ranked) {
    var all = items(list);
    to = Math.max(0, Math.min(all.length - 1, to));
    var count = rankedCount(list);
    var was = from < count;
    if (ranked === undefined || !partial()) ranked = was;
    var li = all[from];
    if (!li) return;
    if (from === to && was === ranked) { tellMove(list, li, false); return; }
    var next = all[from + 1];
    if (!li.classList.contains("tied") && next && next.classList.contains("tied")) next.classList.remove("tied");
    li.classList.remove("tied");
    reorder(list, li, from, to);
    if (partial() && ranked !== was) list.setAttribute("data-ranked", String(count + (ranked ? 1 : -1)));
    if (list === activeList()) select(to);
    changed(list);
    tellMove(list, li, true);
  }

  // Put LI, at index FROM of LIST, at index TO by moving the candidates in between: LI itself stays in the page, so
  // it keeps the focus (taken out and put back, it would lose it, and a screen reader would read it out whole).
  function reorder(list, li, from, to) {
    var all = items(list);
    if (to > from) all.slice(from + 1, to + 1).forEach(function (other) { list.insertBefore(other, li); });
    else all.slice(to, from).reverse().forEach(function (other) { list.insertBefore(other, li.nextSibling); });
  }

  // Shift+J / Shift+K: one place down / up; with rank_depth across the line from the last ranked / first unranked.
  function step(list, index, down) {
    var count = rankedCount(list);
    if (partial() && down && index === count - 1) move(list, index, index, false);
    else if (partial() && !down && index === count) move(list, index, index, true);
    else move(list, index, index + (down ? 1 : -1), index < count);
  }

  // A number key: to that place among the ranked candidates (ranking it, with rank_depth).
  function place(list, index, to) {
    var count = rankedCount(list);
    move(list, index, Math.min(to, index < count ? count - 1 : count), true);
  }

  // x: below the line (an unranked one stays there, and is said to).
  function unrank(list, index) {
    if (partial()) move(list, index, index < rankedCount(list) ? rankedCount(list) - 1 : index, false);
  }

  function toggleTie() {
    var list = activeList();
    var index = selected[dimension()] || 0;
    if (!list || !tiesAllowed() || index === 0 || index >= rankedCount(list)) return;
    var li = items(list)[index];
    var tied = li.classList.toggle("tied");
    changed(list);
    tell(labelOf(li) + (tied ? " tied with the one above: " : " no longer tied: ") +
      li.getAttribute("data-place") + ".");
  }

  // o, Space in the list, or a click on "Show full text". A screen reader has the full text already (the candidate's
  // description): the toggle is drawn, not a control, since an option's controls are hidden from it.
  function toggleText(li) {
    if (!li) return;
    var text = li.querySelector(".rank-text");
    var more = li.querySelector(".rank-more");
    if (!more) return;
    var open = text.classList.toggle("collapsed") === false;
    more.firstChild.nodeValue = open ? "Show less " : "Show full text ";
  }

  function submit() {
    var button = document.getElementById("rank-submit");
    if (!button || button.disabled || busy()) return;
    var short = shortOf();
    if (short) { refuseShort(short); return; }
    var left = unsettled();
    if (left.length) { refuseUnsettled(left); return; }
    if (draftTimer) { clearTimeout(draftTimer); draftTimer = null; }
    writeValue();
    if (window.htmx) window.htmx.process(container);
    button.click();
  }

  // Keep this order: the dimension shown is settled as it stands; with every dimension settled, submit.
  function keep() {
    if (!card || busy()) return;
    var name = dimension();
    if (name && !confirmed[name]) confirmed[name] = "kept";
    confirmNote("");
    writeValue();
    var left = unsettled();
    if (left.length) {
      confirmNote("Kept. Now " + titleOf(left[0]).toLowerCase() + ": arrange it, or keep its order too (c).");
      showPanel(card.querySelector('.rank-panel[data-dimension="' + left[0] + '"]'));
      return;
    }
    submit();
  }

  function press(id) {
    var el = document.getElementById(id);
    if (!el || el.disabled || busy()) return;
    if (window.htmx) window.htmx.process(container);
    el.click();
  }

  function toggleHelp() {
    if (!help) return;
    if (help.open) help.close(); else help.showModal();
  }

  function typing(target) {
    if (!target) return false;
    var tag = target.tagName;
    return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || target.isContentEditable;
  }

  var helpButton = document.getElementById("help-open");
  if (helpButton) helpButton.addEventListener("click", toggleHelp);

  // Space on a candidate, whatever the person's choice of shortcuts: it acts only where the focus is.
  function listKey(event) {
    var plain = !event.altKey && !event.ctrlKey && !event.metaKey && !event.shiftKey;
    return plain && event.key === " " && inList(event.target) ? " " : "";
  }

  // The keys that act on the selected candidate; whether KEY was one. Arrows, Home, End and Space only while the
  // focus is in the list; elsewhere they scroll the page.
  function candidateKey(key, event, list, index) {
    var here = inList(event.target);
    var arrow = here && (key === "ArrowDown" || key === "ArrowUp");
    if (arrow && event.shiftKey) step(list, index, key === "ArrowDown");
    else if (key === "j" || (arrow && key === "ArrowDown")) select(index + 1);
    else if (key === "k" || arrow) select(index - 1);
    else if (here && (key === "Home" || key === "End")) select(key === "Home" ? 0 : items(list).length - 1);
    else if (key === "J") step(list, index, true);
    else if (key === "K") step(list, index, false);
    else if (/^[1-9]$/.test(key)) place(list, index, Number(key) - 1);
    else if (key === "x" && partial()) unrank(list, index);
    else if (key === "t" && tiesAllowed()) toggleTie();
    else if (key === "o" || (here && key === " ")) toggleText(items(list)[index]);
    else return false;
    return true;
  }

  function nextPanel(by) {
    var panels = Array.prototype.slice.call(card.querySelectorAll(".rank-panel"));
    var at = panels.indexOf(panel) + by;
    showPanel(panels[(at + panels.length) % panels.length]);
  }

  document.addEventListener("keydown", function (event) {
    if (typing(event.target)) return;
    // The key under the person's choice of shortcuts ("" for none), or Space on a candidate.
    var key = window.ConcordKeys.of(event) || listKey(event);
    if (key === "?") { event.preventDefault(); toggleHelp(); return; }
    if (!key || (help && help.open)) return;  // the dialog has the keyboard; Esc closes it
    // A key that came before the topic on screen was painted, or while a ranking is in flight or waits to be sent,
    // was not meant for this topic.
    var inTime = !unit || unit.accepts(event);
    if (key === "u" || key === "U") {
      if (!event.repeat && inTime) { event.preventDefault(); press("undo"); }
      return;
    }
    if (!card || !inTime) return;
    var list = activeList();
    var index = selected[dimension()] || 0;
    if (key === "Enter") {
      var tag = event.target && event.target.tagName;
      if (tag === "BUTTON" || tag === "A" || tag === "SUMMARY") return;  // let the focused control act
      if (!event.repeat) { event.preventDefault(); submit(); }
      return;
    }
    if (key === "c") {
      if (!event.repeat) { event.preventDefault(); keep(); }
      return;
    }
    if (key === "d" || key === "D") {
      event.preventDefault();
      nextPanel(key === "d" ? 1 : -1);
    } else if (candidateKey(key, event, list, index)) {
      event.preventDefault();
      focusSelected();
    }
  });

  // Tab into a list lands on its selected candidate; a click focuses the one clicked: either way it is selected.
  container.addEventListener("focusin", function (event) {
    var li = event.target.closest && event.target.closest(".rank-item");
    if (li && card && inList(li)) select(items(li.parentNode).indexOf(li));
  });

  // Mouse: click selects, the tabs switch dimension, "Show full text" opens a long candidate.
  container.addEventListener("click", function (event) {
    if (event.target.closest("#rank-keep")) { keep(); return; }
    var tab = event.target.closest(".rank-tab");
    if (tab && card) {
      showPanel(card.querySelector('.rank-panel[data-dimension="' + tab.getAttribute("data-dimension") + '"]'));
      return;
    }
    var li = event.target.closest(".rank-item");
    if (!li || !card) return;
    if (event.target.closest(".rank-more")) toggleText(li);
    select(items(li.parentNode).indexOf(li), true);
  });

  // HTML5 drag and drop. Dragging down drops after the target, dragging up before it, so the
  // result does not depend on where inside the target the pointer is let go.
  function clearMarks() {
    container.querySelectorAll(".drop-before, .drop-after").forEach(function (li) {
      li.classList.remove("drop-before", "drop-after");
    });
  }

  container.addEventListener("dragstart", function (event) {
    var li = event.target.closest && event.target.closest(".rank-item");
    if (!li) return;
    dragged = li;
    li.classList.add("dragging");
    event.dataTransfer.effectAllowed = "move";
    event.dataTransfer.setData("text/plain", li.getAttribute("data-key"));
  });

  container.addEventListener("dragover", function (event) {
    var li = event.target.closest && event.target.closest(".rank-item, .rank-cut");
    if (!dragged || !li || li.parentNode !== dragged.parentNode) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = "move";
    clearMarks();
    if (li === dragged || li.classList.contains("rank-cut")) return;
    var all = items(li.parentNode);
    li.classList.add(all.indexOf(dragged) < all.indexOf(li) ? "drop-after" : "drop-before");
  });

  container.addEventListener("drop", function (event) {
    var li = event.target.closest && event.target.closest(".rank-item, .rank-cut");
    if (!dragged || !li || li.parentNode !== dragged.parentNode) return;
    event.preventDefault();
    var list = li.parentNode;
    var all = items(list);
    var from = all.indexOf(dragged);
    if (li.classList.contains("rank-cut")) place(list, from, all.length);  // on the line: ranked last
    else move(list, from, all.indexOf(li), all.indexOf(li) < rankedCount(list));
    clearMarks();
  });

  container.addEventListener("dragend", function () {
    if (dragged) dragged.classList.remove("dragging");
    dragged = null;
    clearMarks();
  });

  // Signed in again after a draft was refused: keep it now.
  document.addEventListener("concord:signedin", function () {
    if (card && card.getAttribute("data-editing") !== "1") saveDraft();
  });

  function start() {
    init();
    if (unit) unit.start({});
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start); else start();
})();
