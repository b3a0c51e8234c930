// sifu report: filters, the checks behind a cell, and transcripts loaded
// when asked for (as script files, which a page opened from file:// may
// load where it may not fetch).
(function () {
  "use strict";
  var loaded = {}, waiting = {};

  // Each transcript file calls this with its own path and its lines.
  window.sifuTranscript = function (key, lines) {
    loaded[key] = lines;
    (waiting[key] || []).forEach(function (cb) { cb(lines); });
    delete waiting[key];
  };

  function load(file, cb) {
    if (loaded[file]) { cb(loaded[file]); return; }
    if (waiting[file]) { waiting[file].push(cb); return; }
    waiting[file] = [cb];
    var s = document.createElement("script");
    s.src = file;
    s.onerror = function () { cb(null); };
    document.head.appendChild(s);
  }

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined) { e.textContent = text; }
    return e;
  }

  function pretty(v) { return JSON.stringify(v, null, 2); }

  // filters hides the rows of a suite's matrix the three selects exclude.
  function filter(section) {
    var want = {};
    section.querySelectorAll("select[data-filter]").forEach(function (s) { want[s.dataset.filter] = s.value; });
    var rows = section.querySelectorAll("table.matrix tbody tr"), shown = 0;
    rows.forEach(function (tr) {
      var ok = (!want.profile || tr.dataset.profiles.split(" ").indexOf(want.profile) >= 0) &&
        (!want.level || tr.dataset.level === want.level) &&
        (!want.status || tr.dataset.statuses.split(" ").indexOf(want.status) >= 0);
      tr.hidden = !ok;
      if (ok) { shown++; }
    });
    section.querySelector("output.shown").textContent = shown + " of " + rows.length + " rules shown";
  }

  function renderTranscript(list, lines) {
    list.textContent = "";
    if (!lines) { list.appendChild(el("li", {}, "The transcript file could not be loaded.")); return; }
    lines.forEach(function (t) {
      var li = el("li", {"class": "exchange" + (t.decided ? " decided" : ""), "data-line": String(t.line)});
      var head = el("p", {"class": "what"});
      head.appendChild(el("strong", {}, "line " + t.line));
      head.appendChild(document.createTextNode(" · " + t.op + " " + (t.name || "") + (t.agent ? " as " + t.agent : "") +
        (t.key ? " (key " + t.key + ")" : "") + " · " + t.source));
      li.appendChild(head);
      if (t.params && Object.keys(t.params).length) {
        li.appendChild(el("p", {"class": "label"}, "request"));
        li.appendChild(el("pre", {}, pretty(t.params)));
      }
      li.appendChild(el("p", {"class": "label"}, t.error ? "error" : "answer"));
      li.appendChild(el("pre", {"class": t.error ? "error" : "answer"}, t.error ? t.error : pretty(t.outcome)));
      if (t.expected) {
        li.appendChild(el("p", {"class": "expected"}, "expected: " + t.expected));
      }
      list.appendChild(li);
    });
  }

  function showCell(section, button) {
    var suite = section.dataset.suite, impl = Number(button.dataset.impl);
    var rule = button.closest("tr").dataset.rule;
    var data = sifuData[suite].impls[impl];
    var detail = section.querySelector("section.detail");
    detail.hidden = false;
    detail.textContent = "";
    var h = el("h3", {tabindex: "-1"}, rule + " on " + data.label + ": " + button.textContent);
    detail.appendChild(h);
    var close = el("button", {type: "button", "class": "close"}, "Close");
    close.onclick = function () { detail.hidden = true; button.focus(); };
    detail.appendChild(close);
    var ids = data.rules[rule] || [];
    if (!ids.length) {
      detail.appendChild(el("p", {}, "No check of this run evidences " + rule + "."));
    }
    ids.forEach(function (k) {
      var c = data.checks[k];
      var art = el("article", {"class": "check st-" + c.status, "data-check": c.id});
      art.appendChild(el("h4", {}, c.status + " · " + c.id));
      if (c.title) { art.appendChild(el("p", {}, c.title)); }
      art.appendChild(el("p", {"class": "source"}, "source: " + c.source + (c.lines ? " · transcript lines " + c.lines : "")));
      if (c.message) { art.appendChild(el("pre", {"class": "message"}, c.message)); }
      if (c.file) {
        var more = el("button", {type: "button", "class": "transcript", "aria-expanded": "false"}, "Show the transcript");
        var list = el("ol", {"class": "transcript", hidden: ""});
        more.onclick = function () {
          var open = list.hidden;
          list.hidden = !open;
          more.setAttribute("aria-expanded", String(open));
          more.textContent = open ? "Hide the transcript" : "Show the transcript";
          if (open && !list.childElementCount) {
            list.appendChild(el("li", {}, "loading…"));
            load(c.file, function (lines) { renderTranscript(list, lines); });
          }
        };
        art.appendChild(more);
        art.appendChild(list);
      }
      detail.appendChild(art);
    });
    h.focus();
  }

  document.querySelectorAll("section.suite").forEach(function (section) {
    section.querySelectorAll("select[data-filter]").forEach(function (s) {
      s.addEventListener("change", function () { filter(section); });
    });
    section.querySelector("table.matrix").addEventListener("click", function (ev) {
      var b = ev.target.closest("button[data-impl]");
      if (b) { showCell(section, b); }
    });
  });
})();
