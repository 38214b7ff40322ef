// Cards and the small pieces the replay viewer draws with (replay.js loads this first): bean cards in SVG,
// the beanometer, the padlock of a traded card, and the format's words (bean names, task texts) from the
// page's meta. It keeps no state; what it offers is window.BohnanzaCards.
(function () {
  "use strict";

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
    svg.appendChild(svgNode("text", { "class": "name", x: 32, y: 15, "text-anchor": "middle" },
                            name.replace(/ bean$/, "")));
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
      cell.appendChild(svgNode("text", { x: x + w / 2, y: 73, "text-anchor": "middle" },
                               need === null ? "–" : String(need)));
      cell.appendChild(svgNode("text", { "class": "coins", x: x + w / 2, y: 82, "text-anchor": "middle" },
                               String(k + 1)));
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
    if (o.note) {
      svg.appendChild(svgNode("text", { "class": "note", x: w / 2, y: h - 7, "text-anchor": "middle" }, o.note));
    }
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


  function offerCard(meta, bean, side) {
    return tableCard(meta, bean, { small: true, cls: side, note: side,
                                   label: beanName(meta, bean) + (side === "give" ? ", given" : ", wanted") });
  }

  window.BohnanzaCards = {
    el: el, beanName: beanName, princesFacts: princesFacts, taskShort: taskShort, ordinal: ordinal,
    beanCard: beanCard, tableCard: tableCard, tradeCard: tradeCard, discardTop: discardTop, offerCard: offerCard
  };
})();
