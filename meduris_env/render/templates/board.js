/* The Meduris board as SVG, drawn from a JSON view (meduris_env/render/view.py).
 *
 * The one renderer of the project's pages: the web game (`meduris serve`) and the HTML replay
 * (`meduris replay --html`) both draw with it. No framework, no network.
 *
 *   MedurisBoard.render(container, view, opts)  draws `view` into `container` (replacing what
 *       was there) and returns the <svg>. opts (all optional):
 *         onAction(id, entry)  a legal action was chosen (clicked, tapped twice, Enter/Space,
 *                              or picked from a menu)
 *         onRefuse(text)       something was clicked that is not a legal action now
 *         onHover(text)        the words of what is under the pointer, tapped or focused ("" when
 *                              nothing)
 *         marks                target keys ("field:12", "plain:2", "supply:1") to mark as just
 *                              touched by the opponents (an orange ring; a "!" on a plain)
 *         layout               "wide" (1060 wide: ring left, plains and players right) or
 *                              "narrow" (420 wide, stacked, larger type and hit areas: phones);
 *                              default: "narrow" when the container is under 640 px wide
 *         buttons              false: no buttons for the offering choices and the exchange
 *                              (the page shows them itself, e.g. in a bar on a phone)
 *         focus                true: focus the first legal target once drawn (keyboard play;
 *                              the offering choices are drawn best first)
 *         confirm              true: a mouse click on a target selects it and says what it
 *                              does; a second click plays it (as a tap always does)
 *       Without onAction the board is a picture only (the replay, or while opponents think).
 *   MedurisBoard.applyPatch(view, patch)  applies a view_patch ({"a.b.3": value}) in place.
 *   MedurisBoard.expand(base, patches)    [base, base+patch1, ...]: the views of a replay.
 *   MedurisBoard.offerLabel(entry)        an offering's button text: its effect in VP.
 *   MedurisBoard.byValue(entries)         offering entries, the most VP first.
 *   MedurisBoard.askWords(entry, again)   what a move that asks first says (its exchange).
 *
 * Clickable: a field (build), a plain (place a worker), a worker (move it), a supply (take),
 * your own material (return), an offering choice; several actions on one target open a menu.
 * Every legal target has class "legal", data-target (see view.py), tabindex 0, role "button"
 * and its action's words as aria-label and <title>; Enter or Space plays it (or opens its menu,
 * whose items take Enter/Space, arrows and Escape), arrow keys move between targets. A touch
 * tap selects a target and shows its words; a second tap plays it (a click too with
 * opts.confirm). A building or offering the engine would pay for with exchanges (R15, the
 * legal entry's "exchanges") always asks first, by any means, and says which. In the narrow layout each
 * target holds an invisible hit area (class "hit") that is its alone and takes a square of
 * 36 units (32 px on a 390 px wide phone): the ring is then a stadium (two half circles joined
 * by straight sides) long enough to give every field SPACING units of it, and a field's hit
 * area is its cell of the ring, between the boundaries with its two neighbours (nothing else
 * in a field takes a tap). Materials and die
 * faces carry their initials (Wd, Wl, Cu, St), buildings, workers and rune stones their
 * owner's seat number: nothing is told by colour alone.
 */
(function (global) {
  "use strict";
  // the SVG namespace, as the HTML parser knows it (the page holds no addresses at all)
  const NS = (() => {
    const probe = document.createElement("div");
    probe.innerHTML = "<svg></svg>";
    return probe.firstChild.namespaceURI;
  })();
  const SEAT = ["#d62728", "#1f77b4", "#e6be14", "#2ca02c"];
  const SEAT_INK = ["#ffffff", "#ffffff", "#1e1e1e", "#ffffff"];
  const MAT = ["#855e34", "#eee8d5", "#cd7832", "#969696"];
  const MAT_INK = ["#ffffff", "#1e1e1e", "#1e1e1e", "#1e1e1e"];
  const MAT_INITIAL = ["Wd", "Wl", "Cu", "St"];
  const INK = "#1e1e1e", BG = "#f6f1e4", CHIP = "#6a1b9a", LEGAL = "#0d7a32", MARK = "#c2410c";
  const CHIP_LABEL = ["", "+2", "F", "D"];
  const LAYOUTS = {
    wide: {W: 1060, H: 664, CX: 290, CY: 345, RING: 232, PX: 575, PDY: 0, HIT: 0, BTN: 26,
           TY: 456, font: {tiny: 13, small: 13, mid: 15, big: 17}, status: true},
    // (CY and PDY follow from the ring's length: ringPath)
    narrow: {W: 420, CX: 210, TOP: 64, RING: 150, SPACING: 44, INNER: 22, OUTER: 36, PX: 6,
             HIT: 40, LV: 38, BTN: 38, TY: 0, font: {tiny: 13, small: 13, mid: 15, big: 17},
             status: false},
  };
  LAYOUTS.wide.LV = 33;  // units between the levels of a worker stack

  // the ring of building fields, from the great river (at the top) clockwise: a circle of
  // radius RING (wide), or (SPACING set: phones) a stadium of half circles of that radius
  // joined by straight sides 2S long, S such that every field gets SPACING units of the ring
  function ringPath(L, n) {
    const R = L.RING;
    const S = L.SPACING ? Math.max(0, (n * L.SPACING - 2 * Math.PI * R) / 4) : 0;
    const P = 2 * Math.PI * R + 4 * S, q = Math.PI * R / 2, CX = L.CX, CY = L.CY;
    // the point `off` units outwards from the ring at `t` units along it: [x, y]
    function at(t, off) {
      t = ((t % P) + P) % P;
      if (t >= q && t < q + 2 * S) return [CX + R + off, CY - S + (t - q)];
      if (t >= 3 * q + 2 * S && t < 3 * q + 4 * S) return [CX - R - off, CY + S - (t - 3 * q - 2 * S)];
      const upper = t < q || t >= 3 * q + 4 * S;  // on the upper half circle, else the lower
      const a = -Math.PI / 2 + (t - (upper ? (t < q ? 0 : 4 * S) : 2 * S)) / R;
      return [CX + (R + off) * Math.cos(a), CY + (upper ? -S : S) + (R + off) * Math.sin(a)];
    }
    return {S: S, P: P, d: P / n, at: at, field: f => (f + 0.5) * P / n};
  }

  function style(L) {
    const f = L.font;
    return "text{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;fill:" + INK + "}" +
      ".small{font-size:" + f.small + "px}.tiny{font-size:" + f.tiny + "px;fill:#555}" +
      ".big{font-size:" + f.big + "px;font-weight:600}.mid{font-size:" + f.mid + "px}" +
      ".legal{cursor:pointer;outline:none}.hl{fill:none;stroke:" + LEGAL + ";stroke-width:3;" +
      "stroke-dasharray:5 3;pointer-events:none}.legal:hover .hl,.selected .hl{stroke-dasharray:none;" +
      "stroke-width:4}.legal:focus-visible .hl{stroke:#000;stroke-width:5;" +
      "stroke-dasharray:none}.btn rect.face{fill:#fff;stroke:" + LEGAL + ";stroke-width:2}" +
      ".btn:hover rect.face{fill:#e3f4e8}.btn:focus-visible rect.face{stroke:#000;stroke-width:4}" +
      ".menu rect.item{fill:#fff;stroke:#bbb}.menu g:hover rect.item{fill:#e3f4e8}" +
      ".menu-item{outline:none}.menu-item:focus-visible rect.item{stroke:#000;stroke-width:3}" +
      ".hit{fill:#fff;fill-opacity:0}.deco{pointer-events:none}" +
      // phones: a field takes a tap in its hit area (its cell of the ring) only
      (L.HIT ? ".field>:not(.hit){pointer-events:none}" : "") +
      ".mark{fill:none;stroke:" + MARK + ";stroke-width:3;" +
      "pointer-events:none}.badge{font-weight:700;fill:" + MARK + "}" +
      "[data-target]{cursor:pointer}.picture [data-target]{cursor:default}" +
      ".initials{font-weight:600;pointer-events:none}" +
      // monospace: its "l" has a tail, so "Wl" (wool) never reads as "WI"
      ".initials,.die-face,.mat text{font-family:'DejaVu Sans Mono',Menlo,Consolas,monospace}" +
      ".board{-webkit-tap-highlight-color:transparent}.board:focus{outline:none}";
  }

  function el(tag, attrs, parent, text) {
    const node = document.createElementNS(NS, tag);
    for (const k in attrs) if (attrs[k] !== undefined && attrs[k] !== null) node.setAttribute(k, attrs[k]);
    if (text !== undefined) node.textContent = text;
    if (parent) parent.appendChild(node);
    return node;
  }
  function title(node, text) { el("title", {}, node, text); }
  // the text a target shows, as the start of its name ("Wd Cu: "; "" when it shows none or
  // its words begin with it)
  function shown(node) {
    const t = node.textContent.replace(/\s+/g, " ").trim();
    return t ? t + ": " : "";
  }
  function seatName(view, s) {
    const label = view.seats[s].label;
    // (the web game's own seat is "you" to the end, when the screens are lifted: view.you)
    if (view.viewer === s || view.you === s) return "you (seat " + s + ")";
    return label === "seat " + s ? "seat " + s : "seat " + s + " " + label;
  }
  // the offering choices best first (by the VP their words say): the first focused, the one a
  // reflex plays, is never "nothing (-1 VP)" when more is on offer
  function offerValue(entry) {
    const m = /\(([+-]?\d+) VP/.exec(entry.words);
    return m ? Number(m[1]) : 0;
  }
  function byValue(entries) {
    return entries.slice().sort((a, b) => offerValue(b) - offerValue(a) || a.id - b.id);
  }
  // what a move that asks first says: its words, with the exchange it pays by (R15) first,
  // and how to play it ("tap", "click", "press Enter")
  function askWords(entry, again) {
    return (entry.exchanges ? "Careful: the engine pays for this by exchanging " +
            entry.exchanges.join(" and ") + " first (R15). " : "") + entry.words + " (" + again +
           " again to play)";
  }
  function offerLabel(entry) {
    // "offer both wool and stone (+3 VP: the settlement's size, R19)" -> "both wool and stone
    // (+3 VP)"; one paid by an exchange says so ("copper only (+1 VP; exchange)": which one,
    // its words say, and the first press)
    const label = entry.words.replace(/^offer /, "").replace(/, first exchanging .*$/, "")
      .replace(/(:[^)]*|, R\d+)\)$/, ")");
    return entry.exchanges ? label.replace(/\)$/, "; exchange)") : label;
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

  // the drawing context of one render: the view, the layout, the targets
  function Ctx(view, opts, L) {
    this.view = view; this.opts = opts; this.L = L;
    this.interactive = typeof opts.onAction === "function";
    this.mats = view.names.materials;
    this.marks = new Set(opts.marks || []);
    this.byTarget = new Map();
    for (const a of view.legal || []) {
      if (!this.byTarget.has(a.target)) this.byTarget.set(a.target, []);
      this.byTarget.get(a.target).push(a);
    }
  }
  // marks a target element: legal (highlight, words, focusable) or not; hl() draws its ring,
  // mark() the sign that an opponent touched it
  Ctx.prototype.target = function (node, key, describe, hl, mark) {
    node.setAttribute("data-target", key);
    const acts = this.byTarget.get(key);
    if (acts && this.interactive) {
      const words = acts.map(a => a.words);
      node.classList.add("legal");
      node.setAttribute("data-words", words.join("\n"));
      node.setAttribute("tabindex", "0");
      node.setAttribute("role", "button");
      node.setAttribute("aria-label", shown(node) + (acts.length > 1 ?
        (describe ? describe + ": " : "") + words.join(", or ") + " (opens a menu)" : words[0]));
      title(node, words.join(", or "));  // (the tooltip, within the accessible name)
      if (hl) hl();
    } else if (describe) {
      title(node, describe);
    }
    if (mark && this.marks.has(key)) mark();
    return node;
  };

  function drawRing(svg, c) {
    const v = c.view, L = c.L, b = v.board, n = b.fields, mats = c.mats;
    const ring = c.ring, top = ring.at(0, 0);
    const r = Math.min(22, Math.floor(ring.d / 2) - 3);  // a gap between neighbouring discs
    el("line", {x1: top[0], y1: top[1] - 42, x2: top[0], y2: top[1] + 42, stroke: "#4682c8",
                "stroke-width": 6, class: "deco"}, svg);
    el("text", {x: top[0], y: L.status ? top[1] - 48 : top[1] + 60, "text-anchor": "middle",
                class: "tiny deco"}, svg, "great river");
    for (let f = 0; f < n; f++) {
      const t = ring.field(f), [x, y] = ring.at(t, 0);
      const m = b.materials[f];
      const area = b.area_names[b.areas[f]] || "";
      const letter = String.fromCharCode(97 + b.areas[f]);
      const occ = v.occupant[f], owner = v.owner[f], chip = v.chip[f];
      let desc = "field " + f + " (" + mats[m[0]] + "/" + mats[m[1]] + "), rune area " +
                 letter + " (" + area + ")";
      if (occ) desc += ": " + (occ === 1 ? "hut" : "temple") + " of " + seatName(v, owner);
      else if (chip) desc += ": bonus chip " + v.names.chips[chip];
      const g = el("g", {class: "field", "data-field": f}, svg);
      if (L.HIT) el("polygon", {points: fieldCell(ring, t, L), class: "hit"}, g);
      el("path", {d: "M" + x + " " + (y - r) + "A" + r + " " + r + " 0 0 0 " + x + " " + (y + r) + "Z",
                  fill: MAT[m[0]], stroke: INK}, g);
      el("path", {d: "M" + x + " " + (y - r) + "A" + r + " " + r + " 0 0 1 " + x + " " + (y + r) + "Z",
                  fill: MAT[m[1]], stroke: INK}, g);
      if (chip) el("circle", {cx: x, cy: y, r: r + 3, fill: "none", stroke: CHIP, "stroke-width": 3}, g);
      drawField(g, x, y, r, c, m, occ, owner, chip);
      if (v.druid.field === f) {  // low on the right: clear of the initials and the owner
        el("circle", {cx: x + r * 0.7, cy: y + r * 0.7, r: Math.max(5, r * 0.32), fill: INK,
                      class: "druid"}, g);
      }
      c.target(g, "field:" + f, desc, () => el("circle", {cx: x, cy: y, r: r + 5, class: "hl"}, g),
               () => { el("circle", {cx: x, cy: y, r: r + 8, class: "mark"}, g); });
      // the field's number outside the ring, its rune area inside (phones: in its hit area,
      // taking no tap of their own)
      const deco = L.HIT ? " deco" : "";
      const [ox, oy] = ring.at(t, r + (L.HIT ? 12 : 13));
      el("text", {x: ox, y: oy + 4, "text-anchor": "middle", class: "small" + deco}, svg, String(f));
      const [ix, iy] = ring.at(t, -r - 11);
      el("text", {x: ix, y: iy + 4, "text-anchor": "middle", class: "tiny" + deco}, svg, letter);
    }
    drawCentre(svg, c);
  }

  // a field's cell of the ring (its hit area on phones): from the boundary with the field
  // before to the one with the field after, INNER units inwards to OUTER outwards
  function fieldCell(ring, t, L) {
    const out = [], k = 6;
    for (let i = 0; i <= k; i++) out.push(ring.at(t + ring.d * (i / k - 0.5), L.OUTER));
    for (let i = k; i >= 0; i--) out.push(ring.at(t + ring.d * (i / k - 0.5), -L.INNER));
    return out.map(p => p[0].toFixed(1) + "," + p[1].toFixed(1)).join(" ");
  }

  // what stands on a field: its two materials by their initials (left half, right half), never
  // by colour alone; in the middle of an empty field, in its upper part above a building (its
  // owner's number on it) or a bonus chip (its letter in white on a purple disc). The letters
  // keep their height (13 units; on phones squeezed to the half's width).
  function drawField(g, x, y, r, c, m, occ, owner, chip) {
    const L = c.L, busy = occ === 1 || occ === 2 || chip > 0;
    const fs = L.font.tiny;
    const base = busy ? y - r * 0.55 + fs * 0.73 : y + fs * 0.35;  // the initials' baseline
    // (one text, a space between the two: its words read "Wl Cu", as the target's name
    // begins; the space, 0.6 em of the monospace font, ends the left one's chunk: moved by
    // half of it to stay centred)
    const pair = el("text", {y: base, "text-anchor": "middle", class: "initials",
                             style: "font-size:" + fs + "px"}, g);
    for (const [k, dx] of [[0, -r * 0.48 + 0.3 * fs], [1, r * 0.48]]) {
      if (k) pair.appendChild(document.createTextNode(" "));
      el("tspan", {x: x + dx, class: "mat-initial", textLength: L.HIT ? r * 0.88 : null,
                   lengthAdjust: L.HIT ? "spacingAndGlyphs" : null, "data-material": m[k],
                   style: "fill:" + MAT_INK[m[k]]}, pair, MAT_INITIAL[m[k]]);
    }
    pair.appendChild(document.createTextNode(" "));  // (a trailing space: not drawn)
    if (!busy) return;
    const s = r * (L.HIT ? 0.39 : 0.44), cy = base + 1.5 + s;  // the piece, below the letters
    if (occ === 1 || occ === 2) {
      if (occ === 1) el("rect", {x: x - s, y: cy - s, width: 2 * s, height: 2 * s, fill: SEAT[owner],
                                 stroke: INK, class: "hut", "data-owner": owner}, g);
      else el("polygon", {points: [x, cy - s * 1.3, x - s * 1.7, cy + s, x + s * 1.7, cy + s].join(" "),
                          fill: SEAT[owner], stroke: INK, class: "temple", "data-owner": owner}, g);
      el("text", {x: x, y: occ === 1 ? cy + 0.36 * L.font.small : cy + s - 1, "text-anchor": "middle",
                  class: "small owner", style: "fill:" + SEAT_INK[owner] + ";font-weight:700"},
         g, String(owner));
    } else {
      el("circle", {cx: x, cy: cy + 1, r: s * 1.3, fill: CHIP, stroke: "#fff", class: "chip"}, g);
      el("text", {x: x, y: cy + 1 + 0.36 * L.font.mid, "text-anchor": "middle",
                  class: "mid chip-label", style: "fill:#fff;font-weight:700"}, g, CHIP_LABEL[chip]);
    }
  }

  // the druid's stone fields (R5) and the rune stones (R12) in the centre of the ring
  function drawCentre(svg, c) {
    const v = c.view, L = c.L, b = v.board, {CX, CY} = L;
    for (let k = 0; k < 3; k++) {
      const x = CX - 44 + 44 * k, y = CY - 40;
      el("rect", {x: x - 15, y: y - 15, width: 30, height: 30, fill: "#c8c8c8", stroke: INK}, svg);
      if (v.druid.field < 0 && v.druid.stone === k + 1)
        el("circle", {cx: x, cy: y, r: 9, fill: INK, class: "druid"}, svg);
    }
    if (v.druid.field < 0 && v.druid.stone === 0)
      el("circle", {cx: CX, cy: CY - 78, r: 9, fill: INK, class: "druid"}, svg);
    el("text", {x: CX, y: CY - 2, "text-anchor": "middle", class: "tiny"}, svg, "druid stones");
    el("text", {x: CX, y: CY + 30, "text-anchor": "middle", class: "tiny"}, svg,
       "rune stones (holder's seat below)");
    const na = b.area_names.length, step = L.HIT ? 24 : 26;
    for (let k = 0; k < na; k++) {
      const x = CX - (na - 1) * step / 2 + step * k, y = CY + 50;
      const holder = v.runes[k];
      const g = el("g", {class: "rune"}, svg);
      el("circle", {cx: x, cy: y, r: 11, fill: holder >= 0 ? SEAT[holder] : "#fff", stroke: INK}, g);
      el("text", {x: x, y: y + 4, "text-anchor": "middle", class: "small",
                  style: holder >= 0 ? "fill:" + SEAT_INK[holder] : null}, g,
         String.fromCharCode(97 + k));
      el("text", {x: x, y: y + 27, "text-anchor": "middle", class: "tiny"}, g,
         holder >= 0 ? String(holder) : "–");
      title(g, "rune stone of area " + String.fromCharCode(97 + k) + " (" + b.area_names[k] + "): " +
            (holder >= 0 ? seatName(v, holder) : "not taken"));
    }
  }

  // the high plains: worker stacks (bottom to top) and supply
  function drawPlains(svg, c) {
    const v = c.view, L = c.L, mats = c.mats, PX = L.PX, PW = 96;
    const pg = el("g", {class: "plains", transform: "translate(0," + L.PDY + ")"}, svg);
    el("text", {x: PX, y: 62, class: "small"}, pg, "high plains (workers bottom to top)");
    for (let p = 0; p < 4; p++) {
      const x = PX + p * (PW + 8);
      const g = el("g", {class: "plain", "data-plain": p}, pg);
      el("rect", {x: x, y: 72, width: PW, height: 150, fill: "#fff", "fill-opacity": 0.45,
                  stroke: "#ccc", rx: 6}, g);
      el("rect", {x: x, y: 72, width: PW, height: 24, fill: MAT[p], stroke: INK, rx: 4}, g);
      el("text", {x: x + PW / 2, y: 89, "text-anchor": "middle", class: "mid",
                  style: "fill:" + MAT_INK[p]}, g, mats[p]);
      for (let lv = 0; lv < 3; lv++) {
        el("circle", {cx: x + PW / 2, cy: 196 - L.LV * lv, r: 14, fill: "none", stroke: "#bbb",
                      "stroke-dasharray": "3 3"}, g);
      }
      c.target(g, "plain:" + p, "the " + mats[p] + " plain",
               () => el("rect", {x: x - 3, y: 69, width: PW + 6, height: 156, rx: 8, class: "hl"}, g),
               () => { el("rect", {x: x - 6, y: 66, width: PW + 12, height: 162, rx: 9, class: "mark"}, g);
                       el("text", {x: x + PW - 8, y: 114, class: "mid badge", "text-anchor": "middle"}, g, "!"); });
      for (let lv = 0; lv < 3; lv++) {
        const owner = v.stacks[p][lv];
        if (owner < 0) continue;
        const cy = 196 - L.LV * lv;
        const w = el("g", {class: "worker", "data-owner": owner}, pg);
        // (phones: squares, the levels' touching: each worker's alone)
        if (L.HIT) el("rect", {x: x + PW / 2 - 20, y: cy - L.LV / 2, width: 40, height: L.LV,
                               class: "hit"}, w);
        el("circle", {cx: x + PW / 2, cy: cy, r: 14, fill: SEAT[owner], stroke: INK}, w);
        el("text", {x: x + PW / 2, y: cy + 5, "text-anchor": "middle", class: "small",
                    style: "fill:" + SEAT_INK[owner] + ";font-weight:700"}, w, String(owner));
        c.target(w, "worker:" + p + ":" + lv, "worker of " + seatName(v, owner) + " on the " +
                 mats[p] + " plain, level " + lv,
                 () => el("circle", {cx: x + PW / 2, cy: cy, r: 18, class: "hl"}, w));
      }
      const sg = el("g", {class: "supply"}, pg);
      if (L.HIT) el("rect", {x: x + 4, y: 226, width: PW - 8, height: L.HIT, class: "hit"}, sg);
      el("rect", {x: x + 8, y: 230, width: PW - 16, height: 26, rx: 4, fill: MAT[p], stroke: INK}, sg);
      el("text", {x: x + PW / 2, y: 248, "text-anchor": "middle", class: "small",
                  style: "fill:" + MAT_INK[p]}, sg, "supply " + v.supply[p]);
      c.target(sg, "supply:" + p, v.supply[p] + " " + mats[p] + " in the supply",
               () => el("rect", {x: x + 4, y: 226, width: PW - 8, height: 34, rx: 6, class: "hl"}, sg),
               () => el("rect", {x: x + 1, y: 223, width: PW - 2, height: 40, rx: 8, class: "mark"}, sg));
    }
    return pg;
  }

  // the die, the decision due and the buttons for actions without a place on the board
  function drawDecision(pg, c) {
    const v = c.view, L = c.L, mats = c.mats, PX = L.PX, W = L.W;
    const die = el("g", {class: "die"}, pg);
    el("rect", {x: PX, y: 272, width: 48, height: 48, rx: 8, fill: "#fff", stroke: INK,
                "stroke-width": 2}, die);
    const face = v.die;
    const fi = face === null ? -1 : mats.indexOf(face);
    if (fi >= 0) {
      el("rect", {x: PX + 9, y: 281, width: 30, height: 30, rx: 4, fill: MAT[fi], stroke: INK}, die);
      el("text", {x: PX + 24, y: 301, "text-anchor": "middle", class: "small die-face",
                  style: "fill:" + MAT_INK[fi] + ";font-weight:700"}, die, MAT_INITIAL[fi]);
    } else el("text", {x: PX + 24, y: 303, "text-anchor": "middle", class: "big die-face"}, die,
              face === null ? "–" : face);
    title(die, face === null ? "the die is not rolled yet this turn" : "the die shows " + face + " (R7)");
    el("text", {x: L.HIT ? PX : PX + 24, y: 336, "text-anchor": L.HIT ? "start" : "middle",
                class: "tiny"}, pg, face === null ? "die" : "die: " + face);  // (phones: in sight)
    const d = v.decision, lines = [];
    if (v.terminal) lines.push("game over: " + v.end_reason);
    else if (d) {
      const what = d.kind + (d.kind === "offering" ? " for the hut on field " + d.field : "");
      if (L.HIT) lines.push(seatName(v, d.seat) + ":", what);
      else lines.push(seatName(v, d.seat) + ": " + what);
      if (d.kind === "offering") lines.push("a settlement of " + d.size);
    } else lines.push(v.phase);
    if (v.finale) lines.push("finale: " + v.finale.turns_left + " turn(s) left");
    if (v.final_circuit) lines.push("the druid's final circuit");
    lines.forEach((t, i) => el("text", {x: PX + 60, y: 288 + 17 * i, class: i ? "small" : "mid",
                                        id: i ? null : "board-decision"}, pg, t));
    if (!c.interactive || c.opts.buttons === false) return 0;
    // offering choices (R19, R20) say their effect; exchange (R15) opens a menu
    const buttons = byValue((v.legal || []).filter(a => a.kind === "offer"))
      .map(a => [a.target, offerLabel(a), "btn offer"]);
    if ((v.legal || []).some(a => a.kind === "exchange")) buttons.push(["exchange", "exchange…", "btn exchange"]);
    let bx = L.HIT ? PX : PX + 60, by = L.HIT ? 288 + 17 * lines.length + 4 : 346;
    const x0 = bx, cw = L.font.small * 0.6;
    for (const [key, label, cls] of buttons) {
      const w = 18 + cw * label.length;
      if (bx + w > W - 4 && bx > x0) { bx = x0; by += L.BTN + 6; }
      const g = el("g", {class: cls}, pg);
      el("rect", {x: bx, y: by, width: w, height: L.BTN, rx: 5, class: "face"}, g);
      el("text", {x: bx + w / 2, y: by + L.BTN / 2 + 4, "text-anchor": "middle", class: "small"}, g, label);
      c.target(g, key, null, null);
      bx += w + 6;
    }
    return buttons.length ? by + L.BTN : 0;
  }

  // the players: VP, materials (behind screens), pieces left, rune stones
  function drawSeats(svg, c, TY) {
    const v = c.view, L = c.L, mats = c.mats, narrow = !!L.HIT;
    const TX = narrow ? 6 : L.PX - 4, rowH = narrow ? 70 : 34;
    const matX = m => narrow ? TX + 48 * m : TX + 185 + 42 * m;
    const cols = narrow ? [["huts", 226], ["temples", 296], ["runes", 368]]
                        : [["huts", 360], ["temples", 411], ["runes", 467]];
    if (!narrow) {
      // (the materials by their initials, as everywhere on the board: their names in full
      // crowd at a legible size; the legend says them)
      for (const [label, dx] of [["seat", 26], ["VP", 160]].concat(MAT_INITIAL.map((m, k) => [m, 201 + 42 * k])))
        el("text", {x: TX + dx, y: TY, class: "small", "text-anchor": dx >= 160 ? "middle" : "start"}, svg, label);
      el("text", {x: TX + 386, y: TY - 16, class: "tiny", "text-anchor": "middle"}, svg, "left to build");
    }
    for (const [label, dx] of cols)
      el("text", {x: TX + dx, y: TY + (narrow ? 6 : 0), class: "small", "text-anchor": "middle"}, svg, label);
    if (narrow) el("text", {x: TX, y: TY + 6, class: "small"}, svg, "materials (left to build:)");
    for (let s = 0; s < v.players; s++) {
      const seat = v.seats[s], y = TY + 14 + rowH * s;
      const row = el("g", {class: "seat", "data-seat": s}, svg);
      if (v.to_move === s)
        el("rect", {x: TX - 5, y: y - 3, width: narrow ? L.W - 2 * TX + 10 : 494, height: rowH - 4,
                    rx: 5, fill: "#fff", stroke: SEAT[s], "stroke-width": 2}, row);
      el("rect", {x: TX, y: y + 1, width: 22, height: 22, fill: SEAT[s], stroke: INK}, row);
      const won = v.terminal && v.winners.indexOf(s) >= 0 ? " ★" : "";
      let name = seatName(v, s);
      if (name.length > (narrow ? 30 : 18)) name = name.slice(0, narrow ? 29 : 17) + "…";  // (clear of the VP)
      el("text", {x: TX + 28, y: y + 17, class: "small"}, row, name + won);
      el("text", {x: narrow ? L.W - 10 : TX + 160, y: y + 17, class: "mid",
                  "text-anchor": narrow ? "end" : "middle", style: "font-weight:600"}, row,
         narrow ? seat.vp + " VP" : String(seat.vp));
      el("text", {x: TX + 11, y: y + 17, "text-anchor": "middle", class: "small",
                  style: "fill:" + SEAT_INK[s] + ";font-weight:700"}, row, String(s));
      const y2 = narrow ? y + 28 : y;
      drawMaterials(row, c, s, seat, matX, y2);
      cols.forEach(([, dx], k) => el("text", {x: TX + dx, y: y2 + 17, class: "mid", "text-anchor": "middle"},
        row, String([seat.huts_left, seat.temples_left, seat.runes][k])));
    }
    return TY + 14 + rowH * v.players;
  }

  function drawMaterials(row, c, s, seat, matX, y) {
    const v = c.view, L = c.L, mats = c.mats, cw = L.HIT ? 44 : 32;
    if (!seat.materials) {
      const screen = el("g", {class: "screen"}, row);
      const x0 = matX(0), w = matX(3) + cw - x0;
      el("rect", {x: x0, y: y + 1, width: w, height: 22, rx: 4, fill: "#ddd6c4"}, screen);
      el("text", {x: x0 + w / 2, y: y + 16, class: "small", "text-anchor": "middle"}, screen,
         seat.total + " behind the screen");
      title(screen, "behind the screen: you see how many, not which");
      return;
    }
    for (let m = 0; m < 4; m++) {
      const cell = el("g", {class: "mat"}, row), x = matX(m);
      if (L.HIT && s === v.viewer) el("rect", {x: x - 2, y: y - 7, width: cw + 4, height: L.HIT, class: "hit"}, cell);
      el("rect", {x: x, y: y + 1, width: cw, height: 22, rx: 4, fill: MAT[m], stroke: INK,
                  "stroke-opacity": 0.4}, cell);
      el("text", {x: x + cw / 2, y: y + 17, class: "small", "text-anchor": "middle",
                  style: "fill:" + MAT_INK[m]}, cell, (L.HIT ? MAT_INITIAL[m] + " " : "") + seat.materials[m]);
      if (s === v.viewer)
        c.target(cell, "mat:" + m, "your " + mats[m] + ": " + seat.materials[m],
                 () => el("rect", {x: x - 3, y: y - 2, width: cw + 6, height: 28, rx: 6, class: "hl"}, cell));
      else title(cell, seat.materials[m] + " " + mats[m]);
    }
  }

  // what the letters on the board stand for: materials, rune areas and the bonus chips (R4)
  function drawLegend(svg, c, y) {
    const chips = (c.view.names.chips || []).map((n, k) => k ? CHIP_LABEL[k] + " " + n : "")
      .filter(Boolean).join(", ");
    const parts = [c.mats.map((m, k) => MAT_INITIAL[k] + " " + m).join(" · ") + " · a–i: rune areas",
                   "bonus chips (R4): " + chips];
    if (c.L.HIT) parts.forEach((t, i) => el("text", {x: c.L.PX, y: y + 17 * i, class: "tiny legend"}, svg, t));
    else el("text", {x: 16, y: y, class: "tiny legend"}, svg, parts.join(" · "));
    return c.L.HIT ? y + 17 * (parts.length - 1) : y;
  }

  function render(container, view, opts) {
    opts = opts || {};
    const name = LAYOUTS[opts.layout] ? opts.layout :
      ((container.clientWidth || 1060) < 640 ? "narrow" : "wide");
    const L = Object.assign({}, LAYOUTS[name]);
    if (L.SPACING) {  // phones: the ring's length sets where its centre and the plains are
      const S = ringPath(Object.assign({}, L, {CX: 0, CY: 0}), view.board.fields).S;
      L.CY = L.TOP + L.RING + S;
      L.PDY = L.CY + S + L.RING;
    }
    const c = new Ctx(view, opts, L);
    c.ring = ringPath(L, view.board.fields);
    // (tabindex -1: Chromium makes an svg a Tab stop of its own, framed when clicked; its
    // targets are the stops)
    const svg = el("svg", {class: c.interactive ? "board" : "board picture", role: "group",
                           "aria-label": "Meduris board: " + view.status, tabindex: "-1"});
    svg.dataset.turn = view.turn;
    svg.dataset.toMove = view.to_move;
    svg.dataset.legal = (view.legal || []).length;
    svg.dataset.layout = name;
    el("style", {}, svg, style(L));
    const bg = el("rect", {x: 0, y: 0, width: L.W, height: L.H || 0, fill: BG}, svg);
    if (L.status) el("text", {x: 16, y: 28, class: "big", id: "board-status"}, svg, view.status);
    drawRing(svg, c);
    const pg = drawPlains(svg, c);
    const buttonsEnd = drawDecision(pg, c);
    let H = L.H;
    if (L.HIT) {
      const top = L.PDY + Math.max(buttonsEnd, 288 + 17 * 3) + 30;
      const end = drawSeats(svg, c, top);
      H = drawLegend(svg, c, end + 14) + 12;
    } else {
      drawSeats(svg, c, L.TY);
      drawLegend(svg, c, L.H - 12);
      if (view.board.reconstructed)
        el("text", {x: L.PX, y: L.H - 34, class: "tiny"}, svg, "board: " + view.board.name);
    }
    svg.setAttribute("viewBox", "0 0 " + L.W + " " + H);
    bg.setAttribute("height", H);
    if (c.interactive) wire(svg, c);
    container.replaceChildren(svg);
    if (c.interactive && opts.focus) {
      const first = svg.querySelector(".legal[tabindex]");
      if (first) first.focus();
    }
    return svg;
  }

  // --- clicks, taps and keys: act, open a menu, or say why not ---------------------------------
  // the kind of pointer last pressed anywhere on the page (once per page, not per board): on a
  // touch screen a tap shows a target's words itself, and the mouse events the browser makes
  // up (also when the page scrolls under the last tap) must not show another's
  const POINTER = {type: "mouse"};
  document.addEventListener("pointerdown", ev => { POINTER.type = ev.pointerType || "mouse"; }, true);
  document.addEventListener("keydown", () => { POINTER.type = "keyboard"; }, true);
  function wire(svg, c) {
    const v = c.view, opts = c.opts, L = c.L;
    let menu = null, menuOwner = null, selected = null;
    const words = node => node.getAttribute("data-words") || "";
    const hover = text => { if (typeof opts.onHover === "function") opts.onHover(text); };
    function closeMenu(refocus) {
      if (!menu) return;
      menu.remove(); menu = null;
      if (refocus && menuOwner) menuOwner.focus();
    }
    function bbox(node) {  // the node's box in the svg's coordinates (groups may be moved)
      const b = node.getBBox(), m = svg.getScreenCTM().inverse().multiply(node.getScreenCTM());
      return {x: b.x * m.a + m.e, y: b.y * m.d + m.f, width: b.width * m.a, height: b.height * m.d};
    }
    function openMenu(acts, node, byKey) {
      closeMenu(false);
      menuOwner = node;
      const box = bbox(node), W = L.W, H = Number(svg.getAttribute("viewBox").split(" ")[3]);
      const rowH = L.HIT ? 40 : 22, cw = L.font.small * 0.58;
      const width = Math.min(W - 8, Math.max(...acts.map(a => 20 + cw * a.words.length)));
      const height = rowH * acts.length + 8;
      const x = Math.max(4, Math.min(W - width - 4, box.x + box.width / 2 - width / 2));
      const y = box.y + box.height + height + 4 < H ? box.y + box.height + 4 : Math.max(4, box.y - height - 4);
      menu = el("g", {class: "menu", role: "menu"}, svg);
      el("rect", {x: x, y: y, width: width, height: height, rx: 6, fill: "#fafafa", stroke: INK,
                  filter: "drop-shadow(0 2px 3px rgba(0,0,0,.3))"}, menu);
      acts.forEach((a, i) => {
        const g = el("g", {"data-action": a.id, class: "menu-item", role: "menuitem", tabindex: "0",
                           "aria-label": a.words}, menu);
        el("rect", {x: x + 4, y: y + 4 + rowH * i, width: width - 8, height: rowH - 2, rx: 3, class: "item"}, g);
        el("text", {x: x + 10, y: y + rowH / 2 + 8 + rowH * i, class: "small"}, g, a.words);
      });
      if (byKey) menu.querySelector(".menu-item").focus();
    }
    function play(id) {
      const entry = (v.legal || []).find(a => a.id === id);
      closeMenu(false);
      opts.onAction(id, entry);
    }
    function refuse(node, key) {
      if (typeof opts.onRefuse !== "function") return;
      const d = v.decision;
      let why;
      if (v.terminal) why = "the game is over";
      else if (v.viewer === null || v.to_move !== v.viewer) why = "it is not your turn";
      else why = "it is not a legal action now (" + (d ? d.kind : v.phase) + " is due)";
      const what = node.querySelector("title");
      opts.onRefuse((what ? what.textContent : key) + ": " + why);
    }
    // a move that asks before it is played (one action on its target): on a touch screen, by
    // mouse when opts.confirm is set, and always when the engine would pay for it with
    // exchanges (R15); the first press selects it and says what it does, a second plays it
    let asking = "";
    function asks(node) {
      const list = c.byTarget.get(node.getAttribute("data-target")) || [];
      return node.classList.contains("legal") && node !== selected && list.length === 1 &&
        (POINTER.type === "touch" || (opts.confirm && POINTER.type === "mouse") ||
         !!list[0].exchanges);
    }
    function ask(node) {
      if (selected) selected.classList.remove("selected");
      selected = node;
      node.classList.add("selected");
      const a = c.byTarget.get(node.getAttribute("data-target"))[0];
      asking = askWords(a, {touch: "tap", keyboard: "press Enter"}[POINTER.type] || "click");
      hover(asking);
    }
    // a target chosen (click, tap, Enter or Space): play it, open its menu, or refuse it
    function choose(node, byKey) {
      const key = node.getAttribute("data-target");
      const acts = c.byTarget.get(key) || [];
      if (acts.length === 1) play(acts[0].id);
      else if (acts.length > 1) openMenu(acts, node, byKey);
      else refuse(node, key);
    }
    svg.addEventListener("click", ev => {
      const item = ev.target.closest("[data-action]");
      if (item) { play(Number(item.getAttribute("data-action"))); return; }
      const node = ev.target.closest("[data-target]");
      closeMenu(false);
      if (!node) return;
      if (asks(node)) ask(node);
      else choose(node, false);
    });
    svg.addEventListener("keydown", ev => {
      const item = ev.target.closest ? ev.target.closest("[data-action]") : null;
      const node = ev.target.closest ? ev.target.closest("[data-target]") : null;
      if (ev.key === "Enter" || ev.key === " ") {
        ev.preventDefault();
        if (item) play(Number(item.getAttribute("data-action")));
        else if (node && asks(node)) ask(node);
        else if (node) choose(node, true);
      } else if (ev.key === "Escape") {
        closeMenu(true);
      } else if (ev.key.startsWith("Arrow")) {
        const list = Array.from(svg.querySelectorAll(menu ? ".menu-item" : ".legal[tabindex]"));
        if (!list.length) return;
        ev.preventDefault();
        const at = list.indexOf(item || node);
        const delta = ev.key === "ArrowRight" || ev.key === "ArrowDown" ? 1 : -1;
        list[(at + delta + list.length) % list.length].focus();
      }
    });
    svg.addEventListener("focusin", ev => {
      // (a tap focuses its target too: its click says what it does, a moment later; words
      // shown at once would move the page under the finger)
      if (POINTER.type === "touch") return;
      const node = ev.target.closest("[data-words]");
      const item = ev.target.closest("[data-action]");
      if (item) hover(item.getAttribute("aria-label"));
      else if (node) hover(words(node));
    });
    if (typeof opts.onHover === "function") {
      svg.addEventListener("mouseover", ev => {
        if (POINTER.type === "touch") return;
        const node = ev.target.closest("[data-words], [data-action]");
        if (!node) { hover(""); return; }
        if (node === selected && asking) { hover(asking); return; }
        if (node.hasAttribute("data-action")) {
          const entry = (v.legal || []).find(a => a.id === Number(node.getAttribute("data-action")));
          hover(entry ? entry.words : "");
        } else hover(words(node));
      });
      svg.addEventListener("mouseleave", () => { if (POINTER.type !== "touch") hover(""); });
    }
  }

  global.MedurisBoard = {render: render, applyPatch: applyPatch, expand: expand,
                         offerLabel: offerLabel, byValue: byValue, askWords: askWords,
                         SEAT_COLOURS: SEAT,
                         MATERIAL_COLOURS: MAT};
})(window);
