// What every annotation page shares (annotate.js and rank.js start it): a verdict is never lost, a key meant for one
// unit never judges the next, and long texts are clamped.
//
// No lost verdict. Every submit gets the page's own id (submission) and is kept in sessionStorage until the server
// has answered it, so it also survives a reload. When the server cannot be reached (no connection, 502, 503, 504)
// a banner says the verdict waits, and it is sent again with back-off. When the session has ended the server answers
// the page's requests with 401 (config.middleware), never with the login page: a dialog signs the annotator in
// without leaving the page, and the verdict is sent with the new CSRF token (Django makes a new one at login). The
// server records a submission once, so a resend whose first answer was lost never makes a second version. A verdict
// made on a view that another tab has overtaken is refused with 409 and a choice, swapped in like a unit.
//
// Keys in time. A key is taken only while no request is in flight and no verdict waits, and not before GUARD_MS
// after the unit on screen was painted: a second key pressed 30 ms after the first was meant for the unit the
// annotator saw, not for the one that replaced it.
//
// Long texts. Fields marked data-clamp are clamped (static/css/annotate.css); one that overflows gets a "Show all"
// button after it. toggleClamps opens or closes them all (key o where a page gives o no other use).
//
// Nothing to read under the buttons. A unit's judging buttons may be pinned to the window's bottom edge (position:
// sticky in static/css/annotate.css), over whatever text runs on below them. The page keeps --pinned, the pinned
// panel's height, on the root element, whose scroll-padding-bottom it is: whatever the browser scrolls into view (a
// selected candidate, a focused control) lands above the panel. Once a unit or its next question (ais: supported?)
// is on screen, its last field (data-clamp: the texts the annotator reads) is scrolled into view that way. A panel
// taller than a quarter of the window (zoomed in, a short window) is not pinned at all (pinnedHeight).
window.ConcordUnit = (function () {
  "use strict";

  var container = document.getElementById("annotate-unit");
  var box = document.getElementById("connection");
  if (!container || !box) return null;

  var GUARD_MS = 150;
  var BACKOFF_S = [1, 2, 4, 8, 15, 30];
  var AWAY = [0, 502, 503, 504];  // the server is away or restarting: the same verdict can simply be sent again
  var submitUrl = box.getAttribute("data-submit-url");
  var loginUrl = box.getAttribute("data-login-url");
  var noun = box.getAttribute("data-noun") || "verdict";
  var storeKey = "concord:pending:" + submitUrl;
  var banner = document.getElementById("conn-banner");
  var bannerText = document.getElementById("conn-text");
  var nowButton = document.getElementById("conn-now");
  var signInButton = document.getElementById("conn-signin");
  var dialog = document.getElementById("signin");
  var form = document.getElementById("signin-form");
  var formError = document.getElementById("signin-error");
  var whyText = document.getElementById("signin-why");

  var token = initialToken();
  var busy = false;        // a request for the unit is in flight
  var shownAt = 0;         // performance.now() when the unit on screen was painted; Infinity until it is
  var pending = load();    // the verdict the server has not answered yet: {values: the form's fields, what: its words}
  var attempt = 0;         // resends since the server last answered, for the back-off
  var retryTimer = null;
  var tickTimer = null;
  var signedOut = false;
  var csrfRetried = false;
  var clampKey = "";
  var said = null;         // the words of the verdict whose answer is being swapped in (tell)
  var clampCount = 0;

  // --- The CSRF token: the page's, until a sign-in brings a new one ---

  function initialToken() {
    try {
      var headers = JSON.parse(document.body.getAttribute("hx-headers") || "{}");
      if (headers["X-CSRFToken"]) return headers["X-CSRFToken"];
    } catch (e) { /* fall through to the forms' token */ }
    var input = document.querySelector("input[name=csrfmiddlewaretoken]");
    return input ? input.value : "";
  }

  function setToken(value) {
    token = value;
    try {
      var headers = JSON.parse(document.body.getAttribute("hx-headers") || "{}");
      headers["X-CSRFToken"] = value;
      document.body.setAttribute("hx-headers", JSON.stringify(headers));
    } catch (e) { /* every request of the unit sets the header itself (configRequest) */ }
    document.querySelectorAll("input[name=csrfmiddlewaretoken]").forEach(function (input) { input.value = value; });
  }

  function tokenIn(html) {
    var input = new DOMParser().parseFromString(html, "text/html").querySelector("input[name=csrfmiddlewaretoken]");
    return input ? input.value : "";
  }

  // --- The verdict waiting to be answered ---

  function load() {
    try { return JSON.parse(sessionStorage.getItem(storeKey)); } catch (e) { return null; }
  }

  function store() {
    try {
      if (pending) sessionStorage.setItem(storeKey, JSON.stringify(pending));
      else sessionStorage.removeItem(storeKey);
    } catch (e) { /* storage refused (private mode, full): the verdict is still kept in this page */ }
  }

  function newId() {
    var bytes = new Uint8Array(16);
    window.crypto.getRandomValues(bytes);  // unlike randomUUID, also on a plain-http intranet address
    return Array.prototype.map.call(bytes, function (b) { return (b + 256).toString(16).slice(1); }).join("");
  }

  function isSubmit(config) {
    return !!config && String(config.verb).toLowerCase() === "post" && config.path.split("?")[0] === submitUrl;
  }

  // The words of ELEMENT itself, without its key hints (<kbd>) and other markup: "Correct" of "Correct <kbd>y</kbd>".
  function ownWords(element) {
    var words = [];
    element.childNodes.forEach(function (node) { if (node.nodeType === 3) words.push(node.textContent); });
    return words.join(" ").replace(/\s+/g, " ").trim();
  }

  // What the verdict says, in words, for the banner and the status after it: the button that made it ("Correct",
  // or its data-said: "ranking"), else the answers chosen in its form, each after its question ("Interpretable? yes;
  // Supported? no": ais asks its questions in turn).
  function describe(detail) {
    var button = detail.triggeringEvent && detail.triggeringEvent.submitter;
    if (button) return button.getAttribute("data-said") || ownWords(button);
    var form = detail.elt && detail.elt.closest ? detail.elt.closest("form") : null;
    if (!form) return "";
    return Array.prototype.map.call(form.querySelectorAll("input[type=radio]:checked"), function (input) {
      var label = input.closest("label");
      var legend = input.closest("fieldset") && input.closest("fieldset").querySelector("legend");
      var answer = label ? ownWords(label) : input.value;
      return legend && ownWords(legend) ? ownWords(legend) + " " + answer.toLowerCase() : answer;
    }).filter(Boolean).join("; ");
  }

  function what() { return pending && pending.what ? " (" + pending.what + ")" : ""; }

  function settled() {
    pending = null;
    store();
    attempt = 0;
    csrfRetried = false;
    clearTimeout(retryTimer);
    clearInterval(tickTimer);
    if (!signedOut) hideBanner();
    ready();
  }

  function showBanner(text, signIn) {
    bannerText.textContent = text;
    banner.classList.toggle("signed-out", !!signIn);
    signInButton.hidden = !signIn;
    nowButton.hidden = !!signIn || !pending;
    banner.hidden = false;
  }

  function hideBanner() { banner.hidden = true; }

  function note(text) {
    var p = document.createElement("p");
    p.className = "annotate-note error";
    p.setAttribute("role", "alert");
    p.textContent = text;
    container.prepend(p);
  }

  function retryLater(xhr) {
    var wait = BACKOFF_S[Math.min(attempt, BACKOFF_S.length - 1)];
    attempt += 1;
    // 503 from Concord itself says why in words (config.db_unavailable); anything else is told by its status.
    var why = xhr && xhr.status === 503 && xhr.responseText && xhr.responseText.length < 400 ? xhr.responseText :
      "Concord cannot be reached (" + (xhr && xhr.status ? "status " + xhr.status : "no connection") + ").";
    var left = wait;
    function show() {
      showBanner(why + " Your " + noun + what() + " is not saved yet: it is kept in this page and sent again in " +
        left + " s.", false);
    }
    show();
    clearInterval(tickTimer);
    tickTimer = setInterval(function () { left -= 1; if (left > 0) show(); else clearInterval(tickTimer); }, 1000);
    clearTimeout(retryTimer);
    retryTimer = setTimeout(resend, wait * 1000);
  }

  function resend() {
    clearTimeout(retryTimer);
    clearInterval(tickTimer);
    if (!pending || busy || signedOut || !window.htmx) return;
    showBanner("Sending your " + noun + what() + "…", false);
    nowButton.hidden = true;
    var request = window.htmx.ajax("POST", submitUrl, {
      source: container, target: container, swap: "innerHTML", values: pending.values,
    });
    if (request && request.catch) request.catch(function () { /* answered by the htmx events below */ });
  }

  // --- htmx: every request of the unit passes here ---

  container.addEventListener("htmx:configRequest", function (event) {
    var detail = event.detail;
    var data = detail.formData;
    detail.headers["X-CSRFToken"] = token;
    if (data && data.has("csrfmiddlewaretoken")) data.set("csrfmiddlewaretoken", token);
    if (!isSubmit(detail) || !data || data.get("submission")) return;  // a resend keeps its id
    if (pending) {
      // A click while a verdict waits: that one goes first.
      event.preventDefault();
      banner.animate && banner.animate([{ transform: "translateX(-50%) scale(1.04)" },
        { transform: "translateX(-50%)" }], 300);
      return;
    }
    var values = {};
    data.forEach(function (value, name) { if (name !== "csrfmiddlewaretoken") values[name] = value; });
    values.submission = newId();
    data.set("submission", values.submission);
    pending = { values: values, what: describe(detail) };
    store();
  });

  container.addEventListener("htmx:beforeRequest", function () { busy = true; ready(); });

  container.addEventListener("htmx:beforeSwap", function (event) {
    var detail = event.detail;
    var status = detail.xhr.status;
    var submit = isSubmit(detail.requestConfig);
    // 409: the verdict was made on a view another tab has overtaken; the answer is the choice, shown like a unit.
    if (status === 409) { detail.shouldSwap = true; detail.isError = false; }
    if (status === 401) { busy = false; signInNeeded(); return; }
    if (submit && AWAY.indexOf(status) >= 0) { busy = false; retryLater(detail.xhr); return; }
    if (submit && status === 403 && pending && !csrfRetried) {
      // The token went stale (a sign-in in another tab makes a new one): fetch the current one, send once more.
      busy = false;
      csrfRetried = true;
      fetchText(loginUrl).then(function (page) { setToken(tokenIn(page.html) || token); resend(); },
        function () { retryLater(null); });
      return;
    }
    if (submit) { said = pending ? pending.what : ""; settled(); }  // recorded, or refused with a reason shown
    if (!detail.shouldSwap) {
      busy = false;
      ready();
      note(status === 503 && detail.xhr.responseText.length < 400 ? detail.xhr.responseText :
        "That did not work (status " + status + ")." +
        (submit ? " Your " + noun + " was not saved; reload the page and give it again." : " Reload the page."));
    }
  });

  container.addEventListener("htmx:sendError", function (event) {
    busy = false;
    if (isSubmit(event.detail.requestConfig) && pending) retryLater(null);
    else note("Concord cannot be reached (no connection). Reload the page when it is back.");
  });

  container.addEventListener("htmx:afterSwap", function () {
    busy = false;
    painted();
    shortcuts();
    clamps();
    keepClearSoon(true);
    var keep = document.getElementById("stale-keep");
    if (keep) keep.focus(); else headingFocus();
    tell(said);
    said = null;
  });

  // --- What a screen reader hears ---

  // The unit is not a live region (it would be read out whole, every time): after each swap the status line
  // (#unit-said, role=status) says in a few words what happened, and the focus moves to the new unit's first
  // heading, from where the unit is read on. SAID: the words of the verdict just recorded, null after any other
  // request (undo: an earlier verdict to change).
  function tell(saidNow) {
    var line = document.getElementById("unit-said");
    if (!line) return;
    var refused = container.querySelector("#annotate-error");
    var progress = container.querySelector("#annotate-progress .progress-text");
    var editing = container.querySelector(".editing-banner");
    var words = [];
    if (refused) words.push("Not saved: " + refused.textContent.trim());
    else if (saidNow !== null) words.push(saidNow ? "Saved: " + saidNow + "." : "Saved.");
    if (editing) words.push(ownWords(editing) || editing.textContent.trim());
    if (progress) words.push(progress.textContent.replace(/\s+/g, " ").trim() + ".");
    line.textContent = words.join(" ");
  }

  function headingFocus() {
    var heading = container.querySelector("h2, h1");
    if (!heading) return;
    heading.tabIndex = -1;
    heading.focus({ preventScroll: true });
  }

  // --- Signing in again without leaving the page ---

  function fetchText(url, options) {
    return fetch(url, Object.assign({ credentials: "same-origin" }, options || {})).then(function (response) {
      return response.text().then(function (html) {
        return { status: response.status, redirected: response.redirected, html: html };
      });
    });
  }

  function signInNeeded() {
    signedOut = true;
    whyText.textContent = pending ? "Your session has ended, so your " + noun + what() + " has not been saved yet. " +
      "It is kept in this page: sign in and it is sent." : "Your session has ended. Sign in to go on where you are.";
    clearTimeout(retryTimer);
    clearInterval(tickTimer);
    showBanner("Your session has ended. " + (pending ? "Your " + noun + what() +
      " is not saved yet: it is kept in this page and sent once you sign in." : "Sign in to go on."), true);
    openDialog();
    ready();
  }

  function openDialog() {
    formError.hidden = true;
    if (!dialog.open) dialog.showModal();
    var username = form.elements.username;
    (username.value ? form.elements.password : username).focus();
  }

  function signedIn(fresh) {
    setToken(fresh);
    signedOut = false;
    form.elements.password.value = "";
    if (dialog.open) dialog.close();
    document.dispatchEvent(new CustomEvent("concord:signedin"));
    // The unit stays as it is on screen (a ranking being arranged included); a waiting verdict goes now.
    if (pending) resend(); else hideBanner();
    ready();
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var submitButton = document.getElementById("signin-submit");
    submitButton.disabled = true;
    formError.hidden = true;
    // The login form's own token first (the cookie may be gone with the session's), then the login itself; it
    // redirects (to the login page, here) only when it worked, and that page carries the token made at login.
    fetchText(loginUrl).then(function (page) {
      var body = new URLSearchParams();
      body.set("csrfmiddlewaretoken", tokenIn(page.html) || token);
      body.set("username", form.elements.username.value);
      body.set("password", form.elements.password.value);
      body.set("next", loginUrl);
      return fetchText(loginUrl, { method: "POST", body: body });
    }).then(function (answer) {
      if (!answer.redirected) {
        var refusal = new DOMParser().parseFromString(answer.html, "text/html").querySelector("[role=alert]");
        throw new Error(refusal ? refusal.textContent.trim() :
          "Signing in did not work (status " + answer.status + "); try again.");
      }
      var fresh = tokenIn(answer.html);
      return fresh ? fresh : fetchText(loginUrl).then(function (page) { return tokenIn(page.html); });
    }).then(signedIn, function (error) {
      formError.textContent = error instanceof TypeError ? "Concord cannot be reached; try again in a moment." :
        error.message;
      formError.hidden = false;
    }).then(function () { submitButton.disabled = false; });
  });

  document.getElementById("signin-cancel").addEventListener("click", function () { dialog.close(); });
  dialog.addEventListener("close", ready);
  signInButton.addEventListener("click", openDialog);
  nowButton.addEventListener("click", function () { attempt = 0; resend(); });

  // --- Keys in time ---

  // The unit was just put on screen: keys count from GUARD_MS after it was painted. A task queued from an animation
  // frame runs once that frame is painted.
  function painted() {
    shownAt = Infinity;
    container.removeAttribute("data-ready");
    var done = function () {
      if (shownAt !== Infinity) return;
      shownAt = performance.now();
      setTimeout(ready, GUARD_MS);
    };
    requestAnimationFrame(function () { setTimeout(done, 0); });
    setTimeout(done, 500);  // a page in a background tab paints nothing; its keys must not wait for ever
  }

  // Whether the key EVENT may act on the unit now.
  function accepts(event) {
    if (busy || pending || signedOut || dialog.open) return false;
    return !event || event.timeStamp >= shownAt + GUARD_MS;
  }

  // data-ready on the unit says that it takes keys now (tests wait for it; a person never needs to).
  function ready() {
    if (accepts(null) && performance.now() >= shownAt + GUARD_MS) container.setAttribute("data-ready", "");
    else container.removeAttribute("data-ready");
  }

  // --- Long texts ---

  function toggleLabel(button, open, length) {
    button.textContent = open ? "Show less " : "Show all (" + length.toLocaleString("en") + " characters) ";
    if (clampKey) {
      var kbd = document.createElement("kbd");
      kbd.textContent = clampKey;
      kbd.setAttribute("data-char", "");  // a key hint of one character (static/js/keys.js)
      button.appendChild(kbd);
    }
  }

  function clamps() {
    container.setAttribute("data-clamps", "");
    container.querySelectorAll("[data-clamp]:not([data-clamp-done])").forEach(function (el) {
      if (!el.getClientRects().length) return;  // not laid out (a closed <details>): measured when it opens
      el.setAttribute("data-clamp-done", "");
      if (el.scrollHeight <= el.clientHeight + 2) return;
      el.setAttribute("data-clamped", "");
      if (!el.id) el.id = "clamp-" + (clampCount += 1);
      var button = document.createElement("button");
      button.type = "button";
      button.className = "link clamp-toggle";
      button.setAttribute("data-clamp-toggle", "");
      button.setAttribute("aria-controls", el.id);
      button.setAttribute("aria-expanded", "false");
      toggleLabel(button, false, el.textContent.length);
      el.insertAdjacentElement("afterend", button);
    });
  }

  function setOpen(button, open) {
    var el = document.getElementById(button.getAttribute("aria-controls"));
    if (!el) return;
    if (open) { el.setAttribute("data-open", ""); el.tabIndex = 0; } else { el.removeAttribute("data-open"); el.removeAttribute("tabindex"); el.scrollTop = 0; }
    button.setAttribute("aria-expanded", open ? "true" : "false");
    toggleLabel(button, open, el.textContent.length);
  }

  function toggleClamps() {
    var buttons = Array.prototype.slice.call(container.querySelectorAll("[data-clamp-toggle]"));
    if (!buttons.length) return false;
    var open = buttons.some(function (b) { return b.getAttribute("aria-expanded") !== "true"; });
    buttons.forEach(function (b) { setOpen(b, open); });
    return true;
  }

  container.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("[data-clamp-toggle]");
    if (button) setOpen(button, button.getAttribute("aria-expanded") !== "true");
  });
  container.addEventListener("toggle", function () { clamps(); }, true);  // a <details> opened

  // --- Nothing to read under the pinned buttons ---

  function pinnedPanel() {
    var card = container.querySelector(".annotate-card");
    if (!card) return null;
    for (var i = 0; i < card.children.length; i++) {
      var child = card.children[i];
      if (child.hasAttribute("data-unpinned") || getComputedStyle(child).position === "sticky") return child;
    }
    return null;
  }

  // In a window shorter than CAPPED_BELOW_PX (zoomed in: a 1280 x 900 window is 450 CSS pixels high at 200 %, 225 at
  // 400 %; a small screen) a pinned panel may take at most PINNED_SHARE of its height, or it would leave little of
  // the unit to read: a taller one is let go (data-unpinned, annotate.css) and scrolls with the unit, below it.
  var PINNED_SHARE = 0.25;
  var CAPPED_BELOW_PX = 700;

  function pinnedHeight() {
    var panel = pinnedPanel();
    var height = 0;
    if (panel) {
      panel.removeAttribute("data-unpinned");
      height = Math.ceil(panel.getBoundingClientRect().height);
      if (window.innerHeight < CAPPED_BELOW_PX && height > PINNED_SHARE * window.innerHeight) { panel.setAttribute("data-unpinned", ""); height = 0; }
    }
    document.documentElement.style.setProperty("--pinned", height + "px");
    return height;
  }

  function keepClear() {
    if (!pinnedHeight()) return;
    var fields = Array.prototype.filter.call(container.querySelectorAll("[data-clamp]"), function (el) {
      return el.getClientRects().length > 0;  // laid out: not in a closed <details> or a hidden block
    });
    if (fields.length) fields[fields.length - 1].scrollIntoView({ block: "nearest", behavior: "instant" });
  }

  // In a short window (zoomed in to 200 % or 400 %: 450 or 225 CSS pixels high) the page's head would fill the first
  // screen: the unit, from its progress line, is brought to the window's top instead.
  var SHORT_WINDOW_PX = 500;

  function unitIntoView() {
    if (window.innerHeight < SHORT_WINDOW_PX) container.scrollIntoView({ block: "start", behavior: "instant" });
  }

  // After the listeners of the same swap (annotate.js shows the first question only) have laid the unit out.
  function keepClearSoon(fresh) {
    requestAnimationFrame(function () { if (fresh) unitIntoView(); keepClear(); });
  }

  window.addEventListener("resize", pinnedHeight);

  // --- Shortcuts said to assistive technology ---

  // Every control a key works names its keys in aria-keyshortcuts, as the person's choice of shortcuts has them
  // (static/js/keys.js).
  function shortcuts(root) {
    if (window.ConcordKeys) window.ConcordKeys.announce(root || container);
  }

  // --- Start ---

  function start(options) {
    clampKey = (options && options.clampKey) || "";
    painted();
    shortcuts(document);
    clamps();
    keepClearSoon(true);
    if (pending) resend();  // a verdict kept from before a reload or a sign-in
  }

  return {
    start: start,
    accepts: accepts,
    busy: function () { return busy || !!pending || signedOut; },
    toggleClamps: toggleClamps,
    // Something new to answer appeared without a swap (the second question of ais).
    shown: function () { painted(); keepClearSoon(); },
    signInNeeded: signInNeeded,
    headers: function () { return { "X-CSRFToken": token, "X-Requested-With": "fetch" }; },
  };
})();
