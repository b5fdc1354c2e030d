// Keyboard for the annotation page. Every control a key works carries data-key (its keys, separated by
// spaces): y / n answer, u goes back to the previous verdict, ? opens the guidelines. Keys act by clicking
// the page's own controls, so mouse and keyboard take one path.
//
// A form that asks its questions in turn (ais: 1 interpretable?, 2 supported?) has data-steps and one
// fieldset per question with data-step; only the current question answers keys. An answer with data-next
// opens that question; any other answer submits, with the questions after it left unanswered (so a "no"
// to question 1 posts no answer to question 2). Without JavaScript every question shows, with a submit
// button (data-no-script), and the server checks that the answers go together.
(function () {
  "use strict";

  var container = document.getElementById("annotate-unit");
  var help = document.getElementById("help");
  if (!container) return;

  // One request at a time: a second key press while a verdict is being saved must not submit
  // it twice (or judge the next unit before the annotator has seen it).
  var busy = false;
  container.addEventListener("htmx:beforeRequest", function () { busy = true; });
  container.addEventListener("htmx:afterSwap", function () { busy = false; steps(); });
  container.addEventListener("htmx:afterRequest", function (event) {
    if (event.detail.failed) {
      busy = false;
      var note = document.createElement("p");
      note.className = "annotate-note error";
      note.setAttribute("role", "alert");
      note.textContent = "That did not reach the server (" + (event.detail.xhr.status || "no connection") +
        "). Reload the page to continue; verdicts already saved are kept.";
      container.prepend(note);
    }
  });

  function typing(target) {
    if (!target) return false;
    var tag = target.tagName;
    if (tag === "INPUT") return !/^(radio|checkbox|button|submit|reset)$/.test(target.type);
    return tag === "TEXTAREA" || tag === "SELECT" || target.isContentEditable;
  }

  // The control KEY works now: visible, and outside any question that is not the current one.
  function keyTarget(key) {
    var controls = container.querySelectorAll("[data-key]");
    for (var i = 0; i < controls.length; i++) {
      var el = controls[i];
      if (el.getAttribute("data-key").split(" ").indexOf(key) < 0 || el.closest("[hidden]")) continue;
      var step = el.closest("[data-step]");
      if (!step || step.getAttribute("aria-current") === "step") return el;
    }
    return null;
  }

  function press(el) {
    if (!el || el.disabled || busy) return;
    // htmx wires freshly swapped forms only when the swap settles (some milliseconds later);
    // a fast annotator's next key must not fall back to a plain form post and a full page load.
    if (window.htmx) window.htmx.process(container);
    el.click();
  }

  // --- Questions asked in turn ---

  function stepsOf(form) { return Array.prototype.slice.call(form.querySelectorAll("[data-step]")); }
  function stepNumber(el) { return Number(el.closest("[data-step]").getAttribute("data-step")); }
  function clear(fieldset) { fieldset.querySelectorAll("input").forEach(function (input) { input.checked = false; }); }

  // Show the questions up to N, N the current one; N and those after it start unanswered.
  function showStep(form, n) {
    stepsOf(form).forEach(function (fieldset) {
      var step = stepNumber(fieldset);
      fieldset.hidden = step > n;
      // State in attributes, not classes: htmx puts back the server's class attribute when a swap settles.
      if (step === n) fieldset.setAttribute("aria-current", "step"); else fieldset.removeAttribute("aria-current");
      if (step >= n) clear(fieldset);
    });
  }

  function steps() {
    var form = container.querySelector("form[data-steps]");
    if (!form) return;
    form.querySelectorAll("[data-no-script]").forEach(function (el) { el.hidden = true; });
    form.querySelectorAll("[data-back]").forEach(function (el) { el.hidden = false; });
    form.setAttribute("data-in-steps", "");
    showStep(form, 1);
  }

  container.addEventListener("click", function (event) {
    var el = event.target;
    var form = el.closest && el.closest("form[data-steps]");
    if (!form) return;
    if (el.matches("input[type=radio]")) {
      if (busy) { event.preventDefault(); return; }
      var next = el.getAttribute("data-next");
      if (next) { showStep(form, Number(next)); return; }
      var step = stepNumber(el);
      stepsOf(form).forEach(function (fieldset) { if (stepNumber(fieldset) > step) clear(fieldset); });
      if (window.htmx) window.htmx.process(container);
      form.requestSubmit();
    } else if (el.closest("[data-back]") && !busy) {
      showStep(form, stepNumber(el) - 1);
    }
  });

  // --- Guidelines ---

  function toggleHelp() {
    if (!help) return;
    if (help.open) help.close(); else help.showModal();
  }

  var helpButton = document.getElementById("help-open");
  if (helpButton) helpButton.addEventListener("click", toggleHelp);

  document.addEventListener("keydown", function (event) {
    if (event.repeat || event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
    if (event.key === "?") { event.preventDefault(); toggleHelp(); return; }
    if (help && help.open) return;  // the dialog has the keyboard; Esc closes it
    var el = keyTarget(event.key.length === 1 ? event.key.toLowerCase() : event.key);
    if (!el) return;
    event.preventDefault();
    press(el);
  });

  steps();
})();
