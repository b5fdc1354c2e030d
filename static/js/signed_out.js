// Pages that refresh part of themselves (a judge run's progress, an import job's) when the session has ended: the
// server answers their requests with 401 and a line of text (config.middleware), never the login page. Reload the
// page, which leads to the sign-in page and back. The annotation unit handles its own 401s (unit.js: a verdict
// waits in the page), so requests made inside it are left alone.
document.addEventListener("htmx:beforeSwap", function (event) {
  if (event.detail.xhr.status !== 401 || event.target.closest("#annotate-unit")) return;
  event.detail.shouldSwap = false;
  window.location.reload();
});
