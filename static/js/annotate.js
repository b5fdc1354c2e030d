// Keyboard for the annotation page: y = correct, n = not correct, u = back to the previous verdict,
// ? = guidelines. Keys act by clicking the page's own buttons, so mouse and keyboard take one path.
(function () {
  "use strict";

  var container = document.getElementById("annotate-unit");
  var help = document.getElementById("help");
  if (!container) return;

  // One request at a time: a second key press while a verdict is being saved must not submit
  // it twice (or judge the next unit before the annotator has seen it).
  var busy = false;
  container.addEventListener("htmx:beforeRequest", function () { busy = true; });
  container.addEventListener("htmx:afterSwap", function () { busy = false; });
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
    return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || target.isContentEditable;
  }

  function press(id) {
    var el = document.getElementById(id);
    if (!el || el.disabled || busy) return;
    // htmx wires freshly swapped buttons only when the swap settles (some milliseconds later);
    // a fast annotator's next key must not fall back to a plain form post and a full page load.
    if (window.htmx) window.htmx.process(container);
    el.click();
  }

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
    var key = event.key.toLowerCase();
    var target = { y: "verdict-yes", n: "verdict-no", u: "undo" }[key];
    if (!target) return;
    event.preventDefault();
    press(target);
  });
})();
