// Live progress of a submission page: follows /api/v1/submissions/ID/events (server-sent
// events) and fills in the waiting rows; when the verdict is in, swaps in the server-rendered
// results (with diffs). Pages without a #live section do nothing.
(function () {
  "use strict";
  var live = document.getElementById("live");
  if (!live || !window.EventSource) return;
  var id = live.getAttribute("data-id");
  var names = { AC: "Accepted", WA: "Wrong Answer", TLE: "Time Limit Exceeded", MLE: "Memory Limit Exceeded",
    OLE: "Output Limit Exceeded", RE: "Runtime Error", CE: "Compile Error", JE: "Judge Error", SK: "Skipped" };
  function badge(cls, text) {
    var b = document.createElement("span");
    b.className = "badge " + cls;
    b.textContent = text;
    return b;
  }
  function setCell(row, sel, node) {
    var cell = row.querySelector(sel);
    if (!cell) return;
    cell.textContent = "";
    if (typeof node === "string") cell.textContent = node; else cell.appendChild(node);
  }
  function status(cls, text) {
    var s = document.getElementById("status");
    if (s) { s.textContent = ""; s.appendChild(badge(cls, text)); }
  }
  function kib(k) { return k < 1024 ? k + " KiB" : (k / 1024).toFixed(1) + " MiB"; }
  function fill(index, t) {
    var row = document.getElementById("t-" + index);
    if (!row) return;
    setCell(row, ".v", badge("v-" + t.verdict, names[t.verdict] || t.verdict));
    setCell(row, ".cpu", t.cpu_ms + " ms");
    setCell(row, ".mem", kib(t.memory_kib));
    setCell(row, ".msg", t.message || "");
  }
  function running(index) {
    var row = document.getElementById("t-" + index);
    if (row) setCell(row, ".v", badge("running", "Running…"));
  }
  var es = new EventSource("/api/v1/submissions/" + id + "/events");
  es.addEventListener("state", function (e) {
    var d = JSON.parse(e.data);
    status("pending", d.state === "judging" ? "Judging…" : "Queued");
    d.tests.forEach(function (t, i) { fill(i, t); });
    if (d.running !== null && d.running !== undefined) running(d.running);
  });
  es.addEventListener("compiled", function (e) {
    var d = JSON.parse(e.data);
    status("pending", d.ok ? "Running tests…" : "Compile error");
  });
  es.addEventListener("started", function (e) { running(JSON.parse(e.data).index); });
  es.addEventListener("test", function (e) { var d = JSON.parse(e.data); fill(d.index, d.result); });
  es.addEventListener("queued", function () { status("pending", "Queued"); });
  es.addEventListener("done", function () {
    es.close();
    fetch("/submissions/" + id + "/results", { credentials: "same-origin" })
      .then(function (r) { return r.text(); })
      .then(function (html) {
        live.outerHTML = html;
        if (window.ojdLocalTimes) window.ojdLocalTimes();
      });
  });
})();
