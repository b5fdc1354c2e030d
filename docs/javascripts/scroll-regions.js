// A table wider than the page scrolls sideways in its own box (Material's .md-typeset__scrollwrap). Such a box takes
// focus and is named, so that it can be scrolled from the keyboard and a screen reader says what it is (WCAG 2.1.1,
// axe's scrollable-region-focusable). Boxes that fit the page are left alone: no needless tab stop.
(function () {
  "use strict";

  function mark() {
    document.querySelectorAll(".md-typeset__scrollwrap").forEach(function (box) {
      var scrolls = box.scrollWidth > box.clientWidth;
      if (scrolls && !box.hasAttribute("tabindex")) {
        box.setAttribute("tabindex", "0");
        box.setAttribute("role", "region");
        box.setAttribute("aria-label", "Table (scrolls sideways)");
      } else if (!scrolls && box.getAttribute("role") === "region") {
        box.removeAttribute("tabindex");
        box.removeAttribute("role");
        box.removeAttribute("aria-label");
      }
    });
  }

  if (typeof document$ !== "undefined") document$.subscribe(mark);  // Material's "page shown" signal
  else mark();
  window.addEventListener("resize", mark);
})();
