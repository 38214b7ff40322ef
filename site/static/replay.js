// Replay viewer: rebuilds the public table after every event from the page's embedded events and
// trading-area hints (see arena/site.py: public_replay), then steps through them: by step, by turn (the steps
// where a turn_started event falls) or playing one step at a time at a chosen speed.
(function () {
  "use strict";

  function readJson(id) { return JSON.parse(document.getElementById(id).textContent); }

  function copyState(s) {
    return {
      fields: s.fields.map(function (fs) { return fs.map(function (f) { return [f[0], f[1]]; }); }),
      trade: s.trade.map(function (t) { return t.map(function (c) { return [c[0], c[1]]; }); }),
      hands: s.hands.slice(), coins: s.coins.slice(), deck: s.deck, discard: s.discard, top: s.top,
      active: s.active, turn: s.turn, reshuffles: s.reshuffles, over: s.over, ranks: s.ranks
    };
  }

  // The public state after each event: states[0] is the deal, states[k] follows event k-1.
  function buildStates(meta, events, hints) {
    var n = meta.seats.length, rules = meta.rules, i, k;
    var s = {
      fields: [], trade: [], hands: [], coins: [], deck: rules.deck_size - n * rules.hand_size,
      discard: 0, top: null, active: 0, turn: 0, reshuffles: 0, over: false, ranks: null
    };
    for (i = 0; i < n; i++) {
      var fs = [];
      for (k = 0; k < rules.start_fields; k++) fs.push([null, 0]);
      s.fields.push(fs); s.trade.push([]); s.hands.push(rules.hand_size); s.coins.push(0);
    }
    // the cash-ins that end the game come right before game_ended; seat by seat, the hand and the
    // trading area are discarded, then the fields cashed in (C-7.3)
    var finish = -1, flushed = 0;
    if (events.length && events[events.length - 1].type === "game_ended") {
      finish = events.length - 1;
      while (finish > 0 && events[finish - 1].type === "harvested") finish--;
    }
    function flushUpTo(seat) {
      for (; flushed <= seat && flushed < n; flushed++) {
        var t = s.trade[flushed];
        s.discard += s.hands[flushed] + t.length;
        if (s.hands[flushed]) s.top = "?";  // a hand card: its bean stays hidden
        if (t.length) s.top = t[t.length - 1][0];
        s.hands[flushed] = 0; s.trade[flushed] = [];
      }
    }
    var oi = 0, ci = 0, pi = 0, responses = [], activeOffer = [], gift = null;
    var taken = 0;  // cards of the old deck already taken by a turn-up or draw that then reshuffled
    var states = [copyState(s)];
    events.forEach(function (e, index) {
      if (finish >= 0 && index >= finish) flushUpTo(e.type === "harvested" ? e.seat : n - 1);
      switch (e.type) {
        case "turn_started":
          s.active = e.seat; s.turn = e.turn; responses = []; activeOffer = [];
          break;
        case "planted":
          s.fields[e.seat][e.field] = [e.bean, s.fields[e.seat][e.field][1] + 1];
          if (e.source === "hand") {
            s.hands[e.seat] -= 1;
          } else {
            var area = s.trade[e.seat], card = hints.p[pi++];
            if (card === undefined || !area[card] || area[card][0] !== e.bean) {  // not expected: fall back to the bean
              card = area.findIndex(function (c) { return c[0] === e.bean; });
            }
            if (card >= 0) area.splice(card, 1);
          }
          break;
        case "harvested":
          s.fields[e.seat][e.field] = [null, 0];
          s.coins[e.seat] += e.coins;
          if (e.beans > e.coins) { s.discard += e.beans - e.coins; s.top = e.bean; }
          break;
        case "field_bought":
          s.coins[e.seat] -= e.paid.length;
          s.discard += e.paid.length;
          if (e.paid.length) s.top = e.paid[e.paid.length - 1];
          s.fields[e.seat].push([null, 0]);
          break;
        case "passed":
          if (e.kind === "trade_offer") { responses = []; activeOffer = []; }
          break;
        case "turned_up":
          e.beans.forEach(function (b) { s.trade[e.seat].push([b, false]); });
          s.deck -= e.beans.length - taken; taken = 0;
          break;
        case "offered":
          var given = hints.o[oi++] || [];
          // a gift (an offer wanting nothing) is an offer like any other under gifts by consent
          // (classic-v2, C-6.5); under classic-v1 it moved at once, with the next traded event
          var forced = !e.want.length && !rules.gifts_by_consent;
          if (e.seat === s.active) {
            responses = [];
            activeOffer = forced ? [] : given;
          } else if (!forced) {
            responses.push({ accept: false });
          }
          if (forced) gift = given;
          break;
        case "accepted":
          responses.push({ accept: true });
          break;
        case "traded":
          var fromTrade;
          if (gift !== null) {
            fromTrade = gift; gift = null;
          } else {
            var c = hints.c[ci++] || [0, []];
            fromTrade = responses[c[0]] && responses[c[0]].accept ? activeOffer : c[1];
          }
          fromTrade.slice().sort(function (x, y) { return y - x; }).forEach(function (p) { s.trade[e.a].splice(p, 1); });
          s.hands[e.a] -= e.a_gave.length - fromTrade.length;
          s.hands[e.b] -= e.b_gave.length;
          e.a_gave.forEach(function (b) { s.trade[e.b].push([b, true]); });
          e.b_gave.forEach(function (b) { s.trade[e.a].push([b, true]); });
          break;
        case "trading_ended":
          responses = []; activeOffer = [];
          break;
        case "drew":
          s.hands[e.seat] += e.cards; s.deck -= e.cards - taken; taken = 0;
          break;
        case "reshuffled":
          taken += s.deck; s.deck = e.deck; s.discard = 0; s.top = null; s.reshuffles = e.reshuffles;
          break;
        case "game_ended":
          s.coins = e.coins.slice(); s.over = true; s.ranks = e.ranks.slice();
          break;
      }
      states.push(copyState(s));
    });
    return states;
  }

  function beanName(meta, bean) {
    if (bean === "?") return "a hidden card";
    return (meta.rules.beans[bean] || bean);
  }

  function cards(meta, beans) {
    if (!beans.length) return "nothing";
    var counts = {}, order = [];
    beans.forEach(function (b) { if (!counts[b]) { counts[b] = 0; order.push(b); } counts[b] += 1; });
    return order.map(function (b) { return (counts[b] > 1 ? counts[b] + " × " : "") + beanName(meta, b); }).join(", ");
  }

  // A vine task's full text (engine/vine.py TASKS, without its final stop) and its short form (SHORT).
  function taskText(meta, task) {
    var text = (meta.rules.princes.tasks || {})[task];
    return text ? text.replace(/\.$/, "") : "task " + task;
  }

  function taskShort(meta, task) {
    return (meta.rules.princes.short || {})[task] || taskText(meta, task);
  }

  function ordinal(n) { return n + (n === 1 ? "st" : n === 2 ? "nd" : n === 3 ? "rd" : "th"); }

  function describe(meta, e, before) {
    var name = function (seat) { return meta.seats[seat]; };
    switch (e.type) {
      case "turn_started": return "Turn " + (e.turn + 1) + ": " + name(e.seat) + " is the active player.";
      case "planted": return name(e.seat) + " plants a " + beanName(meta, e.bean) + " from the " +
        ({ hand: "hand", middle: "middle" }[e.source] || "trading area") + " in field " + (e.field + 1) + ".";
      case "harvested": return name(e.seat) + " cashes in field " + (e.field + 1) + ": " + e.beans + " × " +
        beanName(meta, e.bean) + " for " + e.coins + " coin" + (e.coins === 1 ? "" : "s") + ".";
      case "field_bought": return name(e.seat) + " buys a third field, paying " + e.paid.length + " coins.";
      case "passed":
        return name(e.seat) + ({
          plant_second: " does not plant a second card.", trade_offer: " makes no offer this round.",
          discard_hand: " keeps the whole hand.", keep_middle: " ends the turn.",
          trade_respond: " passes.", trade_confirm: " closes no deal this round."
        }[e.kind] || " passes (" + e.kind + ").");
      case "turned_up": return name(e.seat) + " turns up " + cards(meta, e.beans) + ".";
      case "offered":
        if (!e.want.length) return name(e.seat) + " gives " + cards(meta, e.give) + " to " + name(e.to) + ".";
        return name(e.seat) + " offers " + cards(meta, e.give) + " for " + cards(meta, e.want) + " to " +
          (e.to === null || e.to === undefined ? "everybody" : name(e.to)) + " (round " + (e.round + 1) + ").";
      case "accepted": return name(e.seat) + " accepts the offer of " + name(before.active) + ".";
      case "traded":
        if (!e.a_gave.length) return name(e.b) + " gives " + cards(meta, e.b_gave) + " to " + name(e.a) + " as a gift.";
        return name(e.a) + " gives " + cards(meta, e.a_gave) + " to " + name(e.b) +
          (e.b_gave.length ? " for " + cards(meta, e.b_gave) : " as a gift") + ".";
      case "trading_ended": return name(e.seat) + " ends trading after " + e.rounds + " round" + (e.rounds === 1 ? "" : "s") + ".";
      case "drew": return name(e.seat) + " draws " + e.cards + " card" + (e.cards === 1 ? "" : "s") + ".";
      case "reshuffled": return "The discard pile is shuffled into a new deck of " + e.deck + " cards (reshuffle " + e.reshuffles + ").";
      case "game_ended": return "Game over. " + e.coins.map(function (c, i) {
        return name(i) + " " + c + (meta.rules.princes ? " gold" : " coin" + (c === 1 ? "" : "s"));
      }).join(", ") + (meta.rules.princes && meta.rules.princes.solo ? (e.ranks[0] === 1 ? ": won." : ": lost.") : ".");
      // the Princes variants (duel, solo)
      case "discarded": return name(e.seat) + " discards " + cards(meta, e.beans) + " from the " + e.source + ".";
      case "took_discard": return name(e.seat) + " takes " + cards(meta, e.beans) + " from the discard pile into the middle.";
      case "task_claimed":
        if (e.task === "castle") return name(e.seat) + " enters the Castle.";
        return name(e.seat) + " fulfils the task “" + taskText(meta, e.task) + "” and moves onto card " + e.position + ".";
      case "tribute_paid": return name(e.seat) + " pays " + e.paid.length + " gold as tribute and moves onto card " + e.position + ".";
      case "figure_moved": return "The " + e.figure + " figure moves " +
        (e.position === meta.rules.princes.castle ? "into the Castle." : "onto card " + e.position + ".");
      case "vine_revealed": return "Vine card " + e.position + " is turned face up: “" + taskText(meta, e.task) + "”.";
      case "end_triggered": return ({
        castle: (e.seat === null || e.seat === undefined ? "A player" : name(e.seat)) + " reached the Castle: the game ends.",
        neutral: "A neutral figure reached the Castle: the game is lost.",
        supply: "The supply is exhausted: the game ends."
      }[e.reason] || "The game ends (" + e.reason + ").");
    }
    return e.type;
  }

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function chip(meta, bean, label, extra) {
    var node = el("span", "chip bean-" + (bean || "none") + (extra ? " " + extra : ""), label);
    if (bean) node.title = beanName(meta, bean);
    return node;
  }

  var LOCKED = "locked: received in a trade, it must be planted";

  // A card of a trading area; one received in a trade carries a padlock drawn in SVG (no font needed).
  function tradeChip(meta, bean, locked) {
    var node = chip(meta, bean, beanName(meta, bean), locked ? "locked" : "");
    if (!locked) return node;
    node.title = beanName(meta, bean) + " (" + LOCKED + ")";
    var ns = "http://www.w3.org/2000/svg", svg = document.createElementNS(ns, "svg");
    svg.setAttribute("class", "lock");
    svg.setAttribute("viewBox", "0 0 12 14");
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", LOCKED);
    var title = document.createElementNS(ns, "title");
    title.textContent = LOCKED;
    svg.appendChild(title);
    var shackle = document.createElementNS(ns, "path");
    shackle.setAttribute("d", "M3.5 6.5V4.2a2.5 2.5 0 0 1 5 0v2.3");
    shackle.setAttribute("fill", "none");
    shackle.setAttribute("stroke", "currentColor");
    shackle.setAttribute("stroke-width", "1.6");
    svg.appendChild(shackle);
    var body = document.createElementNS(ns, "rect");
    body.setAttribute("x", "1.5"); body.setAttribute("y", "6.5"); body.setAttribute("width", "9");
    body.setAttribute("height", "7"); body.setAttribute("rx", "1.2"); body.setAttribute("fill", "currentColor");
    svg.appendChild(body);
    node.appendChild(svg);
    return node;
  }

  // A seat's panel: name and badge, a line of coins (gold), final place and hand size ending in `more`, the fields.
  function seatPanel(meta, s, i, more) {
    var p = meta.rules.princes, won = s.over && s.ranks && s.ranks[i] === 1;
    var panel = el("div", "seat-panel" + (i === s.active && !s.over ? " active" : "") + (won ? " winner" : ""));
    panel.setAttribute("data-seat", String(i));
    var head = el("div", "seat-head");
    head.appendChild(el("span", "seat-name", meta.seats[i]));
    if (i === s.active && !s.over) head.appendChild(el("span", "badge", "active"));
    panel.appendChild(head);
    var line = el("div", "seat-line");
    line.appendChild(el("span", "", p ? "gold " : "coins "));
    line.appendChild(el("b", "coins", String(s.coins[i])));
    if (s.over) {
      line.appendChild(el("span", "final-rank",
        p && p.solo ? (won ? " · won" : " · lost") : " · " + ordinal(meta.ranks[i] || s.ranks[i]) + " place"));
    }
    line.appendChild(el("span", "", " · hand "));
    line.appendChild(el("b", "hand-size", String(s.hands[i])));
    more.forEach(function (node) { line.appendChild(node); });
    panel.appendChild(line);
    var fields = el("div", "fields");
    s.fields[i].forEach(function (f, index) {
      var box = el("div", "field" + (f[0] ? "" : " empty"));
      box.appendChild(el("span", "field-no", String(index + 1)));
      if (f[0]) box.appendChild(chip(meta, f[0], beanName(meta, f[0]) + " × " + f[1]));
      else box.appendChild(el("span", "muted", "empty"));
      fields.appendChild(box);
    });
    panel.appendChild(fields);
    return panel;
  }

  function start() {
    var root = document.getElementById("replay");
    if (!root) return;
    var meta = readJson("replay-meta"), events = readJson("replay-events");
    var princes = !!meta.rules.princes, states, texts;
    if (princes) {  // snapshots computed by the site builder: one step per action
      var steps = readJson("replay-steps");
      states = steps.map(function (st) { return st[1]; });
      texts = steps.map(function (st, k) {
        if (k === 0) return "The cards are dealt: " + meta.rules.hand_size + " to each of " + meta.seats.length +
          (meta.seats.length === 1 ? " player" : " players") + "; the vine is laid out.";
        return events.slice(steps[k - 1][0], st[0]).map(function (e) { return describe(meta, e, states[k - 1]); }).join(" ");
      });
    } else {
      states = buildStates(meta, events, readJson("replay-hints"));
      texts = ["The cards are dealt: " + meta.rules.hand_size + " to each of " + meta.seats.length + " players."];
      events.forEach(function (e, i) { texts.push(describe(meta, e, states[i])); });
    }
    var last = states.length - 1, step = 0;
    var range = document.getElementById("step-range");
    range.max = String(last);
    // The steps at which a turn starts (a turn_started event): a classic step k follows event k-1, a Princes
    // step k follows the events steps[k-1][0] .. steps[k][0]-1 (step 0: the ones of the deal).
    var turns = [];  // [{step, turn}], in order
    events.forEach(function (e, index) {
      if (e.type !== "turn_started") return;
      var k = index + 1;
      if (princes) { k = 0; while (k < last && steps[k][0] <= index) k++; }
      if (turns.length && turns[turns.length - 1].step === k) turns.pop();  // two in one step: the later counts
      turns.push({ step: k, turn: e.turn });
    });
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
      var s = states[step], i;
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

      if (princes) { renderPrinces(meta, s); renderLog(); return; }
      var info = document.getElementById("table-info");
      info.textContent = "";
      info.appendChild(el("span", "", s.over ? "game over" : "turn " + (s.turn + 1)));
      info.appendChild(el("span", "", "deck " + s.deck));
      var discard = el("span", "", "discard " + s.discard + (s.discard ? ", top " : ""));
      if (s.discard && s.top) discard.appendChild(s.top === "?" ? el("span", "muted", "hidden card") : chip(meta, s.top, beanName(meta, s.top)));
      info.appendChild(discard);
      info.appendChild(el("span", "", "reshuffles " + s.reshuffles + " of " + meta.rules.reshuffles));

      var panels = document.getElementById("seat-panels");
      panels.textContent = "";
      for (i = 0; i < meta.seats.length; i++) {
        var panel = seatPanel(meta, s, i, []);
        var area = el("div", "trade-area");
        area.appendChild(el("span", "label", "trading area: "));
        if (!s.trade[i].length) area.appendChild(el("span", "muted", "empty"));
        s.trade[i].forEach(function (c) { area.appendChild(tradeChip(meta, c[0], c[1])); });
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

    function fromHash() {  // #step-K, or #event-N: the position once N events had happened (a bot page's links)
      var match = /^#(step|event)-(\d+)$/.exec(location.hash);
      if (!match) return null;
      var n = parseInt(match[2], 10);
      if (match[1] === "step" || !princes) return n;  // a classic step is one event
      var k = 0;
      while (k < last && steps[k + 1][0] <= n) k++;
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
    var initial = fromHash();
    go(initial === null ? 0 : initial, false);
    window.BohnanzaReplay = {
      states: states, texts: texts, go: go, step: function () { return step; }, last: last,
      turns: turns, goTurn: goTurn, play: function () { setPlaying(true); }, pause: function () { setPlaying(false); },
      playing: function () { return playing; }, tradeChip: function (bean, locked) { return tradeChip(meta, bean, locked); }
    };
  }

  // The Princes table (duel, solo) from one public snapshot (arena/site.py: princes_steps).
  function renderPrinces(meta, s) {
    var p = meta.rules.princes, i;
    var info = document.getElementById("table-info");
    info.textContent = "";
    info.appendChild(el("span", "", s.over ? "game over" : "turn " + (s.turn + 1) + (s.phase ? " · " + s.phase.replace("_", " ") : "")));
    info.appendChild(el("span", "", "supply " + s.deck));
    var discard = el("span", "", "discard " + s.discard + (s.top ? ", top " : ""));
    if (s.top) discard.appendChild(chip(meta, s.top, beanName(meta, s.top)));
    info.appendChild(discard);
    info.appendChild(el("span", "", "box " + s.box + " gold"));
    info.appendChild(el("span", "", "reshuffles " + s.reshuffles + " of " + meta.rules.reshuffles));
    var middle = document.getElementById("middle");
    middle.textContent = "";
    middle.appendChild(el("span", "label", "middle: "));
    if (!s.middle.length) middle.appendChild(el("span", "muted", "empty"));
    s.middle.forEach(function (m) { middle.appendChild(chip(meta, m[0], beanName(meta, m[0]) + " × " + m[1])); });
    var vine = document.getElementById("vine");
    vine.textContent = "";
    var here = {};  // position -> figures standing there
    s.figures.forEach(function (pos, seat) { (here[pos] = here[pos] || []).push(meta.seats[seat]); });
    s.neutral.forEach(function (n) { (here[n[1]] = here[n[1]] || []).push(n[0]); });
    for (i = 0; i <= p.castle; i++) {
      var end = i === 0 || i === p.castle, task = end ? null : s.vine[i - 1];
      var card = el("span", "card" + (end ? " end" : task ? "" : " down"));
      card.setAttribute("data-position", String(i));
      if (end) {
        card.appendChild(el("span", "task", i === 0 ? "start" : "Castle"));
      } else {  // the card's number and its task's short form; the full text is the tooltip
        card.appendChild(el("span", "card-no", String(i)));
        card.appendChild(el("span", "task", task ? taskShort(meta, task) : "?"));
        card.title = task ? (p.tasks || {})[task] || taskShort(meta, task) : "face down";
        if (task) card.setAttribute("data-task", task);
      }
      (here[i] || []).forEach(function (who) { card.appendChild(el("span", "fig", who)); });
      vine.appendChild(card);
    }
    var panels = document.getElementById("seat-panels");
    panels.textContent = "";
    for (i = 0; i < meta.seats.length; i++) {
      panels.appendChild(seatPanel(meta, s, i, [el("span", "", " · figure "), el("b", "figure",
        s.figures[i] === p.castle ? "in the Castle" : s.figures[i] === 0 ? "at the start" : "on card " + s.figures[i])]));
    }
  }

  window.BohnanzaReplayModel = { buildStates: buildStates, describe: describe };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
