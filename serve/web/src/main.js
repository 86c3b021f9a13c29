// The page of `szero serve`. The rules live on the server: this page holds a game as its
// start FEN and a list of UCI moves, asks /api/position for the legal moves of the shown
// position, and sends back exactly the UCI string of the move the user chose (a gate or
// a promotion is picked from the moves the server listed).
import { Chessground } from 'chessgroundx';

const $ = (id) => document.getElementById(id);

const state = {
  info: null,
  variant: 'seirawan',
  start: '',
  line: [], // the game's moves (UCI); the board shows the first `cursor` of them
  cursor: 0,
  view: null, // the server's PositionView of the shown position
  orientation: 'white',
  thinking: false,
  analysis: null, // AbortController of the running analysis
  games: [], // games of an opened PGN
};

// For tests and the curious: every UCI move this page sent to the server, in order, and
// how many position requests are on their way.
window.szero = { state, sent: [], pending: 0 };

function showError(message) {
  const box = $('error');
  box.textContent = message;
  box.hidden = !message;
}

async function api(path, body) {
  const res = await fetch(path, body === undefined ? {} : {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  let data;
  try { data = JSON.parse(text); } catch { data = text; }
  if (!res.ok) throw new Error((data && data.error) || `${res.status} ${res.statusText}`);
  return data;
}

function gameRequest(moves = state.line.slice(0, state.cursor)) {
  return { variant: state.variant, start: state.start, moves };
}

const board = Chessground($('board'), {
  orientation: 'white',
  coordinates: true,
  autoCastle: false,
  // No side may move until the server's legal moves have landed (showPosition sets them):
  // a piece picked up before then could go nowhere.
  movable: { free: false, color: undefined, showDests: true, events: { after: onBoardMove } },
  premovable: { enabled: false },
  drawable: { enabled: true },
  dimensions: { width: 8, height: 8 },
});

// The board part of our FEN: chessgroundx reads `[...]` as a crazyhouse pocket; the hands
// are drawn apart (a hand piece never drops).
const boardFen = (fen) => fen.split(' ')[0].replace(/\[.*\]/, '');

function pieceEl(letter) {
  const el = document.createElement('piece');
  el.className = `${letter.toLowerCase()}-piece ${letter === letter.toUpperCase() ? 'white' : 'black'}`;
  el.title = { e: 'Elephant', h: 'Hawk' }[letter.toLowerCase()] || letter;
  return el;
}

function drawHands(view) {
  const top = state.orientation === 'white' ? 'black' : 'white';
  for (const [id, color] of [['hand-top', top], ['hand-bottom', top === 'white' ? 'black' : 'white']]) {
    const el = $(id);
    el.replaceChildren();
    el.dataset.color = color;
    for (const letter of view.hands[color]) el.appendChild(pieceEl(letter));
    if (!view.hands[color]) {
      const none = document.createElement('span');
      none.className = 'empty';
      none.textContent = `${color}: no hand pieces`;
      el.appendChild(none);
    }
  }
}

function engineSide() {
  return $('engine-side').value;
}

function humanMayMove(view) {
  return !view.outcome && !state.thinking && engineSide() !== view.turn;
}

function dests(view) {
  const map = new Map();
  for (const m of view.legal) {
    if (m.from === m.to) continue; // placements (seirawan-placement) are typed in
    const to = map.get(m.from) || [];
    for (const sq of [m.to, m.rook]) if (sq && !to.includes(sq)) to.push(sq);
    map.set(m.from, to);
  }
  return map;
}

function drawHistory() {
  const ol = $('history');
  ol.replaceChildren();
  // The server names the moves up to the cursor; later ones (stepping back) by UCI.
  const sans = state.view ? state.view.history.map((m) => m.san) : [];
  state.line.forEach((uci, i) => {
    const span = document.createElement('span');
    span.textContent = sans[i] || uci;
    span.dataset.ply = i + 1;
    span.dataset.uci = uci;
    span.onclick = () => goTo(i + 1);
    if (i % 2 === 0) {
      const li = document.createElement('li');
      ol.appendChild(li);
    }
    ol.lastChild.appendChild(span);
    if (i + 1 === state.cursor) ol.lastChild.classList.add('current');
  });
}

function statusText(view) {
  if (view.outcome) return `Game over: ${view.outcome.result} (${view.outcome.reason})`;
  let s = `${view.turn === 'white' ? 'White' : 'Black'} to move${view.check ? ', in check' : ''}`;
  if (state.thinking) s += ' (szero is thinking)';
  return s;
}

// Position requests can land out of order (a slow answer after a later, quicker one):
// only the last one asked is shown, so the board never shows a position the game has left.
let positionsAsked = 0;
let latest = Promise.resolve();

function refresh() {
  positionsAsked += 1;
  latest = showPosition(positionsAsked);
  return latest;
}

// Resolves once the last position asked has landed (asking again meanwhile waits for that
// one too): a move typed just after "New game" is judged on the new position, not the old.
async function settled() {
  for (let seen; seen !== latest;) {
    seen = latest;
    await seen.catch(() => {}); // a position that failed to show has said so itself
  }
}

async function showPosition(request) {
  stopAnalysis();
  let view;
  window.szero.pending += 1;
  try {
    view = await api('/api/position', gameRequest());
  } catch (e) {
    if (request === positionsAsked) showError(e.message);
    return;
  } finally {
    window.szero.pending -= 1;
  }
  if (request !== positionsAsked) return;
  state.view = view;
  const last = state.cursor > 0 ? view.history[state.cursor - 1] : null;
  const lastMove = last ? [last.uci.slice(0, 2), last.uci.slice(2, 4)] : undefined;
  board.set({
    fen: boardFen(view.fen),
    orientation: state.orientation,
    turnColor: view.turn,
    check: view.check ? view.turn : false,
    lastMove,
    movable: { color: humanMayMove(view) ? view.turn : undefined, dests: humanMayMove(view) ? dests(view) : new Map() },
  });
  board.setAutoShapes([]);
  clearAnalysis();
  drawHands(view);
  drawHistory();
  // Not while the user is typing a FEN there: a position landing then would replace it.
  if (document.activeElement !== $('fen')) $('fen').value = view.fen;
  $('status').textContent = statusText(view);
  $('status').dataset.turn = view.turn;
  $('status').dataset.outcome = view.outcome ? view.outcome.result : '';
  if (state.cursor === state.line.length && !view.outcome && engineSide() === view.turn && !state.thinking) {
    engineMove();
  } else if ($('auto-analyse').checked && !view.outcome && !state.thinking) {
    analyse();
  }
}

// A move the user made on the board: the server's legal moves from `orig` to `dest` (for
// castling, the king's target or the rook's square), picked among when several remain.
function onBoardMove(orig, dest) {
  const options = state.view.legal.filter((m) => m.from === orig && (m.to === dest || m.rook === dest));
  if (options.length === 0) return refresh();
  if (options.length === 1) return play(options[0].uci);
  pick(options);
}

function optionLabel(m) {
  const parts = [];
  if (m.promotion) parts.push(['promote to', m.promotion]);
  if (m.gate) parts.push([`gate on ${m.gate.square}`, m.gate.piece.toLowerCase()]);
  return parts;
}

function pick(options) {
  const box = $('picker-options');
  box.replaceChildren();
  const color = state.view.turn;
  // Plain moves (no gate) first, then by piece.
  options.sort((a, b) => (a.gate ? 1 : 0) - (b.gate ? 1 : 0));
  for (const m of options) {
    const b = document.createElement('button');
    b.type = 'button';
    b.dataset.uci = m.uci;
    const parts = optionLabel(m);
    if (parts.length === 0) b.append(m.rook ? 'castle, no gate' : 'no gate');
    for (const [text, letter] of parts) {
      b.append(text + ' ');
      b.appendChild(pieceEl(color === 'white' ? letter.toUpperCase() : letter));
    }
    b.title = m.san;
    b.onclick = () => { closePicker(); play(m.uci); };
    box.appendChild(b);
  }
  $('picker').hidden = false;
}

function closePicker() {
  $('picker').hidden = true;
  $('picker-options').replaceChildren();
}

$('picker-cancel').onclick = () => { closePicker(); refresh(); };

async function play(uci) {
  showError('');
  window.szero.sent.push(uci);
  state.line = state.line.slice(0, state.cursor);
  state.line.push(uci);
  state.cursor = state.line.length;
  await refresh();
}

function limitBody() {
  const n = Number($('limit').value);
  return $('limit-kind').value === 'nodes' ? { nodes: n } : { movetime_ms: n };
}

async function engineMove() {
  if (state.thinking || !state.view || state.view.outcome) return;
  state.thinking = true;
  $('status').textContent = statusText(state.view);
  const asked = state.line.slice(0, state.cursor);
  try {
    const r = await api('/api/play', {
      game: gameRequest(asked),
      network: $('network').value,
      mode: $('mode').value,
      ...limitBody(),
    });
    state.thinking = false;
    // The user may have moved on (take back, new game) while szero thought.
    if (state.cursor !== asked.length || state.line.slice(0, state.cursor).join() !== asked.join()) return refresh();
    state.line = asked.concat([r.move.uci]);
    state.cursor = state.line.length;
    await refresh();
    // szero's own verdict on its move, until an analysis replaces it.
    showScore(r.score, r.position.turn === 'white' ? 'black' : 'white');
  } catch (e) {
    state.thinking = false;
    showError(`szero could not move: ${e.message}`);
    refresh();
  }
}

function goTo(ply) {
  state.cursor = Math.max(0, Math.min(ply, state.line.length));
  refresh();
}

$('first').onclick = () => goTo(0);
$('prev').onclick = () => goTo(state.cursor - 1);
$('next').onclick = () => goTo(state.cursor + 1);
$('last').onclick = () => goTo(state.line.length);
$('flip').onclick = () => { state.orientation = state.orientation === 'white' ? 'black' : 'white'; refresh(); };
$('takeback').onclick = () => {
  // Back to the user's last turn: one move, or two when szero answered.
  let back = 1;
  if (state.cursor >= 2 && engineSide() !== 'none' && state.view && state.view.turn !== engineSide()) back = 2;
  state.line = state.line.slice(0, Math.max(0, state.cursor - back));
  state.cursor = state.line.length;
  refresh();
};

function newGame(start = '', variant = $('variant').value, line = []) {
  state.start = start;
  state.variant = variant;
  state.line = line;
  state.cursor = line.length;
  showError('');
  return refresh();
}

$('new-game').onclick = () => newGame();
$('engine-move').onclick = () => engineMove();
$('engine-side').onchange = () => refresh();
$('set-fen').onclick = async () => {
  const fen = $('fen').value.trim();
  const variant = $('variant').value;
  try {
    await api('/api/position', { variant, start: fen, moves: [] });
  } catch (e) {
    return showError(e.message);
  }
  $('engine-side').value = 'none';
  newGame(fen, variant);
};
$('move-input').addEventListener('keydown', async (ev) => {
  if (ev.key !== 'Enter') return;
  const text = ev.target.value.trim();
  await settled();
  const m = state.view && state.view.legal.find((x) => x.uci === text || x.san === text);
  if (!m) return showError(`not a legal move here: ${text}`);
  ev.target.value = '';
  play(m.uci);
});

// Analysis: server-sent events read from a fetch stream, so that a refusal's message (a
// 4xx or 503 body) reaches the page.
function stopAnalysis() {
  if (state.analysis) state.analysis.abort();
  state.analysis = null;
  $('analyse').textContent = 'Analyse';
}

function showScore(score, mover) {
  // Shown for White, as boards do.
  const sign = mover === 'white' ? 1 : -1;
  const q = score.q * sign;
  $('value').textContent = score.mate !== null && score.mate !== undefined
    ? `mate ${score.mate * sign}`
    : `${q >= 0 ? '+' : ''}${(score.cp * sign / 100).toFixed(2)}`;
  $('value').dataset.q = q.toFixed(3);
  const [w, d, l] = mover === 'white' ? score.wdl : [score.wdl[2], score.wdl[1], score.wdl[0]];
  $('wdl').textContent = `W ${(w * 100).toFixed(1)}% D ${(d * 100).toFixed(1)}% L ${(l * 100).toFixed(1)}% (White)`;
  const bar = $('wdl-bar');
  bar.querySelector('.w').style.width = `${w * 100}%`;
  bar.querySelector('.d').style.width = `${d * 100}%`;
  bar.querySelector('.l').style.width = `${l * 100}%`;
}

const BRUSHES = ['green', 'blue', 'yellow', 'paleGrey'];

function showUpdate(u) {
  const turn = state.view.turn;
  showScore(u.score, turn);
  $('nodes').textContent = `${u.nodes} nodes`;
  $('nodes').dataset.nodes = u.nodes;
  $('nps').textContent = `${u.nps} nodes/s`;
  $('pv').textContent = u.pv.map((m) => m.san).join(' ');
  $('pv').dataset.uci = u.pv.map((m) => m.uci).join(' ');
  const body = $('moves-table').querySelector('tbody');
  body.replaceChildren();
  for (const m of u.moves.slice(0, 30)) {
    const tr = document.createElement('tr');
    tr.dataset.uci = m.uci;
    for (const text of [m.san, (m.prior * 100).toFixed(1) + '%', String(m.visits), m.q === null ? '' : m.q.toFixed(3)]) {
      const td = document.createElement('td');
      td.textContent = text;
      tr.appendChild(td);
    }
    tr.onclick = () => { if (humanMayMove(state.view)) play(m.uci); };
    body.appendChild(tr);
  }
  // Arrows for the likeliest moves (by visits, else by prior); a gate adds its piece.
  const shapes = [];
  const color = turn;
  u.moves.slice(0, BRUSHES.length).forEach((m, i) => {
    if (i > 0 && m.visits === 0 && u.nodes > 0) return;
    shapes.push({ orig: m.from, dest: m.to, brush: BRUSHES[i] });
    if (m.gate) shapes.push({ orig: m.gate.square, piece: { role: `${m.gate.piece.toLowerCase()}-piece`, color, scale: 0.6 } });
  });
  board.setAutoShapes(shapes);
}

// The analysis shown belongs to one position: cleared when the board changes.
function clearAnalysis() {
  for (const id of ['value', 'wdl', 'nodes', 'nps', 'pv']) $(id).textContent = '';
  $('nodes').dataset.nodes = 0;
  $('pv').dataset.uci = '';
  $('moves-table').querySelector('tbody').replaceChildren();
}

async function analyse() {
  if (state.analysis) return stopAnalysis();
  if (!state.view || state.view.outcome) return showError('the game is over: there is nothing to analyse');
  clearAnalysis();
  const ctrl = new AbortController();
  state.analysis = ctrl;
  $('analyse').textContent = 'Stop';
  const q = new URLSearchParams({
    variant: state.variant,
    start: state.start,
    moves: state.line.slice(0, state.cursor).join(' '),
    network: $('network').value,
    seconds: $('analyse-seconds').value,
  });
  try {
    const res = await fetch(`/api/analyse?${q}`, { signal: ctrl.signal });
    if (!res.ok) {
      const data = await res.json().catch(() => ({}));
      throw new Error(data.error || `${res.status} ${res.statusText}`);
    }
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let buf = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += decoder.decode(value, { stream: true });
      let cut;
      while ((cut = buf.indexOf('\n\n')) >= 0) {
        const block = buf.slice(0, cut);
        buf = buf.slice(cut + 2);
        const event = (block.match(/^event: ?(.*)$/m) || [])[1];
        const data = block.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.replace(/^data: ?/, '')).join('\n');
        if (event === 'update') showUpdate(JSON.parse(data));
        if (event === 'error') showError(`analysis failed: ${data}`);
      }
    }
  } catch (e) {
    if (e.name !== 'AbortError') showError(e.message);
  }
  if (state.analysis === ctrl) {
    state.analysis = null;
    $('analyse').textContent = 'Analyse';
  }
}

$('analyse').onclick = () => analyse();
$('auto-analyse').onchange = (ev) => { if (ev.target.checked && !state.analysis) analyse(); };

$('export').onclick = async () => {
  try {
    const r = await api('/api/pgn/export', { game: gameRequest(state.line), white: whiteName(), black: blackName() });
    $('pgn').value = r.pgn;
    const a = $('download');
    a.href = URL.createObjectURL(new Blob([r.pgn], { type: 'application/x-chess-pgn' }));
    a.hidden = false;
    showError('');
  } catch (e) {
    showError(e.message);
  }
};

const whiteName = () => (engineSide() === 'white' ? `szero (${$('network').value})` : 'user');
const blackName = () => (engineSide() === 'black' ? `szero (${$('network').value})` : 'user');

function openGames(games) {
  state.games = games;
  const sel = $('pgn-games');
  sel.replaceChildren();
  games.forEach((g, i) => {
    const o = document.createElement('option');
    o.value = i;
    o.textContent = `${i + 1}. ${g.white} - ${g.black} ${g.result} (${g.moves.length} plies)`;
    sel.appendChild(o);
  });
  sel.hidden = games.length < 2;
  openGame(0);
}

function openGame(i) {
  const g = state.games[i];
  $('engine-side').value = 'none';
  $('variant').value = g.variant;
  newGame(g.start, g.variant, g.moves.slice());
}

$('pgn-games').onchange = (ev) => openGame(Number(ev.target.value));
$('import').onclick = async () => {
  try {
    const r = await api('/api/pgn/import', { pgn: $('pgn').value });
    showError('');
    openGames(r.games);
  } catch (e) {
    showError(e.message);
  }
};
$('open-run-game').onclick = async () => {
  try {
    const res = await fetch(`/api/run/games/${encodeURIComponent($('run-games').value)}`);
    if (!res.ok) throw new Error((await res.json()).error);
    const r = await api('/api/pgn/import', { pgn: await res.text() });
    showError('');
    openGames(r.games);
  } catch (e) {
    showError(e.message);
  }
};

function fill(select, values, chosen) {
  select.replaceChildren();
  for (const v of values) {
    const o = document.createElement('option');
    o.value = v;
    o.textContent = v;
    select.appendChild(o);
  }
  select.value = chosen;
}

async function init() {
  try {
    state.info = await api('/api/info');
  } catch (e) {
    return showError(`cannot reach the server: ${e.message}`);
  }
  const info = state.info;
  fill($('network'), info.networks.map((n) => n.name), info.default_network);
  fill($('mode'), info.modes, info.default_mode);
  fill($('variant'), info.variants, 'seirawan');
  if (info.run) {
    const files = (await api('/api/run/games')).files;
    fill($('run-games'), files, files[files.length - 1]);
    $('run-games-box').hidden = files.length === 0;
  }
  await newGame();
}

init();
