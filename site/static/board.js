// The table the replay viewer draws from one public state (replay.js loads this after cards.js): the seats'
// panels, the trading round, and the classic or the Princes table, as the state holds one or the other.
// What it offers is window.BohnanzaBoard.draw(meta, state).
(function (cards) {
  "use strict";

  var el = cards.el, beanName = cards.beanName, princesFacts = cards.princesFacts, taskShort = cards.taskShort;
  var ordinal = cards.ordinal, beanCard = cards.beanCard, tableCard = cards.tableCard, tradeCard = cards.tradeCard;
  var discardTop = cards.discardTop, offerCard = cards.offerCard;

  var DECISIONS = {
    plant_first: "plants the front card", plant_second: "may plant a second card",
    trade_offer: "offers or ends trading",
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
    // [seat, step, status, evidence]: it failed there; defaults play since
    (meta.failures || []).forEach(function (f) {
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
      seat.hand.forEach(function (b) {
        hand.appendChild(tableCard(meta, b, { small: true, label: beanName(meta, b) }));
      });
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
    node.appendChild(el("span", "",
      o.to === null || o.to === undefined ? " · to everybody" : " · to " + meta.seats[o.to]));
    return node;
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

  // The classic table: the deck, the discard pile and the reshuffles, then each seat's panel with its trading area.
  function renderClassic(meta, s) {
    var i;
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
  }

  // The Princes table (the middle, the vine, the figures) from one public state (engine/spectator.py).
  function renderPrinces(meta, s) {
    var t = s.princes, i;
    var info = document.getElementById("table-info");
    info.textContent = "";
    info.appendChild(el("span", "", s.over ? "game over" :
      "turn " + (s.turn + 1) + (s.decision ? " · " + s.decision.replace(/_/g, " ") : "")));
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

  // The table of state `s`: a Princes table when the state has one, else the classic table.
  function draw(meta, s) {
    if (s.princes) renderPrinces(meta, s);
    else renderClassic(meta, s);
  }

  window.BohnanzaBoard = { draw: draw };
})(window.BohnanzaCards);
