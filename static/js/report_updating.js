// The agreement report page while its report is being built or rebuilt (agreement.stored): ask the status URL every
// few seconds, and when a report newer than the one shown is stored (or the plots of the one shown are drawn), reload
// the page at the same scroll position.
// Before the first report ("Building…", no report shown yet) the banner also says the build's step and time so far.
(function () {
  var KEY = "concord-report-scroll:" + location.pathname;
  var saved = sessionStorage.getItem(KEY);
  if (saved !== null) {
    sessionStorage.removeItem(KEY);
    window.scrollTo(0, parseInt(saved, 10) || 0);
  }
  var banner = document.getElementById("report-updating") || document.getElementById("report-building") ||
    document.getElementById("report-plots");
  if (!banner || banner.classList.contains("error")) return;  // current, or nothing queued to wait for
  var url = banner.dataset.statusUrl;
  var shown = banner.dataset.reportVersion === "" ? -1 : parseInt(banner.dataset.reportVersion, 10);
  var progress = document.getElementById("report-building-progress");
  var EVERY_MS = 3000;
  // The build's step and seconds as last polled, and when: the seconds tick on between polls.
  var step = banner.dataset.step || null, seconds = null, polledAt = 0;
  if (progress && banner.dataset.buildingSeconds !== "") {
    seconds = parseFloat(banner.dataset.buildingSeconds);
    polledAt = Date.now();
  }

  function showProgress() {
    if (!progress || seconds === null) return;
    var soFar = Math.round(seconds + (Date.now() - polledAt) / 1000);
    progress.textContent = "(" + (step || "starting") + ", " + soFar + " s so far)";
  }

  function poll() {
    fetch(url, {credentials: "same-origin", headers: {"Accept": "application/json"}})
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (status) {
        // A newer report is stored, or the build failed (the page then says why and stops waiting); or, where the
        // report is shown and its plots are being drawn (data-wait="plots"), the build that draws them has ended.
        var plotsDrawn = banner.dataset.wait === "plots" && status && !status.building;
        if (status && ((status.report_version !== null && status.report_version > shown) || status.build_error ||
                       plotsDrawn)) {
          sessionStorage.setItem(KEY, String(window.scrollY));
          window.location.reload();
          return;
        }
        if (status && progress && status.building) {
          step = status.step || "starting";
          seconds = status.building_seconds || 0;
          polledAt = Date.now();
          showProgress();
        }
        window.setTimeout(poll, EVERY_MS);
      })
      .catch(function () { window.setTimeout(poll, EVERY_MS); });
  }
  if (progress) window.setInterval(showProgress, 1000);
  window.setTimeout(poll, EVERY_MS);
})();
