// Replay viewer: draws the engine's public state of every step (engine/spectator.py, shipped by the site
// builder as JSON: the first state whole, every later one as what changed) and the engine's sentences; it
// computes no state of its own. A step is one action (step 0: the deal); it steps by step, by turn (the
// steps where the turn number changes) or plays one step at a time at a chosen speed. It draws what a state
// holds (a Princes table, trading areas), never a test of the format: the format's facts (bean names,
// meters, task texts) come with the page's meta.
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
    return shipped.steps.map(function (st) { whole = whole === null ? st.state : applyDiff(whole, st.state); return whole; });
  }

  function beanName(meta, bean) { return meta.rules.beans[bean] || bean; }

  // The facts of the Princes table the format sent (formats.py: the Spectator's facts), if any.
  function princesFacts(meta) { return meta.rules.princes || {}; }

  // A vine task's full text (engine/vine.py TASKS) and its short form (SHORT).
  function taskText(meta, task) {
    var text = (princesFacts(meta).tasks || {})[task];
    return text ? text.replace(/\.$/, "") : "task " + task;
  }

  function taskShort(meta, task) {
    return (princesFacts(meta).short || {})[task] || taskText(meta, task);
  }

  function ordinal(n) { return n + (n === 1 ? "st" : n === 2 ? "nd" : n === 3 ? "rd" : "th"); }

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  var SVG = "http://www.w3.org/2000/svg";

  function svgNode(tag, attrs, text) {
    var node = document.createElementNS(SVG, tag), key;
    for (key in attrs) node.setAttribute(key, String(attrs[key]));
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // A field drawn as its bean card: the bean's name, how many are planted, and the beanometer (the beans
  // needed for 1, 2, 3, 4 coins; the step already reached is marked).
  function beanCard(meta, bean, count) {
    var name = beanName(meta, bean), meter = (meta.rules.meters || {})[bean] || [];
    var svg = svgNode("svg", { "class": "bean-card", viewBox: "0 0 64 88", role: "img",
                              "aria-label": count + " × " + name });
    svg.appendChild(svgNode("title", {}, count + " × " + name));
    svg.appendChild(svgNode("rect", { "class": "face bean-" + bean, x: 1, y: 1, width: 62, height: 86, rx: 7 }));
    svg.appendChild(svgNode("text", { "class": "name", x: 32, y: 15, "text-anchor": "middle" }, name.replace(/ bean$/, "")));
    svg.appendChild(svgNode("text", { "class": "count", x: 32, y: 52, "text-anchor": "middle" }, String(count)));
    addMeter(svg, meter, count);
    return svg;
  }

  // A beanometer along a large card's foot; the steps `planted` beans reach are marked (0 on a loose card).
  function addMeter(svg, meter, planted) {
    var slots = meter.length || 1;
    meter.forEach(function (need, k) {
      var x = 4 + k * (56 / slots), w = 56 / slots - 2, reached = need !== null && planted >= need;
      var cell = svgNode("g", { "class": "meter" + (need === null ? " none" : "") + (reached ? " reached" : "") });
      cell.appendChild(svgNode("rect", { x: x, y: 64, width: w, height: 20, rx: 3 }));
      cell.appendChild(svgNode("text", { x: x + w / 2, y: 73, "text-anchor": "middle" }, need === null ? "–" : String(need)));
      cell.appendChild(svgNode("text", { "class": "coins", x: x + w / 2, y: 82, "text-anchor": "middle" }, String(k + 1)));
      svg.appendChild(cell);
    });
  }

  var LOCKED = "locked: received in a trade, it must be planted";

  // The padlock of a card received in a trade, drawn in SVG (no font needed) at (x, y).
  function padlock(x, y, size) {
    var lock = svgNode("svg", { "class": "lock", x: x, y: y, width: size, height: size * 14 / 12,
                               viewBox: "0 0 12 14", role: "img", "aria-label": LOCKED });
    lock.appendChild(svgNode("title", {}, LOCKED));
    lock.appendChild(svgNode("rect", { x: 0, y: 0, width: 12, height: 14, rx: 2, "class": "lock-back" }));
    lock.appendChild(svgNode("path", { d: "M3.5 6.5V4.2a2.5 2.5 0 0 1 5 0v2.3", fill: "none", stroke: "currentColor",
                                       "stroke-width": 1.6 }));
    lock.appendChild(svgNode("rect", { x: 1.5, y: 6.5, width: 9, height: 7, rx: 1.2, fill: "currentColor" }));
    return lock;
  }

  // A card lying on the table (a trading area, the middle, the discard pile, a hand, an offer): its colour
  // face, its name and a bean; `count` when the spot holds a stack. The large card adds the beanometer
  // (the beans needed for 1, 2, 3, 4 coins), the small one (`o.small`) may carry a word (`o.note`).
  // data-bean / data-count say what it shows; `o.label` is its accessible text.
  function tableCard(meta, bean, o) {
    var name = beanName(meta, bean), small = !!o.small, w = small ? 44 : 64, h = small ? 60 : 88;
    var count = o.count || 1, short = name.replace(/ bean$/, "");
    var svg = svgNode("svg", { "class": "bean-card table-card" + (small ? " small" : "") + (o.cls ? " " + o.cls : ""),
                              viewBox: "0 0 " + w + " " + h, role: "img", "aria-label": o.label,
                              "data-bean": bean, "data-count": count });
    svg.appendChild(svgNode("title", {}, o.label));
    svg.appendChild(svgNode("rect", { "class": "face bean-" + bean, x: 1, y: 1, width: w - 2, height: h - 2,
                                      rx: small ? 5 : 7 }));
    var title = svgNode("text", { "class": "name", x: w / 2, y: small ? 12 : 15, "text-anchor": "middle" }, short);
    if (short.length > (small ? 7 : 11)) {  // a long name squeezed to the card's width
      title.setAttribute("textLength", String(w - 6));
      title.setAttribute("lengthAdjust", "spacingAndGlyphs");
    }
    svg.appendChild(title);
    var cy = small ? (o.note ? 30 : 33) : 39, r = small ? 10.5 : 15;
    svg.appendChild(svgNode("ellipse", { "class": "bean bean-" + bean, cx: w / 2, cy: cy, rx: r, ry: r * 0.68,
                                         transform: "rotate(-25 " + w / 2 + " " + cy + ")" }));
    svg.appendChild(svgNode("ellipse", { "class": "shine", cx: w / 2 - r * 0.35, cy: cy - r * 0.25, rx: r * 0.3,
                                         ry: r * 0.14, transform: "rotate(-25 " + w / 2 + " " + cy + ")" }));
    if (o.count) {
      svg.appendChild(svgNode("text", { "class": "stack", x: w - 4, y: small ? h - 6 : 61, "text-anchor": "end" },
                              "×" + count));
    }
    if (o.note) svg.appendChild(svgNode("text", { "class": "note", x: w / 2, y: h - 7, "text-anchor": "middle" }, o.note));
    if (!small) addMeter(svg, (meta.rules.meters || {})[bean] || [], 0);
    if (o.locked) svg.appendChild(padlock(w - (small ? 15 : 18), 3, small ? 11 : 13));
    return svg;
  }

  // A card of a trading area; one received in a trade is marked locked (a padlock, its meaning in the label).
  function tradeCard(meta, bean, locked) {
    var name = beanName(meta, bean);
    return tableCard(meta, bean, { cls: locked ? "locked" : "", locked: locked,
                                   label: locked ? name + " (" + LOCKED + ")" : name });
  }

  function discardTop(meta, bean) {
    return tableCard(meta, bean, { small: true, label: beanName(meta, bean) });
  }

  var DECISIONS = {
    plant_first: "plants the front card", plant_second: "may plant a second card", trade_offer: "offers or ends trading",
    trade_respond: "answers the offer", trade_confirm: "closes a deal or none", plant_traded: "plants a traded card",
    take_middle: "plants or discards the middle", discard_hand: "may discard from the hand",
    keep_middle: "plants from the middle or ends the turn"
  };

  // A seat's panel: name and badges (whose turn, who decides what), a line of coins (gold at a Princes table),
  // final place (won or lost alone) and hand size ending in `more`, the fields, and every hand once the game is over.
  function seatPanel(meta, s, i, more) {
    var seat = s.seats[i], won = s.over && s.ranks && s.ranks[i] === 1;
    var panel = el("div", "seat-panel" + (i === s.active && !s.over ? " active" : "") +
      (i === s.to_move ? " to-move" : "") + (won ? " winner" : ""));
    panel.setAttribute("data-seat", String(i));
    var head = el("div", "seat-head");
    head.appendChild(el("span", "seat-name", meta.seats[i]));
    if (i === s.active && !s.over) head.appendChild(el("span", "badge", "active"));
    (meta.failures || []).forEach(function (f) {  // [seat, step, status, evidence]: it failed there; defaults play since
      if (f[0] !== i || s.step < f[1]) return;
      var mark = el(f[3] ? "a" : "span", "badge failed", s.step === f[1] ? f[2] + " here" : f[2] + " at step " + f[1]);
      if (f[3]) mark.href = f[3];  // its evidence: the request, its own output (the bot's page)
      mark.title = "this seat's bot failed (" + f[2] + ") answering the request of step " + f[1] +
        "; from then on the referee plays for it";
      head.appendChild(mark);
    });
    if (i === s.to_move && s.decision) {
      var deciding = el("span", "badge deciding", DECISIONS[s.decision] || s.decision.replace(/_/g, " "));
      deciding.setAttribute("data-decision", s.decision);
      head.appendChild(deciding);
    }
    panel.appendChild(head);
    var line = el("div", "seat-line");
    line.appendChild(el("span", "", meta.rules.money[1] + " "));  // the rules' word: coins or gold
    line.appendChild(el("b", "coins", String(seat.coins)));
    if (s.over) {  // alone at the table: won or lost, as the site's rows say it (arena.text.solo_result)
      var alone = s.seats.length === 1;
      line.appendChild(el("span", "final-rank",
        alone ? (won ? " · won" : " · lost") : " · " + ordinal(meta.ranks[i] || s.ranks[i]) + " place"));
    }
    line.appendChild(el("span", "", " · hand "));
    line.appendChild(el("b", "hand-size", String(seat.hand_size)));
    more.forEach(function (node) { line.appendChild(node); });
    panel.appendChild(line);
    var fields = el("div", "fields");
    seat.fields.forEach(function (f, index) {
      var box = el("div", "field" + (f[0] ? "" : " empty"));
      box.setAttribute("data-bean", f[0] || "");
      box.setAttribute("data-count", String(f[1]));
      box.appendChild(el("span", "field-no", String(index + 1)));
      if (f[0]) box.appendChild(beanCard(meta, f[0], f[1]));
      else box.appendChild(el("span", "muted", "empty"));
      fields.appendChild(box);
    });
    panel.appendChild(fields);
    if (seat.hand) {  // revealed: the game is over
      var hand = el("div", "final-hand");
      hand.appendChild(el("span", "label", "hand at the end: "));
      if (!seat.hand.length) hand.appendChild(el("span", "muted", "empty"));
      seat.hand.forEach(function (b) { hand.appendChild(tableCard(meta, b, { small: true, label: beanName(meta, b) })); });
      panel.appendChild(hand);
    }
    return panel;
  }

  // An offer drawn as one: who offers what (the cards, each marked "give" or "want") for what, to whom; an
  // acceptance says so.
  function offerNode(meta, o, response) {
    var node = el("span", "offer" + (response ? " response" : ""));
    node.appendChild(el("span", "who", meta.seats[o.seat]));
    if (o.accept) { node.appendChild(el("span", "", " accepts")); return node; }
    node.appendChild(el("span", "", " offers "));
    if (!o.give.length) node.appendChild(el("span", "muted", "nothing"));
    o.give.forEach(function (b) { node.appendChild(offerCard(meta, b, "give")); });
    node.appendChild(el("span", "", o.want.length ? " for " : " as a gift"));
    o.want.forEach(function (b) { node.appendChild(offerCard(meta, b, "want")); });
    node.appendChild(el("span", "", o.to === null || o.to === undefined ? " · to everybody" : " · to " + meta.seats[o.to]));
    return node;
  }

  function offerCard(meta, bean, side) {
    return tableCard(meta, bean, { small: true, cls: side, note: side,
                                   label: beanName(meta, bean) + (side === "give" ? ", given" : ", wanted") });
  }

  // The trading round under way: the active player's offer and the answers so far.
  function renderTrade(meta, s) {
    var box = document.getElementById("trade-round");
    if (!box) return;
    box.textContent = "";
    if (!s.trade) { box.hidden = true; return; }
    box.hidden = false;
    box.appendChild(el("span", "label", "trading, round " + (s.trade.round + 1) + " of " + s.trade.max_rounds + ": "));
    if (!s.trade.offer && !s.trade.responses.length) box.appendChild(el("span", "muted", "no offer yet"));
    if (s.trade.offer) box.appendChild(offerNode(meta, s.trade.offer, false));
    s.trade.responses.forEach(function (r) { box.appendChild(offerNode(meta, r, true)); });
  }

  function start() {
    var root = document.getElementById("replay");
    if (!root) return;
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
      var s = all[step], i;
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

      if (s.princes) { renderPrinces(meta, s); renderLog(); return; }  // the state has a Princes table
      renderTrade(meta, s);
      var info = document.getElementById("table-info");
      info.textContent = "";
      info.appendChild(el("span", "", s.over ? "game over" : "turn " + (s.turn + 1)));
      info.appendChild(el("span", "deck", "deck " + s.deck));
      var discard = el("span", "discard", "discard " + s.discard + (s.top ? ", top " : ""));
      if (s.top) discard.appendChild(discardTop(meta, s.top));
      info.appendChild(discard);
      info.appendChild(el("span", "", "reshuffles " + s.reshuffles + " of " + meta.rules.reshuffles));

      var panels = document.getElementById("seat-panels");
      panels.textContent = "";
      for (i = 0; i < meta.seats.length; i++) {
        var panel = seatPanel(meta, s, i, []);
        var area = el("div", "trade-area");
        area.appendChild(el("span", "label", "trading area: "));
        if (!s.seats[i].trade_area.length) area.appendChild(el("span", "muted", "empty"));
        s.seats[i].trade_area.forEach(function (c) { area.appendChild(tradeCard(meta, c[0], c[1])); });
        panel.appendChild(area);
        panels.appendChild(panel);
      }

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
    window.addEventListener("hashchange", function () { var h = fromHash(); if (h !== null && h !== step) go(h, false); });
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

  // The Princes table (the middle, the vine, the figures) from one public state (engine/spectator.py).
  function renderPrinces(meta, s) {
    var t = s.princes, i;
    var info = document.getElementById("table-info");
    info.textContent = "";
    info.appendChild(el("span", "", s.over ? "game over" : "turn " + (s.turn + 1) + (s.decision ? " · " + s.decision.replace(/_/g, " ") : "")));
    info.appendChild(el("span", "deck", "supply " + s.deck));
    var discard = el("span", "discard", "discard " + s.discard + (s.top ? ", top " : ""));
    if (s.top) discard.appendChild(discardTop(meta, s.top));
    info.appendChild(discard);
    info.appendChild(el("span", "box", "box " + t.box + " gold"));
    info.appendChild(el("span", "", "reshuffles " + s.reshuffles + " of " + meta.rules.reshuffles));
    var middle = document.getElementById("middle");
    middle.textContent = "";
    middle.appendChild(el("span", "label", "middle: "));
    if (!t.middle.length) middle.appendChild(el("span", "muted", "empty"));
    t.middle.forEach(function (m) {  // a stack of one bean: its count on the card
      middle.appendChild(tableCard(meta, m[0], { count: m[1], label: m[1] + " × " + beanName(meta, m[0]) }));
    });
    var vine = document.getElementById("vine");
    vine.textContent = "";
    var here = {};  // position -> figures standing there
    s.seats.forEach(function (seat, k) { (here[seat.figure] = here[seat.figure] || []).push(meta.seats[k]); });
    t.neutral.forEach(function (n) { (here[n[1]] = here[n[1]] || []).push(n[0]); });
    for (i = 0; i <= t.castle; i++) {
      var end = i === 0 || i === t.castle, task = end ? null : t.vine[i - 1];
      var card = el("span", "card" + (end ? " end" : task ? "" : " down"));
      card.setAttribute("data-position", String(i));
      if (end) {
        card.appendChild(el("span", "task", i === 0 ? "start" : "Castle"));
      } else {  // the card's number and its task's short form; the full text is the tooltip
        card.appendChild(el("span", "card-no", String(i)));
        card.appendChild(el("span", "task", task ? taskShort(meta, task) : "?"));
        card.title = task ? (princesFacts(meta).tasks || {})[task] || taskShort(meta, task) : "face down";
        if (task) card.setAttribute("data-task", task);
      }
      (here[i] || []).forEach(function (who) { card.appendChild(el("span", "fig", who)); });
      vine.appendChild(card);
    }
    var panels = document.getElementById("seat-panels");
    panels.textContent = "";
    for (i = 0; i < meta.seats.length; i++) {
      var at = s.seats[i].figure;
      panels.appendChild(seatPanel(meta, s, i, [el("span", "", " · figure "), el("b", "figure",
        at === t.castle ? "in the Castle" : at === 0 ? "at the start" : "on card " + at)]));
    }
  }

  window.BohnanzaReplayModel = { applyDiff: applyDiff };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
