// The adjudication pages, keyboard first (docs/adjudication.md): on the queue Enter or j opens the next unit; on a
// unit, a choice's key (y/n, 0-9) picks it in the first question still unanswered (AIS: interpretable, then
// supported), Backspace clears the answers, c writes a note and Esc leaves it, Enter saves (Ctrl+Enter in the note),
// j goes to the next unit without deciding this one, q back to the queue. A question shown only after another's answer
// (data-when-name / data-when-value) is hidden, and its answer cleared, while that answer is not given. Which keys
// count, single or with Alt or none, is the person's choice (static/js/keys.js).
(function () {
  "use strict";

  function questions() {
    return Array.from(document.querySelectorAll("#adjudicate-form .adj-question"));
  }

  function shown(fieldset) {
    const name = fieldset.dataset.whenName;
    if (!name) return true;
    const chosen = document.querySelector(`#adjudicate-form input[name="${name}"]:checked`);
    return Boolean(chosen) && chosen.value === fieldset.dataset.whenValue;
  }

  function refresh() {
    for (const fieldset of questions()) {
      const visible = shown(fieldset);
      fieldset.hidden = !visible;
      if (!visible) fieldset.querySelectorAll("input:checked").forEach((input) => { input.checked = false; });
    }
  }

  function answered(fieldset) {
    return Boolean(fieldset.querySelector("input:checked"));
  }

  function pick(key) {
    const open = questions().filter((fieldset) => shown(fieldset) && fieldset.querySelector("input[type=radio]"));
    const target = open.find((fieldset) => !answered(fieldset)) || open[open.length - 1];
    if (!target) return false;
    const input = target.querySelector(`input[data-key="${CSS.escape(key)}"]`);
    if (!input) return false;
    input.checked = true;
    refresh();
    return true;
  }

  function typing(element) {
    return element && (element.tagName === "TEXTAREA" || (element.tagName === "INPUT" && element.type === "text"));
  }

  function follow(id) {
    const link = document.getElementById(id);
    if (link) window.location.assign(link.href);
    return Boolean(link);
  }

  document.addEventListener("change", refresh);
  document.addEventListener("DOMContentLoaded", () => {
    refresh();
    window.ConcordKeys.announce(document);
    const text = document.querySelector("#adjudicate-form input[type=text]");
    if (text) text.focus();
    document.documentElement.dataset.adjudicateKeys = "on";  // the keys are bound (tests wait for it)
  });

  document.addEventListener("keydown", (event) => {
    const key = window.ConcordKeys.of(event);  // "" where the person's choice of shortcuts makes it none
    const form = document.getElementById("adjudicate-form");
    const active = document.activeElement;
    if (!form) {  // the queue
      if ((key === "Enter" || key === "j") && !typing(active) && follow("adjudicate-next")) {
        event.preventDefault();
      }
      return;
    }
    if (typing(active) && !form.contains(active)) return;  // another form's field (the item's category)
    if (typing(active)) {
      if (event.altKey || event.metaKey) return;
      if (event.key === "Escape") { active.blur(); event.preventDefault(); }
      else if (event.key === "Enter" && (active.tagName === "INPUT" || event.ctrlKey)) {
        event.preventDefault();
        form.requestSubmit();
      }
      return;
    }
    if (!key) return;
    if (key === "Enter") {
      if (active && (active.tagName === "A" || active.tagName === "BUTTON" || active.tagName === "SUMMARY")) return;
      event.preventDefault();
      form.requestSubmit();
    } else if (key === "c") {
      event.preventDefault();
      document.getElementById("note").focus();
    } else if (key === "j") {
      if (follow("adjudicate-skip")) event.preventDefault();
    } else if (key === "q") {
      if (follow("queue-link")) event.preventDefault();
    } else if (key === "Backspace") {
      event.preventDefault();
      form.querySelectorAll("input[type=radio]:checked").forEach((input) => { input.checked = false; });
      refresh();
    } else if (pick(key)) {
      event.preventDefault();
    }
  });
})();
