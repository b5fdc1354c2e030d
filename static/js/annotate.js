// Keyboard for the annotation page. Every control a key works carries data-key (its keys, separated by
// spaces): y / n answer, 0 / 1 / 2 grade an image, u goes back to the previous verdict, ? opens the
// guidelines, o shows or clamps long texts (static/js/unit.js, which also keeps verdicts from being lost). Keys act
// by clicking the page's own controls, so mouse and keyboard take one path. Which keys count, single or with Alt or
// none, is the person's choice (static/js/keys.js).
//
// A form that asks its questions in turn (ais: 1 interpretable?, 2 supported?) has data-steps and one
// fieldset per question with data-step; only the current question answers keys. An answer with data-next
// opens that question; any other answer submits, with the questions after it left unanswered (so a "no"
// to question 1 posts no answer to question 2). Without JavaScript every question shows, with a submit
// button (data-no-script), and the server checks that the answers go together.
//
// An image to grade (image_relevance: keys 0, 1, 2) loads over its thumbnail; once it is in, the next
// image (data-prefetch) is fetched into the browser's cache, so the next unit shows at once.
(function () {
  "use strict";

  var container = document.getElementById("annotate-unit");
  var help = document.getElementById("help");
  if (!container) return;

  // One request at a time, and no key for a unit before it is on screen: static/js/unit.js decides.
  var unit = window.ConcordUnit;
  container.addEventListener("htmx:afterSwap", function () { steps(); images(); });

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
    if (!el || el.disabled || (unit && unit.busy())) return;
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
      if (unit && unit.busy()) { event.preventDefault(); return; }
      var next = el.getAttribute("data-next");
      if (next) {
        showStep(form, Number(next));
        if (unit) unit.shown();  // the next question, like the next unit, takes keys once it has been seen
        return;
      }
      var step = stepNumber(el);
      stepsOf(form).forEach(function (fieldset) { if (stepNumber(fieldset) > step) clear(fieldset); });
      if (window.htmx) window.htmx.process(container);
      form.requestSubmit();
    } else if (el.closest("[data-back]") && !(unit && unit.busy())) {
      showStep(form, stepNumber(el) - 1);
    }
  });

  // --- Images ---

  var prefetch = null;  // the one image fetched ahead; a new one replaces it, so memory stays flat all day

  function imageLoaded(img) {
    // The thumbnail behind it goes: it would show through a transparent image.
    img.setAttribute("data-loaded", "");
    var next = img.getAttribute("data-prefetch");
    if (next && (!prefetch || prefetch.getAttribute("src") !== next)) {
      prefetch = new Image();
      prefetch.decoding = "async";
      prefetch.src = next;
    }
  }

  function imageFailed(img) {
    img.setAttribute("data-failed", "");
    var note = container.querySelector("#image-failed");
    if (note) note.hidden = false;
    // What cannot be seen cannot be graded.
    container.querySelectorAll("button[name=grade]").forEach(function (button) { button.disabled = true; });
  }

  // An image may have loaded (from the cache) before these listeners saw it.
  function images() {
    var img = container.querySelector("img.grade-image");
    if (!img || !img.complete || img.hasAttribute("data-loaded") || img.hasAttribute("data-failed")) return;
    if (img.naturalWidth > 0) imageLoaded(img); else imageFailed(img);
  }

  // load and error do not bubble; listening in the capture phase catches them for every swapped-in image.
  container.addEventListener("load", function (event) {
    if (event.target.matches && event.target.matches("img.grade-image")) imageLoaded(event.target);
  }, true);
  container.addEventListener("error", function (event) {
    if (event.target.matches && event.target.matches("img.grade-image")) imageFailed(event.target);
  }, true);

  // --- Guidelines ---

  function toggleHelp() {
    if (!help) return;
    if (help.open) help.close(); else help.showModal();
  }

  var helpButton = document.getElementById("help-open");
  if (helpButton) helpButton.addEventListener("click", toggleHelp);

  document.addEventListener("keydown", function (event) {
    if (event.repeat || typing(event.target)) return;
    var key = window.ConcordKeys.of(event);  // "" where the person's choice of shortcuts makes it none
    if (key === "?") { event.preventDefault(); toggleHelp(); return; }
    if (!key || (help && help.open)) return;  // the dialog has the keyboard; Esc closes it
    key = key.length === 1 ? key.toLowerCase() : key;
    if (key === "o" && unit && unit.toggleClamps()) { event.preventDefault(); return; }
    var el = keyTarget(key);
    if (!el) return;
    event.preventDefault();
    // A key that came before the unit on screen was painted, or while a verdict is in flight or waits to be sent,
    // was not meant for this unit.
    if (unit && !unit.accepts(event)) return;
    press(el);
  });

  steps();
  images();
  if (unit) unit.start({ clampKey: "o" });
})();
