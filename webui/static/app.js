"use strict";
const CSRF = document.querySelector('meta[name="csrf-token"]').content;
const NEEDS_PIN = document.querySelector('meta[name="needs-pin"]').content === "yes";
// a recording opened for review (augur review): what would change the game is hidden (class "write")
const REVIEW_ONLY = document.querySelector('meta[name="review-only"]').content === "yes";
document.body.classList.toggle("review-only", REVIEW_ONLY);
document.getElementById("review-only").hidden = !REVIEW_ONLY;
if (REVIEW_ONLY) document.querySelector('#correct button[value="cancel"]').textContent = "Close";
// A dialog's Cancel closes it without being its form's default button: Enter in a field (the
// tablet keyboard's Go, after typing a count or a PIN) then does what the dialog is for, where it
// used to cancel it (the first submit button is the one Enter presses)
document.querySelectorAll('dialog button[value="cancel"]').forEach(b => {
  b.type = "button";
  b.addEventListener("click", () => b.closest("dialog").close("cancel"));
});
const COLOURS = { red: "#c0392b", blue: "#2e6bd3", yellow: "#e6c229", green: "#3a9a4a", black: "#333", purple: "#7d3c98" };
const DICE_FACES = ["⚀", "⚁", "⚂", "⚃", "⚄", "⚅"];
let geo = null, view = null, pin = null, selected = [];
let reviewed = null;    // the game the review shows: null for the game being played
const $ = (s) => document.querySelector(s);
const el = (tag, attrs = {}, text = "") => { const e = document.createElement(tag); for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v); if (text) e.textContent = text; return e; };
const svgEl = (tag, attrs = {}) => { const e = document.createElementNS("http://www.w3.org/2000/svg", tag); for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v); return e; };

// a request the player was already answered on (an alert said why it was refused) or cancelled
// (no join PIN given): its callers stop, and the console is not told of an uncaught error
class Answered extends Error {}
window.addEventListener("unhandledrejection", (ev) => { if (ev.reason instanceof Answered) ev.preventDefault(); });

// A table served on the LAN (augur run --lan) takes changes only with its join PIN: asked once in
// a dialog, kept for this tab (a reload does not ask again), asked again when refused
const PIN_KEY = "augur-join-pin";
function askPin(refused) {
  return new Promise((resolve) => {
    const dlg = $("#pin-dialog");
    $("#pin-wrong").hidden = !refused; $("#pin").value = "";
    dlg.returnValue = "";
    dlg.onclose = () => resolve(dlg.returnValue === "join" ? $("#pin").value.trim() : "");
    dlg.showModal();
  });
}
async function send(url, data) {
  const headers = { "Content-Type": "application/json", "X-CSRF-Token": CSRF };
  for (let tries = 0; ; tries++) {
    if (NEEDS_PIN) {
      pin = pin || sessionStorage.getItem(PIN_KEY) || await askPin(tries > 0);
      if (!pin) throw new Answered("no join PIN given");   // cancelled: nothing is sent
      headers["X-Join-Token"] = pin;
    }
    const r = await fetch(url, { method: "POST", headers, body: JSON.stringify(data) });
    const out = await r.json();
    if (NEEDS_PIN && r.status === 403 && /join PIN/.test(out.error || "")) {
      pin = null; sessionStorage.removeItem(PIN_KEY);
      if (tries < 2) continue;                             // asked again, saying it was refused
    }
    if (!r.ok) { alert(out.error || "refused"); throw new Answered(out.error); }
    if (NEEDS_PIN) sessionStorage.setItem(PIN_KEY, pin);
    return out;
  }
}
async function post(url, data) { const out = await send(url, data); render(out); return out; }

function drawMap() {
  const svg = $("#map");
  svg.setAttribute("viewBox", `0 0 ${geo.size[0]} ${geo.track_boxes[0][1] - 10}`);
  for (const [rid, rings] of Object.entries(geo.polygons)) {
    const d = rings.map(r => "M" + r.map(p => p.join(",")).join("L") + "Z").join(" ");
    const path = svgEl("path", { d, id: "r-" + rid, class: "region " + (geo.seas.includes(rid) ? "sea" : "empty") });
    const title = svgEl("title"); title.textContent = geo.names[rid]; path.appendChild(title);
    path.addEventListener("click", () => openCorrection(rid));
    svg.appendChild(path);
  }
  // over the small islands, a round target a finger can hit (webui/tap_targets.py): a tap in the
  // sea beside Corsica opens Corsica
  for (const [rid, [x, y, r]] of Object.entries(geo.tap_targets || {})) {
    const c = svgEl("circle", { cx: x, cy: y, r, class: "tap", id: "tap-" + rid });
    const title = svgEl("title"); title.textContent = geo.names[rid]; c.appendChild(title);
    c.addEventListener("click", () => openCorrection(rid));
    svg.appendChild(c);
  }
  for (const [rid, [x, y]] of Object.entries(geo.label_points)) {
    const t = svgEl("text", { x, y, id: "t-" + rid }); svg.appendChild(t);
  }
}

// what each garrison piece counts for on this board (legionary 1, vexillum 10; tank 1, flag 10; LotR 1/3/5)
function strength(pieces) { return Object.entries(geo.values || { legionary: 1, vexillum: 10 }).reduce((n, [k, v]) => n + v * (pieces[k] || 0), 0); }

// regions the camera is unsure of (below the tracker's LOW_CONFIDENCE), cannot see, or read as a rule
// questioned (tracker.overrides.to_check): a player should look
function doubtOf(state, rid) {
  if (view && (view.unknown || []).includes(rid)) return "never seen by the camera: no count is known here (set it)";
  if (state && (state.unseen || []).includes(rid)) return "not seen by the camera: last count kept";
  if (state && (state.lying || []).includes(rid)) return "a piece seems to lie knocked over here: if so, stand it up and the camera counts it again; if not, check the count";
  if (view && (view.guessed || []).includes(rid)) return "the camera sees no legionary here: the rules keep one (check the count)";
  if (view && (view.setup_doubt || []).includes(rid)) return "the set-up rules chose this army, but the camera's reading left it in doubt: check which army stands here";
  if (view && (view.leaned || []).includes(rid)) return "no hand touched this province, yet the camera reads more pieces here: those placed beside it may be read here (check the count here and beside it)";
  if (view && (view.untouched || []).includes(rid)) return "no hand reached into this province, yet the camera now reads its count otherwise: pieces at its border may be read on the wrong side (check the count here and beside it)";
  if (view && (view.moved || []).includes(rid)) return "pieces were moved here, and the camera still reads the count it read before: check the count";
  const c = state && state.confidence && state.confidence[rid];
  // while the set-up is being made, a free province is no doubt (the camera doubts every empty
  // province only because none stands empty once the game is on), nor one read as placed, which
  // the rules vouch for (tracker.spqrisiko.setup.vouched_placements)
  const setupSure = view && view.placing && (view.placing.free.includes(rid) || view.placing.vouched.includes(rid));
  // nor a placement the turn's due accounts for (tracker.game.Game._accounted_for)
  const placedSure = view && (view.vouched || []).includes(rid);
  if (c !== undefined && view && c < view.low_confidence && !setupSure && !placedSure) return `check the count (camera ${Math.round(100 * c)}% sure)`;
  if (view && (view.questioned || []).includes(rid)) return "a rule questioned this count when it was read: check it (set the count if it is wrong)";
  return "";
}

function renderMap(state, changed) {
  const regions = (state && state.regions) || {};
  let doubts = 0;
  for (const rid of Object.keys(geo.polygons)) {
    const path = $("#r-" + rid), text = $("#t-" + rid), content = regions[rid] || {};
    const sea = geo.seas.includes(rid);
    let fill = sea ? "#cfe6f2" : "#e9dfc4", label = "";
    if (sea) {
      label = Object.entries(content).filter(([c]) => c !== "neutral").map(([c, k]) => `${c[0].toUpperCase()}${k.trireme || 0}`).join(" ");
    } else {
      const army = Object.entries(content).find(([c]) => c !== "neutral");
      if (army) { fill = COLOURS[army[0]]; label = String(strength(army[1])); if (army[1].leader) label += " ♛"; }
      if (content.neutral && content.neutral.centre) label += " ◎";
      if (content.neutral && content.neutral.ring) label += " 💍";
      if (geo.schematic) label = `${geo.names[rid]} ${label}`;
    }
    path.style.fill = fill; path.style.fillOpacity = sea ? 1 : 0.75;
    path.classList.toggle("changed", !!(changed && changed[rid]));
    const doubt = doubtOf(state, rid);
    path.classList.toggle("doubt", !!doubt);
    path.querySelector("title").textContent = geo.names[rid] + (doubt ? ` — ${doubt}` : "");
    if (doubt) { label += " ?"; doubts += 1; }
    text.textContent = label;
    // a schematic tile holds a territory's name as well as its count: a long name ("Territori del
    // Nord Ovest 4") is squeezed to the tile's width instead of running over its neighbours
    if (geo.schematic) {
      text.removeAttribute("textLength"); text.removeAttribute("lengthAdjust");
      const room = path.getBBox().width - 6;
      if (room > 0 && text.getComputedTextLength() > room) {
        text.setAttribute("textLength", room.toFixed(1)); text.setAttribute("lengthAdjust", "spacingAndGlyphs");
      }
    }
  }
  const check = $("#check");
  if (check) { check.hidden = !doubts; check.textContent = `${doubts} to check`; }
}

// whether the camera sees c's score marker on another box than the score the tracker keeps (vision.track)
function markerOff(v, c) {
  const seen = (v.track || {})[c];
  return seen !== undefined && seen !== null && seen !== Math.min(v.vp[c], v.vp_max);
}

function renderTrack(v) {
  const track = $("#track"); track.innerHTML = "";
  for (let i = 0; i <= v.vp_max; i++) {
    const box = el("div", { class: i % 5 === 0 ? "five" : "", title: `box ${i}` }, i % 5 === 0 ? String(i) : "");
    for (const c of v.players) if (Math.min(v.vp[c], v.vp_max) === i) { const m = el("span", { class: "marker", title: c }); m.style.background = COLOURS[c]; box.appendChild(m); }
    // a marker the camera sees on another box than the score: a ring of its colour there
    for (const c of v.players) if (markerOff(v, c) && v.track[c] === i) {
      const m = el("span", { class: "marker seen", title: `${c}'s marker as the camera sees it` }); m.style.borderColor = COLOURS[c]; box.appendChild(m);
    }
    track.appendChild(box);
  }
}

// the set-up being made: provinces taken, and each army's of its share (§3.9)
function setupLine(p) {
  const armies = Object.entries(p.shares).map(([c, n]) => `${c} ${p.held[c]}/${n}`).join(" · ");
  const taken = Object.values(p.held).reduce((a, b) => a + b, 0);
  const turn = p.turn ? ` · ${p.turn.text}` : "";
  return `Set-up: ${taken} of ${p.provinces} provinces taken${turn} · ${armies}`;
}

function render(v) {
  if (!v || !v.players) return;
  view = v;
  $("#round").textContent = v.current ? `Round ${v.round} · turn ${v.turn} · ${v.current} · ${(v.phase || "").replace(/_/g, " ")}` + (v.winner ? ` · ${v.winner} wins!` : "")
    : v.placing ? setupLine(v.placing) : "waiting for the board…";
  const sync = $("#sync"); sync.textContent = v.out_of_sync ? "check the table" : "in sync"; sync.className = "pill " + (v.out_of_sync ? "bad" : "ok");
  const notice = $("#camera-notice"); notice.textContent = notice.title = v.camera_notice || ""; notice.hidden = !v.camera_notice;
  renderMap(v.state, null);
  renderTrack(v);
  const players = $("#players"); players.innerHTML = "";
  const sel = $("#cards-player"); sel.innerHTML = "";
  for (const c of v.players) {
    const s = v.scores[c] || {};
    const card = el("div", { class: "player" + (c === v.current ? " current" : "") });
    card.style.borderColor = COLOURS[c];
    card.innerHTML = `<b>${v.vp[c]}</b><strong>${c}</strong>`;
    // what the ruleset counts: S.P.Q.RisiKo!'s provinces, empire, seas and centres; the Risiko
    // family's territories, armies and continents (or Middle-earth's regions) held
    const lines = s.territories !== undefined
      ? [`${s.territories} territories · ${s.armies} armies`, `${(s.group_names || []).length ? "holds " + s.group_names.join(", ") : `no ${v.board === "lotr" ? "region" : "continent"} held`} · +${s.reinforcements ?? "–"} next`]
      : [`${s.province_count ?? "–"} provinces · empire ${s.largest_empire ?? "–"}`, `${s.controlled_seas ?? "–"} seas · ${s.centres ?? 0} centres · +${s.reinforcements ?? "–"} next`];
    for (const line of lines) card.appendChild(el("small", {}, line));
    // this turn's claim, where it hangs on counts the map marks (tracker.game.Game.claim_rests_on)
    const claim = v.claim;
    if (claim && claim.colour === c && claim.rests_on.length) {
      const names = claim.rests_on.map(r => geo.names[r]).join(", ");
      card.appendChild(el("small", { class: "doubt claim-doubt" }, `claimed ${claim.total} VP this turn: it hangs on ${names}, marked on the map; check ${claim.rests_on.length > 1 ? "them" : "it"} before moving the marker`));
    }
    if (markerOff(v, c)) {
      card.appendChild(el("small", { class: "doubt marker-off" }, `the marker on the board stands on ${v.track[c]}, the score is ${Math.min(v.vp[c], v.vp_max)}: move the marker, or check the counts`));
    }
    players.appendChild(card);
    sel.appendChild(el("option", {}, c));
  }
  if (v.current) sel.value = v.current;
  renderEntryForm(v);
  renderOwed(v);
  renderUnknown(v);
  renderLying(v);
  const events = $("#events"); events.innerHTML = "";
  const verdicts = $("#verdicts"); verdicts.innerHTML = "";
  for (const snap of v.recent || []) {
    snap.events.forEach((e, i) => {
      const li = el("li", {}, e.text || e.kind);
      const decided = (snap.decisions || []).filter(d => d.event_index === i).pop();
      if (decided) li.appendChild(el("em", {}, ` (${decided.verdict})`));
      else {
        const decide = el("span", { class: "decide" });     // the two stay together when the line wraps
        for (const verdict of ["confirmed", "rejected"]) {
          const b = el("button", { class: "write", title: verdict === "confirmed" ? "confirm: this happened" : "reject: this did not happen" },
                       verdict === "confirmed" ? "✓" : "✗");
          b.addEventListener("click", () => post("/api/decisions", { snapshot: snap.id, event: i, verdict }));
          decide.appendChild(b);
        }
        li.appendChild(decide);
      }
      events.appendChild(li);
    });
  }
  // the snapshots' verdicts and those of cards the camera judged on a settled table, newest first
  const said = [...(v.recent || []), ...(v.judged || [])].sort((a, b) => (b.t || 0) - (a.t || 0));
  for (const item of said) {
    for (const ver of item.verdicts) verdicts.appendChild(el("li", { class: ver.level }, `${ver.rule}: ${ver.message}`));
  }
  const cam = $("#camera");
  if (!cam.hidden && v.latest && v.latest.has_frame) showCameraFrame(cam, `/api/snapshots/${v.latest.id}/overlay.jpg`);
}

// a picture of the whole camera frame (the live tab's, the Set-up preview), given the frame's size
// before it loads: what lies under it keeps its place as it arrives
function showCameraFrame(img, src) {
  if (view && view.camera_size) { img.width = view.camera_size[0]; img.height = view.camera_size[1]; }
  img.src = src;
}

// a power centre an arena paid for that the camera has not seen placed: the players point at it
function renderOwed(v) {
  const box = $("#owed");
  // a live update redraws the prompt: keep what a player had picked
  const picked = Object.fromEntries([...box.querySelectorAll("select")].map(s => [s.dataset.colour, s.value]));
  box.innerHTML = "";
  const owed = v.centres_owed || [];
  box.hidden = !owed.length;
  for (const o of owed) {
    const p = el("p", { class: "owed" }, `${o.colour} played an arena: ${o.count === 1 ? "a power centre" : o.count + " power centres"} the camera has not seen. `);
    if (!o.where.length) { p.appendChild(el("span", {}, `${o.colour} holds no province where one may stand (§16.4).`)); box.appendChild(p); continue; }
    const pick = el("select", { "aria-label": `where ${o.colour}'s power centre stands`, "data-colour": o.colour });
    for (const rid of [...o.where].sort((a, b) => geo.names[a].localeCompare(geo.names[b]))) pick.appendChild(el("option", { value: rid }, geo.names[rid]));
    if (o.where.includes(picked[o.colour])) pick.value = picked[o.colour];
    const mark = el("button", { type: "button", class: "write" }, "Centre is here");
    mark.addEventListener("click", () => {
      const pieces = JSON.parse(JSON.stringify((v.state && v.state.regions[pick.value]) || {}));
      pieces.neutral = Object.assign(pieces.neutral || {}, { centre: 1 });
      post("/api/corrections", { region: pick.value, pieces });
    });
    p.append(o.count === 1 ? "Where is it? " : "Where is one? ", pick, " ", mark);
    box.appendChild(p);
  }
}

// regions where the camera sees a piece lying knocked over (vision.lying): it counts pieces
// standing, so the table stands it up, and the next commit counts it; a tablet cannot hover over
// the map, so the prompt is said here, as the never-seen regions' is
function renderLying(v) {
  const box = $("#lying"), lying = (v.state && v.state.lying) || [];
  box.innerHTML = "";
  box.hidden = !lying.length;
  if (!lying.length) return;
  const p = el("p", {}, `A piece seems to lie knocked over in ${lying.map(r => geo.names[r]).join(", ")}: stand it up, and the camera counts it again. If none lies there, check the count. `);
  for (const rid of lying) {
    const set = el("button", { type: "button", class: "write", "data-region": rid }, `Set ${geo.names[rid]}`);
    set.addEventListener("click", () => openCorrection(rid));
    p.append(set, " ");
  }
  box.appendChild(p);
}

// regions the camera has never seen (something lay over them from the first commit): the camera
// commits nothing there, so the scores count them empty until a player sets their counts or the
// camera sees them
function renderUnknown(v) {
  const box = $("#unknown"), unknown = v.unknown || [];
  box.innerHTML = "";
  box.hidden = !unknown.length;
  if (!unknown.length) return;
  const names = unknown.map(r => geo.names[r]);
  const one = unknown.length === 1;
  const p = el("p", {}, `The camera has never seen ${names.join(", ")}: no count is known there, and the scores take ${one ? "it" : "them"} as the map shows ${one ? "it" : "them"}. Set ${one ? "its count" : "their counts"}, or uncover ${one ? "it" : "them"}. `);
  for (const rid of unknown) {
    const set = el("button", { type: "button", class: "write", "data-region": rid }, `Set ${geo.names[rid]}`);
    set.addEventListener("click", () => openCorrection(rid));
    p.append(set, " ");
  }
  box.appendChild(p);
}

// The correction form asks for the board's own pieces (geo.pieces, webui/schematic.piece_form):
// legionaries, vexilla, triremes and a power centre; tanks and flags; battalions, a leader and the Ring
const capital = (w) => w[0].toUpperCase() + w.slice(1);
function buildCorrectionForm() {
  const p = geo.pieces, colour = $("#c-colour"), kinds = $("#c-kinds");
  for (const c of p.colours) colour.appendChild(el("option", { value: c }, c));
  for (const k of p.army) {
    const label = el("label", {}, capital(p.plurals[k]) + " ");
    label.appendChild(el("input", { id: "c-" + k, type: "number", min: "0", max: "200", value: "0" }));
    kinds.appendChild(label);
  }
  for (const k of p.neutral) {
    const label = el("label", {}, capital(k) + " ");
    label.appendChild(el("input", { id: "c-" + k, type: "checkbox" }));
    kinds.appendChild(label);
  }
  // a recording opened for review: the form shows the counts and the close-up, and changes nothing
  if (REVIEW_ONLY) document.querySelectorAll("#correct-form input, #correct-form select").forEach(i => { i.disabled = true; });
}

function openCorrection(rid) {
  const dlg = $("#correct");
  $("#correct-title").textContent = REVIEW_ONLY ? geo.names[rid] : `Correct ${geo.names[rid]}`;
  // why the map marks it, if it does: on a tablet the map's hover text is out of reach
  const why = $("#c-why"); why.textContent = doubtOf(view && view.state, rid); why.hidden = !why.textContent;
  const content = (view && view.state && view.state.regions[rid]) || {};
  const army = Object.entries(content).find(([c]) => c !== "neutral");
  $("#c-colour").value = army ? army[0] : geo.pieces.colours[0];
  for (const k of geo.pieces.army) $("#c-" + k).value = army ? (army[1][k] || 0) : 0;
  for (const k of geo.pieces.neutral) $("#c-" + k).checked = !!(content.neutral && content.neutral[k]);
  // the region in the camera's last committed frame, enlarged, with the pieces it read
  const seen = $("#c-view"); seen.innerHTML = "";
  if (view && view.latest_frame) seen.appendChild(closeUps(rid, [["the camera's last commit", view.latest_frame]]));
  dlg.returnValue = "";
  dlg.onclose = () => {
    if (dlg.returnValue !== "save") return;
    const pieces = {}, k = {}, neutral = {};
    for (const kind of geo.pieces.army) { const n = parseInt($("#c-" + kind).value || "0", 10); if (n > 0) k[kind] = n; }
    if (Object.keys(k).length) pieces[$("#c-colour").value] = k;
    for (const kind of geo.pieces.neutral) if ($("#c-" + kind).checked) neutral[kind] = 1;
    if (Object.keys(neutral).length) pieces.neutral = neutral;
    post("/api/corrections", { region: rid, pieces });
  };
  dlg.showModal();
}

// one region as the camera saw it in recorded frames, enlarged: [label, snapshot id] pairs (an id
// of null is left out); a frame that cannot be drawn says why in its place
function closeUps(rid, frames) {
  const box = el("div", { class: "closeups", "data-region": rid });
  for (const [label, sid] of frames) {
    if (sid === null || sid === undefined) continue;
    const fig = el("figure");
    // square, and its size given before it loads: the dialog or the list under it does not move as it arrives
    const side = geo.close_up_side ? { width: geo.close_up_side, height: geo.close_up_side } : {};
    const img = el("img", { src: `/api/snapshots/${sid}/regions/${rid}.jpg`, alt: `${geo.names[rid]} as the camera saw it in snapshot #${sid}`, ...side });
    img.onerror = async () => {
      let why = "no camera view of it here";
      try { why = (await (await fetch(img.src)).json()).error || why; } catch (e) { /* keep the plain words */ }
      img.replaceWith(el("p", { class: "doubt" }, why));
    };
    fig.append(img, el("figcaption", {}, `${label} · #${sid}`));
    box.appendChild(fig);
  }
  return box;
}

// a tablet entry as the review lists it: what was entered, then what the rules said of it then
function entryItems(entries) {
  const out = [];
  for (const e of entries) {
    const worst = e.verdicts.some(v => v.level === "violation") ? "violation" : (e.verdicts.some(v => v.level === "warning") ? "warning" : "");
    const said = e.verdicts.map(v => `${v.level} ${v.rule}: ${v.message}`).join("; ");
    const who = e.kind === "judge_draws" ? "camera" : "tablet";      // the camera judged a card on a settled table
    out.push(el("li", { class: `entry ${worst}` }, `${who}: ${e.text}${said ? " — " + said : ""}`));
  }
  return out;
}

// what a snapshot was: its source, and whose turn (a step of the set-up being made has none)
function snapLabel(s) {
  return s.source === "placing" ? "set-up being made" : `${s.source} · ${s.actor || ""} · round ${s.round}`;
}

// the recording's games on this board, newest first, when it holds more than this one: an
// evening's table reviews an earlier game's dispute too
async function loadGames() {
  const games = (await (await fetch("/api/games")).json()).filter(g => g.reviewable).reverse();
  const pick = $("#review-game"), label = $("#review-game-label");
  label.hidden = games.length < 2;
  pick.innerHTML = "";
  for (const g of games) {
    const when = g.last ? new Date(g.last * 1000).toLocaleString([], { weekday: "short", hour: "2-digit", minute: "2-digit" }) : "nothing recorded";
    pick.appendChild(el("option", { value: String(g.id) }, `${g.current ? "this game" : "game " + g.id} · ${g.players.join(", ")} · ${g.snapshots} snapshots · ${when}`));
  }
  const current = games.find(g => g.current);
  if (reviewed === null || !games.some(g => g.id === reviewed)) reviewed = current ? current.id : null;
  if (reviewed !== null) pick.value = String(reviewed);
}
$("#review-game").addEventListener("change", () => {
  reviewed = parseInt($("#review-game").value, 10);
  selected = [];
  $("#snap-a").innerHTML = ""; $("#snap-b").innerHTML = "";
  loadTimeline();
});

async function loadTimeline() {
  await loadGames();
  const game = reviewed === null ? "" : `?game=${reviewed}`;
  const list = await (await fetch(`/api/snapshots${game}`)).json();
  const tl = $("#timeline"); tl.innerHTML = "";
  for (const s of list) {
    const entered = s.entries ? ` · ${s.entries} tablet entr${s.entries === 1 ? "y" : "ies"} before it` : "";
    const b = el("button", { class: `${s.level}${s.entries ? " entered" : ""}`, title: `${snapLabel(s)}${entered}` }, String(s.id));
    b.addEventListener("click", () => pick(s.id, b));
    tl.appendChild(b);
  }
  // entries made after the last commit belong to no snapshot yet: they are listed on their own
  const after = (await (await fetch(`/api/entries${game}`)).json()).filter(e => e.before === null);
  const box = $("#entries-after"); box.innerHTML = "";
  if (after.length) {
    box.appendChild(el("h2", {}, "At the tablet since the last commit"));
    const ul = el("ul"); entryItems(after).forEach(li => ul.appendChild(li)); box.appendChild(ul);
  }
  box.hidden = !after.length;
}

// a recorded score-track reading in words: "score markers seen at 21:14:05: red on 5 (its score was 4), blue on 3"
function trackText(r) {
  const at = new Date(r.t * 1000).toLocaleTimeString();
  const each = r.markers.map(m => m.box === null ? `${m.colour} not found`
    : m.off ? `${m.colour} on ${m.box} (its score was ${m.score})` : `${m.colour} on ${m.box}`);
  return `score markers seen at ${at}: ${each.join(", ")}`;
}

async function pick(id, button) {
  selected = [...selected, id].slice(-2);
  document.querySelectorAll("#timeline button").forEach(b => b.classList.toggle("sel", selected.includes(parseInt(b.textContent, 10))));
  for (const [i, sid] of selected.entries()) {
    const d = await (await fetch(`/api/snapshots/${sid}`)).json();
    const box = $(i === 0 ? "#snap-a" : "#snap-b"); box.innerHTML = "";
    box.appendChild(el("h2", {}, `#${d.id} · ${snapLabel(d)}`));
    if (d.has_frame) {
      // its width and height before it loads: the list under it then does not move as it arrives
      // (a tap on a "camera" button as it arrives can land on the picture that slid under it)
      const size = d.frame_size ? { width: d.frame_size[0], height: d.frame_size[1] } : {};
      const img = el("img", { src: `/api/snapshots/${d.id}/overlay.jpg`, alt: "frame with what the camera counted", ...size });
      img.onerror = () => {
        img.onerror = () => img.replaceWith(el("p", { class: "doubt" }, "this snapshot's frame is damaged; its recorded state below is kept"));
        img.src = `/api/snapshots/${d.id}/frame.jpg`;
      };
      box.appendChild(img);
    }
    const ul = el("ul");
    entryItems(d.entries || []).forEach(li => ul.appendChild(li));
    for (const [r, c] of Object.entries(d.changed)) {
      const doubt = !c.seen ? " (not seen by the camera)" : c.guessed ? " (the camera saw none; the rules kept one: check)" : c.setup_doubt ? " (the set-up rules chose the army: check)" : c.lying ? " (a piece seemed to lie knocked over: check)" : c.leaned ? " (no hand touched it: pieces placed beside it may be read here; check)" : c.untouched ? " (no hand reached into it, yet it reads otherwise: check)" : c.vouched ? "" : (view && c.confidence < view.low_confidence) ? ` (camera ${Math.round(100 * c.confidence)}% sure: check)` : "";
      // a doubted placement the turn's due accounted for was not asked for on the map (Game._accounted_for)
      const sure = !doubt && c.vouched ? ` (camera ${Math.round(100 * c.confidence)}% sure; the turn placed just what it was due, so no check was asked)` : "";
      const li = el("li", { class: doubt ? "doubt" : "" }, `${geo.names[r]}: ${c.before_text} → ${c.after_text}${doubt}${sure} `);
      // the region in the frame before and in this one, enlarged: what a dispute over it turns on
      if (d.has_frame || d.previous_frame) {       // a replayed game file has no frames to show
        const look = el("button", { type: "button", class: "look", "data-region": r }, "camera");
        look.addEventListener("click", () => {
          const open = li.querySelector(".closeups");
          if (open) open.remove();
          else li.appendChild(closeUps(r, [["before", d.previous_frame], ["this snapshot", d.has_frame ? d.id : null]]));
        });
        li.appendChild(look);
      }
      ul.appendChild(li);
    }
    for (const e of d.events) ul.appendChild(el("li", {}, e.text || e.kind));
    for (const v of d.verdicts) ul.appendChild(el("li", { class: v.level }, `${v.level} ${v.rule}: ${v.message}`));
    // where the camera saw the score markers after this commit (each change of reading), beside the score kept then
    for (const r of d.track || []) ul.appendChild(el("li", { class: r.markers.some(m => m.off) ? "doubt track-read" : "track-read" }, trackText(r)));
    box.appendChild(ul);
  }
}

document.querySelectorAll("nav button[data-tab]").forEach(b => b.addEventListener("click", () => {
  document.querySelectorAll("nav button[data-tab]").forEach(x => x.classList.toggle("on", x === b));
  document.querySelectorAll(".tab").forEach(t => t.classList.toggle("on", t.id === b.dataset.tab));
  if (b.dataset.tab === "review") loadTimeline();
  if (b.dataset.tab === "setup") showSetup();
}));
$("#toggle-camera").addEventListener("click", () => { const c = $("#camera"); c.hidden = !c.hidden; render(view); });
// what the rules say of an entry at once; a card drawn is judged with the next commit (the
// camera may not have committed the conquest yet) or once the table has stood still, and that
// verdict joins the Rules list
function said(what, v) {
  const out = $("#entry-said"), verdicts = v.entry_verdicts || [];
  out.textContent = verdicts.length ? verdicts.map(x => `${x.rule}: ${x.message}`).join("; ") : `${what} recorded`;
  // an answer that questions nothing (the losses the dice give) is no warning
  out.className = verdicts.some(x => x.level === "violation") ? "pill bad" : (verdicts.some(x => x.level === "warning") ? "pill warn" : "pill");
  out.hidden = false;
}
$("#cards-form").addEventListener("submit", (ev) => { ev.preventDefault(); post("/api/entries", { kind: "cards", payload: { player: $("#cards-player").value, cards: [...document.querySelectorAll("#cards-form .card")].map(s => s.value) } }).then(v => said("cards played", v)); });
$("#draw").addEventListener("click", () => post("/api/entries", { kind: "draw", payload: { player: $("#cards-player").value } }).then(v => said("card drawn", v)));
// an undo names what it undoes and asks first: a tap meant for the button beside must not undo a count
$("#camera-notice").addEventListener("click", (ev) => ev.currentTarget.classList.toggle("open"));
$("#undo").addEventListener("click", async () => {
  const u = view && view.undo, out = $("#entry-said");
  if (!u) { out.textContent = "no correction to undo"; out.className = "pill"; out.hidden = false; return; }
  const what = `the correction of ${geo.names[u.region]} (${u.before_text} → ${u.after_text})`;
  if (!confirm(`Undo ${what}? ${geo.names[u.region]} goes back to ${u.before_text}.`)) return;
  await post("/api/undo", {});
  out.textContent = `undone: ${what}`; out.className = "pill"; out.hidden = false;
});
// The entry form follows the game's ruleset: its card symbols (S.P.Q.RisiKo!'s legionary, trireme,
// arena and vexillum; infantry, cavalry, artillery or creature and the jolly in the Risiko family),
// and its dice (none to enter in the dice-free tournament)
function renderEntryForm(v) {
  const symbols = v.card_symbols || [];
  for (const s of document.querySelectorAll("#cards-form .card")) {
    if ([...s.options].map(o => o.value).join() === symbols.join()) continue;
    const was = s.value; s.innerHTML = "";
    for (const sym of symbols) s.appendChild(el("option", { value: sym }, sym));
    if (symbols.includes(was)) s.value = was;
  }
  $("#dice").hidden = !v.dice;
  const entries = v.tablet_entries || [];
  for (const row of document.querySelectorAll("#more-entries .entry-row")) row.hidden = !entries.includes(row.dataset.entry);
  const sites = v.sites || [], site = $("#adv-site");
  if ([...site.options].map(o => o.value).join() !== sites.join()) {
    site.innerHTML = "";
    for (const s of sites) site.appendChild(el("option", { value: s }, geo && geo.names[s] || s));
  }
  showAdventure();
}
// an adventure card: a mission names its site of power and its points, a power or an event its points
function showAdventure() {
  const kind = $("#adv-kind").value;
  document.querySelector("#more-entries .adv-mission").hidden = kind !== "mission";
  document.querySelector("#more-entries .adv-points").hidden = kind === "draw";
}
const entryPlayer = () => $("#cards-player").value;
$("#adv-kind").addEventListener("change", showAdventure);
$("#adv-enter").addEventListener("click", () => {
  const kind = $("#adv-kind").value, payload = { player: entryPlayer(), type: kind };
  if (kind !== "draw") payload.points = parseInt($("#adv-points").value || "0", 10);
  if (kind === "mission") payload.site = $("#adv-site").value;
  post("/api/entries", { kind: "adventure", payload }).then(v => said(`adventure card (${$("#adv-kind").selectedOptions[0].text})`, v));
});
for (let d = 1; d <= 6; d++) {
  const b = el("button", { type: "button", value: String(d), "aria-label": `the Fellowship rolled ${d}` }, `${DICE_FACES[d - 1]} ${d}`);
  b.addEventListener("click", () => post("/api/entries", { kind: "fellowship_roll", payload: { value: d } }).then(v => said(`the Fellowship's ${d}`, v)));
  $("#ring-faces").appendChild(b);
}
$("#declare").addEventListener("click", () => post("/api/entries", { kind: "declare", payload: { player: entryPlayer(), armies: parseInt($("#declared").value || "0", 10) } })
  .then(v => said("reinforcements declared", v)));
$("#renounce").addEventListener("click", () => {
  const who = entryPlayer();
  if (!confirm(`${who} renounces continent bonuses for the rest of the game?`)) return;
  post("/api/entries", { kind: "renounce", payload: { player: who } }).then(v => said(`${who} renounced continent bonuses`, v));
});
for (const [id, play] of [["#chance-play", true], ["#chance-pass", false]])
  $(id).addEventListener("click", () => post("/api/entries", { kind: "extra_turn", payload: { player: entryPlayer(), play } })
    .then(v => said(play ? "a chance played" : "a chance passed", v)));

// Dice for a dispute: each side's dice tapped in as rolled (up to the most the ruleset lets a side
// roll), in a dialog a finger can use, answered beside the entry form like every other entry
const rolled = { attacker: [], defender: [] };
const mostDice = (side) => (view && view.dice ? view.dice[side === "attacker" ? "attack" : "defence"] : 3);
function showDice() {
  for (const box of document.querySelectorAll("#dice-form .dice-side")) {
    const side = box.dataset.side, dice = rolled[side], out = box.querySelector(".rolled");
    out.innerHTML = "";
    if (!dice.length) out.textContent = "no die yet";
    dice.forEach((d, i) => {
      const b = el("button", { type: "button", class: "die", "aria-label": `take back the ${side}'s ${d}` }, `${DICE_FACES[d - 1]} ${d}`);
      b.addEventListener("click", () => { dice.splice(i, 1); showDice(); });
      out.appendChild(b);
    });
    box.querySelectorAll(".faces button").forEach(b => { b.disabled = dice.length >= mostDice(side); });
    box.querySelector("legend").textContent = `${side === "attacker" ? "Attacker" : "Defender"} (up to ${mostDice(side)} dice)`;
  }
  $("#dice-record").disabled = !(rolled.attacker.length && rolled.defender.length);
}
for (const box of document.querySelectorAll("#dice-form .dice-side")) {
  const faces = box.querySelector(".faces");
  for (let d = 1; d <= 6; d++) {
    const b = el("button", { type: "button", class: "face", value: String(d), "aria-label": `${box.dataset.side} rolled ${d}` }, `${DICE_FACES[d - 1]} ${d}`);
    b.addEventListener("click", () => { const dice = rolled[box.dataset.side]; if (dice.length < mostDice(box.dataset.side)) dice.push(d); showDice(); });
    faces.appendChild(b);
  }
}
$("#dice").addEventListener("click", () => {
  const dlg = $("#dice-dialog");
  rolled.attacker.length = rolled.defender.length = 0;
  $("#dice-naval").checked = false;
  $("#dice-naval-label").hidden = !(view && view.dice && view.dice.naval);     // a board with sea battles
  showDice();
  dlg.returnValue = "";
  dlg.onclose = () => {
    if (dlg.returnValue !== "record") return;
    const payload = { attacker: [...rolled.attacker], defender: [...rolled.defender] };
    if ($("#dice-naval").checked) payload.naval = true;
    post("/api/entries", { kind: "dice", payload }).then(v => said("dice recorded", v));
  };
  dlg.showModal();
});

function showSetup() {
  const order = $("#order"); order.innerHTML = "";
  const players = (view && view.players) || [];
  for (let i = 0; i < 6; i++) {
    const s = el("select", { class: "seat", "aria-label": `player ${i + 1}` });
    s.appendChild(el("option", { value: "" }, "—"));
    for (const c of Object.keys(COLOURS)) s.appendChild(el("option", { value: c }, c));
    s.value = players[i] || "";
    order.appendChild(s);
  }
  if (view) { $("#ruleset").value = view.ruleset; $("#target").value = view.target_vp || ""; }
  reloadPreview();
}

// Fitting the region map to this table's print: each drag on the preview goes from a point of the
// drawn map to where the printed board has it; the server fits the map to the drags.
let anchors = [], dragFrom = null;
function reloadPreview() { showCameraFrame($("#preview"), "/api/calibration/preview.jpg?" + Date.now()); }
function previewPoint(ev) {
  const img = $("#preview"), r = img.getBoundingClientRect();
  return [(ev.clientX - r.left) * img.naturalWidth / r.width, (ev.clientY - r.top) * img.naturalHeight / r.height];
}
function drawAnchors() {
  const img = $("#preview"), c = $("#anchors");
  c.width = img.clientWidth; c.height = img.clientHeight;
  const ctx = c.getContext("2d"), k = img.naturalWidth ? img.clientWidth / img.naturalWidth : 1;
  ctx.lineWidth = 2; ctx.strokeStyle = ctx.fillStyle = "#ff3df5";
  for (const a of anchors) {
    ctx.beginPath(); ctx.moveTo(a.from[0] * k, a.from[1] * k); ctx.lineTo(a.to[0] * k, a.to[1] * k); ctx.stroke();
    ctx.beginPath(); ctx.arc(a.to[0] * k, a.to[1] * k, 4, 0, 2 * Math.PI); ctx.fill();
  }
  $("#anchor-count").textContent = anchors.length ? `${anchors.length} drag${anchors.length === 1 ? "" : "s"}` : "";
}
$("#preview").addEventListener("load", drawAnchors);
// no camera frame yet (or none calibrated): the room kept for it goes, and its alt text says what is missing
$("#preview").addEventListener("error", (ev) => { ev.target.removeAttribute("width"); ev.target.removeAttribute("height"); });
$("#anchors").addEventListener("pointerdown", (ev) => { ev.preventDefault(); dragFrom = previewPoint(ev); $("#fit-said").textContent = ""; });
$("#anchors").addEventListener("pointerup", (ev) => {
  if (!dragFrom) return;
  const to = previewPoint(ev);
  if (Math.hypot(to[0] - dragFrom[0], to[1] - dragFrom[1]) >= 1) anchors.push({ from: dragFrom, to });
  dragFrom = null; drawAnchors();
});
$("#clear-anchors").addEventListener("click", () => { anchors = []; drawAnchors(); });
function fitted(v) {
  anchors = []; reloadPreview();
  $("#fit-said").textContent = (v.map_warp ? "map fitted" : "printed map restored") + (v.saved ? `; saved in ${v.saved}` : "");
}
$("#fit-map").addEventListener("click", () => { if (anchors.length) send("/api/calibration/anchors", { anchors }).then(fitted); });
$("#reset-map").addEventListener("click", () => send("/api/calibration/anchors", { reset: true }).then(fitted));
$("#setup-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const players = [...document.querySelectorAll("#order .seat")].map(s => s.value).filter(Boolean);
  const neutrals = ($("#neutrals").value || "").split(",").map(s => s.trim()).filter(Boolean);
  post("/api/setup", { players, ruleset: $("#ruleset").value, target_vp: $("#target").value, neutrals })
    .then(v => { if (v.board !== geo.board) location.reload(); });
  document.querySelector('nav button[data-tab="live"]').click();
});

(async () => {
  geo = await (await fetch("/api/geometry")).json();
  drawMap();
  buildCorrectionForm();
  const first = await (await fetch("/api/state")).json();
  geo.board = first.board;
  render(first);
  const es = new EventSource("/api/stream");
  es.onmessage = (m) => { const v = JSON.parse(m.data); render(v); document.body.dataset.updates = String((+document.body.dataset.updates || 0) + 1); };
})();
