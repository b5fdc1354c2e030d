// The agreement report page while its report is being rebuilt (agreement.stored): ask the status URL every few
// seconds, and when a report newer than the one shown is stored, reload the page at the same scroll position.
(function () {
  var KEY = "concord-report-scroll:" + location.pathname;
  var saved = sessionStorage.getItem(KEY);
  if (saved !== null) {
    sessionStorage.removeItem(KEY);
    window.scrollTo(0, parseInt(saved, 10) || 0);
  }
  var banner = document.getElementById("report-updating");
  if (!banner || banner.classList.contains("error")) return;  // current, or nothing queued to wait for
  var url = banner.dataset.statusUrl;
  var shown = parseInt(banner.dataset.reportVersion, 10);
  var EVERY_MS = 3000;

  function poll() {
    fetch(url, {credentials: "same-origin", headers: {"Accept": "application/json"}})
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (status) {
        if (status && status.report_version !== null && status.report_version > shown) {
          sessionStorage.setItem(KEY, String(window.scrollY));
          window.location.reload();
          return;
        }
        window.setTimeout(poll, EVERY_MS);
      })
      .catch(function () { window.setTimeout(poll, EVERY_MS); });
  }
  window.setTimeout(poll, EVERY_MS);
})();
