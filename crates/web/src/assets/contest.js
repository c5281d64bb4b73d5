// Contest pages: the clock counts down from the server's time, and every element with a
// `data-live` URL is replaced every few seconds by the server-rendered fragment at that URL
// (standings, announcements, a rejudging's progress). No HTML is built here.
(function () {
  "use strict";
  var clock = document.getElementById("clock");
  if (clock) {
    var skew = Number(clock.getAttribute("data-now")) - Date.now();
    var start = Number(clock.getAttribute("data-start"));
    var end = Number(clock.getAttribute("data-end"));
    var phase = clock.getAttribute("data-phase");
    var text = document.getElementById("clock-text");
    var pad = function (n) { return (n < 10 ? "0" : "") + n; };
    var span = function (ms) {
      var s = Math.max(0, Math.floor(ms / 1000));
      var d = Math.floor(s / 86400), h = Math.floor(s % 86400 / 3600), m = Math.floor(s % 3600 / 60);
      if (d > 0) return d + " d " + h + " h";
      if (h > 0) return h + " h " + pad(m) + " min";
      return m + " min " + pad(s % 60) + " s";
    };
    var tick = function () {
      var now = Date.now() + skew;
      if (now < start) {
        text.textContent = "Starts in " + span(start - now);
      } else if (now < end) {
        // The problems appear at the start: show them by loading the page again once.
        if (phase === "before") { phase = "running"; window.location.reload(); return; }
        text.textContent = "Ends in " + span(end - now);
      } else {
        if (phase !== "ended") { phase = "ended"; window.location.reload(); return; }
        text.textContent = "The contest is over";
      }
    };
    tick();
    setInterval(tick, 1000);
  }
  // What was typed or chosen in a fragment's forms and not sent yet (a half-typed answer, its
  // "send to everyone" tick), by form action and field name, so that a refresh that replaces
  // the fragment keeps it.
  var changed = function (f) {
    if (f.type === "checkbox") return f.checked !== f.defaultChecked;
    if (f.tagName === "SELECT") {
      return Array.prototype.some.call(f.options, function (o) { return o.selected !== o.defaultSelected; });
    }
    return f.value !== f.defaultValue;
  };
  var typed = function (el) {
    var kept = [];
    var fields = el.querySelectorAll("textarea, input[type=text], input[type=checkbox], select");
    Array.prototype.forEach.call(fields, function (f) {
      if (f.form && f.name && changed(f)) {
        kept.push([f.form.getAttribute("action"), f.name, f.type === "checkbox" ? f.checked : f.value]);
      }
    });
    return kept;
  };
  var restore = function (el, kept) {
    kept.forEach(function (k) {
      Array.prototype.forEach.call(el.querySelectorAll("form"), function (form) {
        if (form.getAttribute("action") !== k[0]) return;
        var f = form.elements.namedItem(k[1]);
        if (!f || !("value" in f)) return;
        if (f.type === "checkbox") f.checked = k[2]; else f.value = k[2];
      });
    });
  };
  var live = document.querySelectorAll("[data-live]");
  Array.prototype.forEach.call(live, function (el) {
    var url = el.getAttribute("data-live");
    var busy = false;
    setInterval(function () {
      // Do not replace a form an admin is typing into.
      if (busy || (document.activeElement && el.contains(document.activeElement))) return;
      busy = true;
      fetch(url, { credentials: "same-origin", headers: { Accept: "text/html" } })
        .then(function (r) { return r.ok ? r.text() : null; })
        .then(function (html) {
          if (html !== null && html !== el.getAttribute("data-last")) {
            el.setAttribute("data-last", html);
            var kept = typed(el);
            // Server-rendered, escaped by the template engine.
            el.innerHTML = html;
            restore(el, kept);
          }
        })
        .catch(function () {})
        .then(function () { busy = false; });
    }, 2000);
  });
})();
