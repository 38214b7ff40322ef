// Replay viewer: draws the engine's public state of every step (engine/spectator.py, shipped by the site
// builder as JSON: the first state whole, every later one as what changed) and the engine's sentences; it
// computes no state of its own. A step is one action (step 0: the deal); it steps by step, by turn (the
// steps where the turn number changes) or plays one step at a time at a chosen speed. It draws what a state
// holds (a Princes table, trading areas), never a test of the format: the format's facts (bean names,
// meters, task texts) come with the page's meta. The page includes this file only (one script beside the JSON
// blocks); it loads its parts from beside it, cards.js (the cards) then board.js (the table), and starts once
// they have run.
(function () {
  "use strict";

  function readJson(id) { return JSON.parse(document.getElementById(id).textContent); }

  // The inverse of the builder's diff (engine/spectator.py: apply_diff): objects merge key by key, the
  // seats by index, anything else is replaced.
  function merge(before, diff) {
    if (before === null || typeof before !== "object" || Array.isArray(before) ||
        diff === null || typeof diff !== "object" || Array.isArray(diff)) return diff;
    var out = {}, key;
    for (key in before) out[key] = before[key];
    for (key in diff) out[key] = merge(before[key], diff[key]);
    return out;
  }

  function applyDiff(before, diff) {
    var out = {}, key;
    for (key in before) out[key] = before[key];
    for (key in diff) if (key !== "seats") out[key] = merge(before[key], diff[key]);
    out.seats = before.seats.slice();
    if (diff.seats) for (key in diff.seats) out.seats[+key] = merge(before.seats[+key], diff.seats[key]);
    return out;
  }

  function states(shipped) {
    var whole = null;
    return shipped.steps.map(function (st) {
      whole = whole === null ? st.state : applyDiff(whole, st.state);
      return whole;
    });
  }

  function start() {
    var root = document.getElementById("replay");
    if (!root) return;
    var el = window.BohnanzaCards.el, board = window.BohnanzaBoard;
    var meta = readJson("replay-meta"), shipped = readJson("replay-steps");
    var all = states(shipped);
    var texts = shipped.steps.map(function (st) { return st.text.join(" "); });
    var eventsAfter = [], seen = 0;  // events once each step was played (an old #event-N link)
    shipped.steps.forEach(function (st) { seen += st.events; eventsAfter.push(seen); });
    var last = all.length - 1, step = 0;
    var range = document.getElementById("step-range");
    range.max = String(last);
    // The steps at which a turn starts: step 0 (the deal starts turn 1) and every step that changed the turn.
    var turns = [{ step: 0, turn: all[0].turn }];
    for (var k = 1; k <= last; k++) if (all[k].turn !== all[k - 1].turn) turns.push({ step: k, turn: all[k].turn });
    var turnInput = document.getElementById("turn-input"), speed = document.getElementById("play-speed");
    var playButton = document.getElementById("play"), playing = false, timer = null;
    var turnCount = turns.length ? turns[turns.length - 1].turn + 1 : 0;
    turnInput.max = String(Math.max(1, turnCount));
    turnInput.placeholder = turnCount ? "1–" + turnCount : "–";

    function turnIndex(k) {  // the index in `turns` of the turn under way at step k, -1 before the first
      var i = -1;
      while (i + 1 < turns.length && turns[i + 1].step <= k) i++;
      return i;
    }

    function render() {
      var s = all[step];
      range.value = String(step);
      document.getElementById("step-label").textContent = "step " + step + " of " + last;
      document.getElementById("step-link").href = "#step-" + step;
      document.getElementById("event-text").textContent = texts[step];
      document.getElementById("step-prev").disabled = step === 0;
      document.getElementById("step-first").disabled = step === 0;
      document.getElementById("step-next").disabled = step === last;
      document.getElementById("step-last").disabled = step === last;
      var t = turnIndex(step);
      document.getElementById("turn-label").textContent = !turns.length ? "no turns" :
        t < 0 ? "before turn 1 of " + turnCount : "turn " + (turns[t].turn + 1) + " of " + turnCount;
      document.getElementById("turn-prev").disabled = step === 0;
      document.getElementById("turn-next").disabled = t + 1 >= turns.length;

      board.draw(meta, s);
      renderLog();
    }

    function renderLog() {
      var i, log = document.getElementById("event-log");
      log.textContent = "";
      var from = Math.max(0, step - 6), to = Math.min(last, step + 3);
      log.start = from;
      for (i = from; i <= to; i++) {
        var item = el("li", i === step ? "current" : (i > step ? "future" : ""));
        var link = el("a", "", texts[i]);
        link.href = "#step-" + i;
        item.value = i;
        item.appendChild(link);
        log.appendChild(item);
      }
    }

    function go(target, updateHash) {
      step = Math.max(0, Math.min(last, target));
      render();
      if (updateHash !== false) {
        try { history.replaceState(null, "", "#step-" + step); } catch (err) { /* some file:// setups refuse */ }
      }
    }

    function fromHash() {  // #step-K, or an older link #event-N
      var match = /^#(step|event)-(\d+)$/.exec(location.hash);
      if (!match) return null;
      var n = parseInt(match[2], 10);
      if (match[1] === "step") return n;
      var k = 0;  // #event-N: the latest step at which N events had happened
      while (k < last && eventsAfter[k + 1] <= n) k++;
      return k;
    }

    function prevTurn() {  // the start of the turn under way, or of the one before when already there
      var t = turnIndex(step);
      if (t >= 0 && turns[t].step === step) t--;
      go(t >= 0 ? turns[t].step : 0);
    }

    function nextTurn() {
      var t = turnIndex(step);
      if (t + 1 < turns.length) go(turns[t + 1].step);
    }

    function goTurn(n) {  // the start of turn n (1-based) of the game, clamped to its turns
      if (!turns.length || isNaN(n)) return;
      var t = 0;
      while (t + 1 < turns.length && turns[t + 1].turn < n) t++;
      go(turns[t].step);
    }

    // Playing: one step every 1/speed seconds until the last step; the hash follows once paused.
    function setPlaying(on) {
      if (timer !== null) { clearTimeout(timer); timer = null; }
      if (on && step === last) go(0, false);  // play at the end: from the start again
      playing = on;
      playButton.textContent = "";
      playButton.appendChild(el("span", on ? "icon-pause" : "icon-play", on ? "" : "▶"));
      playButton.firstChild.setAttribute("aria-hidden", "true");
      playButton.appendChild(document.createTextNode(on ? " pause" : " play"));
      playButton.title = (on ? "pause" : "play") + " (Space)";
      document.getElementById("event-text").setAttribute("aria-live", on ? "off" : "polite");
      if (on) schedule();
      else go(step);
    }

    function schedule() {
      var rate = parseFloat(speed.value) || 1;
      timer = setTimeout(function () {
        timer = null;
        if (!playing) return;
        go(step + 1, false);
        if (step >= last) setPlaying(false);
        else schedule();
      }, 1000 / rate);
    }

    playButton.addEventListener("click", function () { setPlaying(!playing); });
    speed.addEventListener("change", function () { if (playing) { clearTimeout(timer); timer = null; schedule(); } });
    document.getElementById("turn-prev").addEventListener("click", prevTurn);
    document.getElementById("turn-next").addEventListener("click", nextTurn);
    document.getElementById("turn-form").addEventListener("submit", function (e) {
      e.preventDefault();
      goTurn(parseInt(turnInput.value, 10));
    });
    document.getElementById("step-first").addEventListener("click", function () { go(0); });
    document.getElementById("step-prev").addEventListener("click", function () { go(step - 1); });
    document.getElementById("step-next").addEventListener("click", function () { go(step + 1); });
    document.getElementById("step-last").addEventListener("click", function () { go(last); });
    range.addEventListener("input", function () { go(parseInt(range.value, 10)); });
    window.addEventListener("hashchange", function () {
      var h = fromHash();
      if (h !== null && h !== step) go(h, false);
    });
    document.addEventListener("keydown", function (e) {
      var tag = (e.target && e.target.tagName) || "";
      if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA" || e.altKey || e.ctrlKey || e.metaKey) return;
      if (e.key === " " || e.key === "Spacebar") {  // a focused button or link keeps its own Space
        if (tag === "BUTTON" || tag === "A" || tag === "SUMMARY") return;
        e.preventDefault(); setPlaying(!playing);
      }
      else if (e.key === "PageDown" || (e.shiftKey && e.key === "ArrowRight")) { e.preventDefault(); nextTurn(); }
      else if (e.key === "PageUp" || (e.shiftKey && e.key === "ArrowLeft")) { e.preventDefault(); prevTurn(); }
      else if (e.key === "ArrowRight") { e.preventDefault(); go(step + 1); }
      else if (e.key === "ArrowLeft") { e.preventDefault(); go(step - 1); }
      else if (e.key === "Home") { e.preventDefault(); go(0); }
      else if (e.key === "End") { e.preventDefault(); go(last); }
    });
    var download = document.getElementById("replay-download");
    if (download) {  // the steps this page draws, as a file: public like the page (no seed, no hidden card)
      download.addEventListener("click", function () {
        var blob = new Blob([document.getElementById("replay-steps").textContent], { type: "application/json" });
        download.href = URL.createObjectURL(blob);
      });
    }
    var initial = fromHash();
    go(initial === null ? 0 : initial, false);
    window.BohnanzaReplay = {
      states: all, texts: texts, go: go, step: function () { return step; }, last: last,
      turns: turns, goTurn: goTurn, play: function () { setPlaying(true); }, pause: function () { setPlaying(false); },
      playing: function () { return playing; }
    };
  }

  window.BohnanzaReplayModel = { applyDiff: applyDiff };

  // The parts, each run in turn (`async` off keeps the order); the viewer starts after the last one. A page
  // that holds them already (one file of `arena replay --html`, everything inline) starts at once.
  if (window.BohnanzaBoard) {
    ready();
  } else {
    var PARTS = ["cards.js", "board.js"], here = document.currentScript.src;
    PARTS.forEach(function (name, k) {
      var part = document.createElement("script");
      part.src = new URL(name, here).href;
      part.async = false;
      if (k === PARTS.length - 1) part.addEventListener("load", ready);
      document.head.appendChild(part);
    });
  }

  function ready() {
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
    else start();
  }
})();
