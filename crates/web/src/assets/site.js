// Every page: times in the reader's own time zone (UTC stays in the tooltip), and on a
// statement the submit form's helpers: the last language used is remembered, and a warning
// shows when both a file and pasted text are given (the server refuses both).
(function () {
  "use strict";
  function pad(n) { return (n < 10 ? "0" : "") + n; }
  function localTimes(root) {
    (root || document).querySelectorAll("time[datetime]").forEach(function (t) {
      var ms = Number(t.getAttribute("datetime"));
      if (!isFinite(ms)) return;
      var d = new Date(ms);
      t.textContent = d.getFullYear() + "-" + pad(d.getMonth() + 1) + "-" + pad(d.getDate()) + " " +
        pad(d.getHours()) + ":" + pad(d.getMinutes()) + ":" + pad(d.getSeconds());
    });
  }
  window.ojdLocalTimes = localTimes;
  function form() {
    var f = document.getElementById("submit-form");
    if (!f) return;
    var lang = document.getElementById("language");
    var source = document.getElementById("source");
    var file = document.getElementById("file");
    var hint = document.getElementById("both-hint");
    var remembered = null;
    try { remembered = window.localStorage.getItem("ojd-language"); } catch (e) { /* private mode */ }
    if (lang && !lang.value && remembered) {
      for (var i = 0; i < lang.options.length; i++) {
        if (lang.options[i].value === remembered) { lang.value = remembered; break; }
      }
    }
    function check() {
      if (hint) hint.hidden = !(file && file.files && file.files.length > 0 && source && source.value.trim() !== "");
    }
    if (file) file.addEventListener("change", check);
    if (source) source.addEventListener("input", check);
    f.addEventListener("submit", function () {
      try { if (lang && lang.value) window.localStorage.setItem("ojd-language", lang.value); } catch (e) { /* ignore */ }
    });
    check();
  }
  // A form with data-confirm (destructive buttons: unfreeze, apply, cancel, revoke...) asks
  // first; cancelling the dialog sends nothing.
  function confirms() {
    document.addEventListener("submit", function (e) {
      var f = e.target;
      if (!f || !f.getAttribute) return;
      var q = f.getAttribute("data-confirm");
      if (q && !window.confirm(q)) e.preventDefault();
    }, true);
  }
  function start() { localTimes(); form(); confirms(); }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start); else start();
})();
