// Sortable tables (click a header with data-sort) and the opponent filter of a bot's game list.
(function () {
  "use strict";

  function cellValue(row, index, numeric) {
    var cell = row.cells[index];
    var raw = cell.hasAttribute("data-value") ? cell.getAttribute("data-value") : cell.textContent.trim();
    if (!numeric) return raw.toLowerCase();
    var n = parseFloat(raw);
    return isNaN(n) ? -Infinity : n;
  }

  function sortBy(table, th) {
    var index = Array.prototype.indexOf.call(th.parentNode.children, th);
    var numeric = th.getAttribute("data-sort") === "num";
    var current = th.getAttribute("aria-sort");
    // first click: numbers high to low, text A to Z; a second click reverses
    var ascending = current ? current === "descending" : !numeric;
    Array.prototype.forEach.call(th.parentNode.children, function (other) { other.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.forEach(function (row, i) { row._order = i; });
    rows.sort(function (a, b) {
      var x = cellValue(a, index, numeric), y = cellValue(b, index, numeric);
      if (x < y) return ascending ? -1 : 1;
      if (x > y) return ascending ? 1 : -1;
      return a._order - b._order;
    });
    rows.forEach(function (row) { body.appendChild(row); });
  }

  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
    Array.prototype.forEach.call(table.querySelectorAll("th[data-sort]"), function (th) {
      th.tabIndex = 0;
      th.title = th.title || "sort";
      th.addEventListener("click", function () { sortBy(table, th); });
      th.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sortBy(table, th); }
      });
    });
  });

  var select = document.getElementById("opponent-filter");
  if (select) {
    var apply = function () {
      var want = select.value, shown = 0;
      var rows = document.querySelectorAll("table.filterable tbody tr");
      Array.prototype.forEach.call(rows, function (row) {
        var ok = !want || (row.getAttribute("data-opponents") || "").indexOf(" " + want + " ") >= 0;
        row.hidden = !ok;
        if (ok) shown += 1;
      });
      document.getElementById("filter-count").textContent = want ? shown + " of " + rows.length + " on this page" : "";
    };
    var match = /^#vs-(\d+)$/.exec(location.hash);
    if (match) select.value = match[1];
    select.addEventListener("change", function () {
      try { history.replaceState(null, "", select.value ? "#vs-" + select.value : location.pathname); } catch (err) { /* file:// */ }
      apply();
    });
    apply();
  }
})();
