// The person's choice of keyboard shortcuts (their account page; accounts.models.Preferences, written on
// <body data-shortcuts> by accounts.context_processors), for every page that has shortcuts:
//   keys   a single character key works a control (the default)
//   alt    a character key works a control only with Alt held (Option on a Mac): speech input and stray keys never
//          judge anything (WCAG 2.1.4)
//   off    character keys do nothing; Enter, Escape, Tab and the arrow keys keep their work
// Pages ask ConcordKeys.of(event) which key an event names, and let ConcordKeys.announce(root) say the keys to
// assistive technology (aria-keyshortcuts) and on screen (<kbd> hints) as the person's choice has them.
window.ConcordKeys = (function () {
  "use strict";

  function mode() { return document.body.getAttribute("data-shortcuts") || "keys"; }

  // The character an event with Alt held names: Alt turns letters into other characters on some keyboards (a Mac's
  // Option+y is "¥"), so the physical key says which letter or digit was meant.
  function altCharacter(event) {
    var code = event.code || "";
    if (/^Key[A-Z]$/.test(code)) return event.shiftKey ? code.slice(3) : code.slice(3).toLowerCase();
    if (/^Digit[0-9]$/.test(code) && !event.shiftKey) return code.slice(5);
    if (code === "Slash" && event.shiftKey) return "?";
    return event.key;
  }

  // The shortcut key EVENT names under the person's choice ("y", "J", "?", "Enter", "ArrowDown"), or "" for none.
  function of(event) {
    if (event.ctrlKey || event.metaKey) return "";
    if (event.key.length !== 1) return event.altKey ? "" : event.key;  // Enter, Escape, arrows: not characters
    var chosen = mode();
    if (chosen === "off") return "";
    if (chosen === "alt") return event.altKey ? altCharacter(event) : "";
    return event.altKey ? "" : event.key;
  }

  // One key as aria-keyshortcuts names it under the person's choice ("y", "Alt+y"), or "" where it works nothing.
  function spoken(key) {
    if (key.length !== 1) return key;
    var chosen = mode();
    if (chosen === "off") return "";
    return chosen === "alt" ? "Alt+" + key : key;
  }

  function spokenAll(keys) {
    return keys.trim().split(/\s+/).map(spoken).filter(Boolean).join(" ");
  }

  // Every control under ROOT a key works (data-key: its keys, separated by spaces; data-shortcut where the page's own
  // script, not a click, answers the key: nuggets.js) names them in aria-keyshortcuts,
  // which screen readers and voice control read (WCAG 4.1.2); every <kbd> hint of one character is marked
  // (data-char), so that the page's style hides it (off) or writes Alt+ before it (alt). A ranking's candidates
  // carry data-key as their own id: only controls are named. A hint written with its modifier (<kbd>Alt</kbd>+
  // <kbd>1</kbd>) is left as it is.
  function announce(root) {
    root = root || document;
    var controls = "button[data-key], input[data-key], a[data-key], summary[data-key], [data-shortcut]";
    root.querySelectorAll(controls).forEach(function (el) {
      var said = spokenAll(el.getAttribute("data-key") || el.getAttribute("data-shortcut"));
      if (said) el.setAttribute("aria-keyshortcuts", said); else el.removeAttribute("aria-keyshortcuts");
    });
    root.querySelectorAll("kbd:not([data-char])").forEach(function (kbd) {
      var before = kbd.previousSibling;
      var combined = before && before.nodeType === 3 && /\+\s*$/.test(before.textContent);
      if (kbd.textContent.trim().length === 1 && !combined) kbd.setAttribute("data-char", "");
    });
  }

  return { mode: mode, of: of, spoken: spokenAll, announce: announce };
})();
