/* The Meduris board as SVG, drawn from a JSON view (meduris_env/render/view.py).
 *
 * The one renderer of the project's pages: the web game (`meduris serve`) and the HTML replay
 * (`meduris replay --html`) both draw with it. No framework, no network.
 *
 *   MedurisBoard.render(container, view, opts)  draws `view` into `container` (replacing what
 *       was there) and returns the <svg>. opts (all optional):
 *         onAction(id, entry)  a legal action was chosen (clicked, or picked from a menu)
 *         onRefuse(text)       something was clicked that is not a legal action now
 *         onHover(text)        the words of what is under the pointer ("" when nothing)
 *       Without onAction the board is a picture only (the replay).
 *   MedurisBoard.applyPatch(view, patch)  applies a view_patch ({"a.b.3": value}) in place.
 *   MedurisBoard.expand(base, patches)    [base, base+patch1, ...]: the views of a replay.
 *
 * Clickable: a field (build), a plain (place a worker), a worker (move it), a supply (take),
 * your own material (return), an offering choice; several actions on one target open a menu.
 * Every legal target has class "legal" and data-target (see view.py); its <title> holds the
 * action's words.
 */
(function (global) {
  "use strict";
  // the SVG namespace, as the HTML parser knows it (the page holds no addresses at all)
  const NS = (() => {
    const probe = document.createElement("div");
    probe.innerHTML = "<svg></svg>";
    return probe.firstChild.namespaceURI;
  })();
  const W = 1060, H = 640;
  const SEAT = ["#d62728", "#1f77b4", "#e6be14", "#2ca02c"];
  const MAT = ["#855e34", "#eee8d5", "#cd7832", "#969696"];
  const MAT_INK = ["#ffffff", "#1e1e1e", "#1e1e1e", "#1e1e1e"];
  const INK = "#1e1e1e", BG = "#f6f1e4", CHIP = "#7828a0", LEGAL = "#128a3a";
  const CHIP_LABEL = ["", "+2", "F", "D"];
  const OFFER_LABEL = ["nothing", "first", "second", "both", "druid chip"];
  const CX = 290, CY = 345, RING = 232;
  const STYLE =
    "text{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;fill:" + INK + "}" +
    ".small{font-size:12px}.tiny{font-size:10px;fill:#666}.big{font-size:16px;font-weight:600}" +
    ".mid{font-size:14px}.legal{cursor:pointer}.hl{fill:none;stroke:" + LEGAL + ";stroke-width:3;" +
    "stroke-dasharray:5 3;pointer-events:none}.legal:hover .hl{stroke-dasharray:none;" +
    "stroke-width:4}.btn rect{fill:#fff;stroke:" + LEGAL + ";stroke-width:2}.btn:hover rect{" +
    "fill:#e3f4e8}.menu rect.item{fill:#fff;stroke:#bbb}.menu g:hover rect.item{fill:#e3f4e8}" +
    "[data-target]{cursor:pointer}.picture [data-target]{cursor:default}";

  function el(tag, attrs, parent, text) {
    const node = document.createElementNS(NS, tag);
    for (const k in attrs) if (attrs[k] !== undefined && attrs[k] !== null) node.setAttribute(k, attrs[k]);
    if (text !== undefined) node.textContent = text;
    if (parent) parent.appendChild(node);
    return node;
  }
  function title(node, text) { el("title", {}, node, text); }
  function fieldXY(f, n, radius) {
    const a = 2 * Math.PI * (f + 0.5) / n - Math.PI / 2;  // field 0 just right of the river
    return [CX + radius * Math.cos(a), CY + radius * Math.sin(a)];
  }
  function seatName(view, s) {
    const label = view.seats[s].label;
    const you = view.viewer === s ? " (you)" : "";
    return label === "seat " + s ? "seat " + s + you : "seat " + s + " " + label + you;
  }

  function applyPatch(view, patch) {
    for (const path in patch) {
      const keys = path.split(".");
      let node = view;
      for (let i = 0; i < keys.length - 1; i++) node = node[keys[i]];
      node[keys[keys.length - 1]] = patch[path];
    }
    return view;
  }
  function expand(base, patches) {
    const out = [base];
    let cur = base;
    for (const p of patches) {
      cur = applyPatch(JSON.parse(JSON.stringify(cur)), p);
      out.push(cur);
    }
    return out;
  }

  function render(container, view, opts) {
    opts = opts || {};
    const interactive = typeof opts.onAction === "function";
    const mats = view.names.materials;
    const byTarget = new Map();
    for (const a of view.legal || []) {
      if (!byTarget.has(a.target)) byTarget.set(a.target, []);
      byTarget.get(a.target).push(a);
    }
    const svg = el("svg", {viewBox: "0 0 " + W + " " + H, role: "img",
                           class: interactive ? "board" : "board picture",
                           "aria-label": "Meduris board: " + view.status});
    svg.dataset.turn = view.turn;
    svg.dataset.toMove = view.to_move;
    svg.dataset.legal = (view.legal || []).length;
    el("style", {}, svg, STYLE);
    el("rect", {x: 0, y: 0, width: W, height: H, fill: BG}, svg);
    el("text", {x: 16, y: 28, class: "big", id: "board-status"}, svg, view.status);

    // marks a target element: legal (highlight, words on hover) or not
    function target(node, key, describe, hl) {
      node.setAttribute("data-target", key);
      const acts = byTarget.get(key);
      if (acts && interactive) {
        node.classList.add("legal");
        node.setAttribute("data-words", acts.map(a => a.words).join("\n"));
        title(node, acts.map(a => a.words).join("\n"));
        if (hl) hl();
      } else if (describe) {
        title(node, describe);
      }
      return node;
    }

    // --- the ring ------------------------------------------------------------------------
    const b = view.board, n = b.fields;
    const r = Math.min(22, Math.floor(Math.PI * RING / n) - 3);
    el("line", {x1: CX, y1: CY - RING - 42, x2: CX, y2: CY - RING + 42, stroke: "#4682c8",
                "stroke-width": 6}, svg);
    el("text", {x: CX, y: CY - RING - 48, "text-anchor": "middle", class: "tiny"}, svg,
       "great river");
    for (let f = 0; f < n; f++) {
      const [x, y] = fieldXY(f, n, RING);
      const m = b.materials[f];
      const area = b.area_names[b.areas[f]] || "";
      const letter = String.fromCharCode(97 + b.areas[f]);
      const occ = view.occupant[f], owner = view.owner[f], chip = view.chip[f];
      let desc = "field " + f + " (" + mats[m[0]] + "/" + mats[m[1]] + "), rune area " +
                 letter + " (" + area + ")";
      if (occ) desc += ": " + (occ === 1 ? "hut" : "temple") + " of " + seatName(view, owner);
      else if (chip) desc += ": bonus chip " + view.names.chips[chip];
      const g = el("g", {class: "field", "data-field": f}, svg);
      el("path", {d: "M" + x + " " + (y - r) + "A" + r + " " + r + " 0 0 0 " + x + " " + (y + r) + "Z",
                  fill: MAT[m[0]], stroke: INK}, g);
      el("path", {d: "M" + x + " " + (y - r) + "A" + r + " " + r + " 0 0 1 " + x + " " + (y + r) + "Z",
                  fill: MAT[m[1]], stroke: INK}, g);
      if (chip) el("circle", {cx: x, cy: y, r: r + 3, fill: "none", stroke: CHIP, "stroke-width": 3}, g);
      const s = r * 0.55;
      if (occ === 1) {
        el("rect", {x: x - s, y: y - s, width: 2 * s, height: 2 * s, fill: SEAT[owner], stroke: INK,
                    class: "hut", "data-owner": owner}, g);
      } else if (occ === 2) {
        el("polygon", {points: [x, y - s * 1.3, x - s * 1.2, y + s, x + s * 1.2, y + s].join(" "),
                       fill: SEAT[owner], stroke: INK, class: "temple", "data-owner": owner}, g);
      } else if (chip) {
        el("text", {x: x, y: y + 5, "text-anchor": "middle", class: "mid", fill: CHIP,
                    style: "fill:" + CHIP + ";font-weight:700"}, g, CHIP_LABEL[chip]);
      }
      if (view.druid.field === f) {
        el("circle", {cx: x + r * 0.62, cy: y - r * 0.62, r: Math.max(5, r * 0.36), fill: INK,
                      class: "druid"}, g);
      }
      target(g, "field:" + f, desc, () => el("circle", {cx: x, cy: y, r: r + 6, class: "hl"}, g));
      const [ox, oy] = fieldXY(f, n, RING + r + 13);
      el("text", {x: ox, y: oy + 4, "text-anchor": "middle", class: "small"}, svg, String(f));
      const [ix, iy] = fieldXY(f, n, RING - r - 11);
      el("text", {x: ix, y: iy + 4, "text-anchor": "middle", class: "tiny"}, svg, letter);
    }
    // the druid's stone fields (R5) and the rune stones (R12) in the centre
    for (let k = 0; k < 3; k++) {
      const x = CX - 44 + 44 * k, y = CY - 40;
      el("rect", {x: x - 15, y: y - 15, width: 30, height: 30, fill: "#c8c8c8", stroke: INK}, svg);
      if (view.druid.field < 0 && view.druid.stone === k + 1)
        el("circle", {cx: x, cy: y, r: 9, fill: INK, class: "druid"}, svg);
    }
    if (view.druid.field < 0 && view.druid.stone === 0)
      el("circle", {cx: CX, cy: CY - 78, r: 9, fill: INK, class: "druid"}, svg);
    el("text", {x: CX, y: CY - 2, "text-anchor": "middle", class: "tiny"}, svg, "druid stones");
    el("text", {x: CX, y: CY + 36, "text-anchor": "middle", class: "tiny"}, svg, "rune stones");
    const na = b.area_names.length;
    for (let k = 0; k < na; k++) {
      const x = CX - (na - 1) * 13 + 26 * k, y = CY + 56;
      const holder = view.runes[k];
      const g = el("g", {class: "rune"}, svg);
      el("circle", {cx: x, cy: y, r: 11, fill: holder >= 0 ? SEAT[holder] : "#fff", stroke: INK}, g);
      el("text", {x: x, y: y + 4, "text-anchor": "middle", class: "small"}, g,
         String.fromCharCode(97 + k));
      title(g, "rune stone of area " + String.fromCharCode(97 + k) + " (" + b.area_names[k] + "): " +
            (holder >= 0 ? seatName(view, holder) : "not taken"));
    }

    // --- the high plains: worker stacks and supply -------------------------------------------
    const PX = 575, PW = 96;
    el("text", {x: PX, y: 62, class: "small"}, svg, "high plains (workers bottom to top)");
    for (let p = 0; p < 4; p++) {
      const x = PX + p * (PW + 8);
      const g = el("g", {class: "plain", "data-plain": p}, svg);
      el("rect", {x: x, y: 72, width: PW, height: 150, fill: "#fff", "fill-opacity": 0.45,
                  stroke: "#ccc", rx: 6}, g);
      el("rect", {x: x, y: 72, width: PW, height: 24, fill: MAT[p], stroke: INK, rx: 4}, g);
      el("text", {x: x + PW / 2, y: 89, "text-anchor": "middle", class: "mid",
                  style: "fill:" + MAT_INK[p]}, g, mats[p]);
      for (let lv = 0; lv < 3; lv++) {
        const cy = 196 - 33 * lv;
        el("circle", {cx: x + PW / 2, cy: cy, r: 14, fill: "none", stroke: "#bbb",
                      "stroke-dasharray": "3 3"}, g);
      }
      target(g, "plain:" + p, "the " + mats[p] + " plain",
             () => el("rect", {x: x - 3, y: 69, width: PW + 6, height: 156, rx: 8, class: "hl"}, g));
      for (let lv = 0; lv < 3; lv++) {
        const owner = view.stacks[p][lv];
        if (owner < 0) continue;
        const cy = 196 - 33 * lv;
        const w = el("g", {class: "worker", "data-owner": owner}, svg);
        el("circle", {cx: x + PW / 2, cy: cy, r: 14, fill: SEAT[owner], stroke: INK}, w);
        target(w, "worker:" + p + ":" + lv, "worker of " + seatName(view, owner) + " on the " +
               mats[p] + " plain, level " + lv,
               () => el("circle", {cx: x + PW / 2, cy: cy, r: 18, class: "hl"}, w));
      }
      const sg = el("g", {class: "supply"}, svg);
      el("rect", {x: x + 8, y: 230, width: PW - 16, height: 26, rx: 4, fill: MAT[p], stroke: INK}, sg);
      el("text", {x: x + PW / 2, y: 248, "text-anchor": "middle", class: "small",
                  style: "fill:" + MAT_INK[p]}, sg, "supply " + view.supply[p]);
      target(sg, "supply:" + p, view.supply[p] + " " + mats[p] + " in the supply",
             () => el("rect", {x: x + 4, y: 226, width: PW - 8, height: 34, rx: 6, class: "hl"}, sg));
    }

    // --- the die and the decision due ----------------------------------------------------------
    const die = el("g", {class: "die"}, svg);
    el("rect", {x: PX, y: 272, width: 48, height: 48, rx: 8, fill: "#fff", stroke: INK,
                "stroke-width": 2}, die);
    const face = view.die;
    const fi = face === null ? -1 : mats.indexOf(face);
    if (fi >= 0) el("rect", {x: PX + 9, y: 281, width: 30, height: 30, rx: 4, fill: MAT[fi], stroke: INK}, die);
    else el("text", {x: PX + 24, y: 303, "text-anchor": "middle", class: "big"}, die,
            face === null ? "–" : face);
    title(die, face === null ? "the die is not rolled yet this turn" : "the die shows " + face + " (R7)");
    el("text", {x: PX + 24, y: 334, "text-anchor": "middle", class: "tiny"}, svg, "die");
    let line = "";
    const d = view.decision;
    const extra = [];  // a second line: the first must fit beside the die
    if (view.terminal) line = "game over: " + view.end_reason;
    else if (d) {
      line = seatName(view, d.seat) + ": " + d.kind;
      if (d.kind === "offering") {
        line += " for the hut on field " + d.field;
        extra.push("a settlement of " + d.size);
      }
    } else line = view.phase;
    el("text", {x: PX + 60, y: 290, class: "mid", id: "board-decision"}, svg, line);
    if (view.finale) extra.push("finale: " + view.finale.turns_left + " turn(s) left");
    if (view.final_circuit) extra.push("the druid's final circuit");
    if (extra.length) el("text", {x: PX + 60, y: 310, class: "small"}, svg, extra.join("; "));
    // offering choices (R19, R20) and other actions without a place on the board
    const offers = (view.legal || []).filter(a => a.kind === "offer");
    const others = (view.legal || []).filter(a => a.kind === "exchange");
    let bx = PX + 60;
    if (interactive) {
      const bm = d && d.field >= 0 ? b.materials[d.field] : null;
      for (const a of offers) {
        let label = OFFER_LABEL[a.choice];
        if (bm && (a.choice === 1 || a.choice === 2)) label = mats[bm[a.choice - 1]];
        const w = 14 + 7.2 * label.length;
        const g = el("g", {class: "btn offer"}, svg);
        el("rect", {x: bx, y: 318, width: w, height: 26, rx: 5}, g);
        el("text", {x: bx + w / 2, y: 336, "text-anchor": "middle", class: "small"}, g, label);
        target(g, a.target, null, null);
        bx += w + 6;
      }
      if (others.length) {
        const g = el("g", {class: "btn exchange"}, svg);
        el("rect", {x: bx, y: 318, width: 90, height: 26, rx: 5}, g);
        el("text", {x: bx + 45, y: 336, "text-anchor": "middle", class: "small"}, g, "exchange…");
        target(g, "exchange", null, null);
      }
    }

    // --- the players: VP, materials (behind screens), pieces left, rune stones --------------
    const TY = 372;
    const cols = [["", 0], ["seat", 26], ["VP", 160], [mats[0], 201], [mats[1], 243],
                  [mats[2], 285], [mats[3], 327], ["huts", 372], ["temples", 420],
                  ["runes", 466]];
    const TX = PX - 4;
    for (const [label, dx] of cols)
      el("text", {x: TX + dx, y: TY, class: "small", "text-anchor": dx >= 160 ? "middle" : "start"},
         svg, label);
    el("text", {x: TX + 396, y: TY - 16, class: "tiny", "text-anchor": "middle"}, svg,
       "left to build");
    for (let s = 0; s < view.players; s++) {
      const seat = view.seats[s];
      const y = TY + 14 + 34 * s;
      const row = el("g", {class: "seat", "data-seat": s}, svg);
      if (view.to_move === s)
        el("rect", {x: TX - 6, y: y - 3, width: 494, height: 30, rx: 5, fill: "#fff",
                    stroke: SEAT[s], "stroke-width": 2}, row);
      el("rect", {x: TX, y: y + 3, width: 18, height: 18, fill: SEAT[s], stroke: INK}, row);
      const won = view.terminal && view.winners.indexOf(s) >= 0 ? " ★" : "";
      let name = seatName(view, s);
      if (name.length > 22) name = name.slice(0, 21) + "…";
      el("text", {x: TX + 26, y: y + 16, class: "small"}, row, name + won);
      el("text", {x: TX + 160, y: y + 17, class: "mid", "text-anchor": "middle",
                  style: "font-weight:600"}, row, String(seat.vp));
      if (seat.materials) {
        for (let m = 0; m < 4; m++) {
          const cell = el("g", {class: "mat"}, row);
          el("rect", {x: TX + 185 + 42 * m, y: y + 1, width: 32, height: 22, rx: 4, fill: MAT[m],
                      stroke: INK, "stroke-opacity": 0.4}, cell);
          el("text", {x: TX + 201 + 42 * m, y: y + 17, class: "mid", "text-anchor": "middle",
                      style: "fill:" + MAT_INK[m]}, cell, String(seat.materials[m]));
          if (s === view.viewer)
            target(cell, "mat:" + m, "your " + mats[m] + ": " + seat.materials[m],
                   () => el("rect", {x: TX + 182 + 42 * m, y: y - 2, width: 38, height: 28, rx: 6,
                                     class: "hl"}, cell));
          else title(cell, seat.materials[m] + " " + mats[m]);
        }
      } else {
        const screen = el("g", {class: "screen"}, row);
        el("rect", {x: TX + 185, y: y + 1, width: 158, height: 22, rx: 4, fill: "#ddd6c4"}, screen);
        el("text", {x: TX + 264, y: y + 16, class: "small", "text-anchor": "middle"}, screen,
           seat.total + " behind the screen");
        title(screen, "behind the screen: you see how many, not which");
      }
      el("text", {x: TX + 372, y: y + 17, class: "mid", "text-anchor": "middle"}, row,
         String(seat.huts_left));
      el("text", {x: TX + 420, y: y + 17, class: "mid", "text-anchor": "middle"}, row,
         String(seat.temples_left));
      el("text", {x: TX + 466, y: y + 17, class: "mid", "text-anchor": "middle"}, row,
         String(seat.runes));
    }
    if (b.reconstructed)
      el("text", {x: 16, y: H - 12, class: "tiny"}, svg, "board: " + b.name);

    // --- clicks: act, open a menu, or say why not ----------------------------------------------
    let menu = null;
    function closeMenu() { if (menu) { menu.remove(); menu = null; } }
    function openMenu(acts, node) {
      closeMenu();
      const box = node.getBBox();
      const width = Math.max(...acts.map(a => 20 + 7 * a.words.length));
      const height = 22 * acts.length + 8;
      const x = Math.max(4, Math.min(W - width - 4, box.x + box.width / 2 - width / 2));
      const y = box.y + box.height + height + 4 < H ? box.y + box.height + 4 : Math.max(4, box.y - height - 4);
      menu = el("g", {class: "menu"}, svg);
      el("rect", {x: x, y: y, width: width, height: height, rx: 6, fill: "#fafafa", stroke: INK,
                  filter: "drop-shadow(0 2px 3px rgba(0,0,0,.3))"}, menu);
      acts.forEach((a, i) => {
        const g = el("g", {"data-action": a.id, class: "menu-item"}, menu);
        el("rect", {x: x + 4, y: y + 4 + 22 * i, width: width - 8, height: 20, rx: 3, class: "item"}, g);
        el("text", {x: x + 10, y: y + 18 + 22 * i, class: "small"}, g, a.words);
      });
    }
    if (interactive) {
      svg.addEventListener("click", ev => {
        const item = ev.target.closest("[data-action]");
        if (item) {
          const id = Number(item.getAttribute("data-action"));
          const entry = (view.legal || []).find(a => a.id === id);
          closeMenu();
          opts.onAction(id, entry);
          return;
        }
        const node = ev.target.closest("[data-target]");
        closeMenu();
        if (!node) return;
        const key = node.getAttribute("data-target");
        const acts = byTarget.get(key) || [];
        if (acts.length === 1) opts.onAction(acts[0].id, acts[0]);
        else if (acts.length > 1) openMenu(acts, node);
        else if (typeof opts.onRefuse === "function") {
          let why;
          if (view.terminal) why = "the game is over";
          else if (view.viewer === null || view.to_move !== view.viewer) why = "it is not your turn";
          else why = "it is not a legal action now (" + (d ? d.kind : view.phase) + " is due)";
          const what = node.querySelector("title");
          opts.onRefuse((what ? what.textContent : key) + ": " + why);
        }
      });
      if (typeof opts.onHover === "function") {
        svg.addEventListener("mouseover", ev => {
          const node = ev.target.closest("[data-words], [data-action]");
          if (!node) { opts.onHover(""); return; }
          if (node.hasAttribute("data-action")) {
            const id = Number(node.getAttribute("data-action"));
            const entry = (view.legal || []).find(a => a.id === id);
            opts.onHover(entry ? entry.words : "");
          } else opts.onHover(node.getAttribute("data-words"));
        });
        svg.addEventListener("mouseleave", () => opts.onHover(""));
      }
    }
    container.replaceChildren(svg);
    return svg;
  }

  global.MedurisBoard = {render: render, applyPatch: applyPatch, expand: expand,
                         SEAT_COLOURS: SEAT, MATERIAL_COLOURS: MAT};
})(window);
