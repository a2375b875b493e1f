// Generated from Sources/ConfWeb/page by GeneratedFilesTests: edit the files there, then run
// CONF_UPDATE_GENERATED=1 swift test --filter GeneratedFilesTests.

extension CallPage {
    static let sources: [String: String] = [
        "call.css": ##"""
:root { color-scheme: dark; font-family: system-ui, sans-serif; background: #111; color: #eee; }
body { margin: 0; }
[hidden] { display: none !important; }
#lobby, #left { max-width: 28rem; margin: 10vh auto; padding: 1rem; }
#lobby label { display: block; margin: 1rem 0; }
input, button { font: inherit; padding: .4rem .6rem; border-radius: .3rem; border: 1px solid #555; background: #222; color: inherit; }
button { cursor: pointer; }
button[aria-pressed="true"] { background: #733; }
#call { display: grid; grid-template-columns: 1fr 18rem; grid-template-rows: auto 1fr auto auto auto; height: 100vh; height: 100dvh; }
#call-head { grid-column: 1 / 3; display: flex; flex-wrap: wrap; align-items: baseline; gap: .2rem 1rem; padding: .3rem .6rem; border-bottom: 1px solid #333; }
#call-head h1 { font-size: 1rem; margin: 0; overflow-wrap: anywhere; }
#role-note { margin: 0; font-size: .85rem; color: #fc6; }
#role-note:empty { display: none; }
#alone { position: absolute; inset: 0; display: flex; align-items: center; justify-content: center; margin: 0; color: #888; }
.tile.self { right: .5rem; bottom: .5rem; width: min(28%, 10rem); aspect-ratio: 4 / 3; z-index: 1; border-color: #444; }
.tile.self .label { font-size: .75rem; }
#grid { position: relative; min-height: 0; overflow: hidden; }
.tile { position: absolute; box-sizing: border-box; background: #000; overflow: hidden; border: 2px solid transparent; }
.tile.talking { border-color: #4c4; }
.tile video { width: 100%; height: 100%; object-fit: contain; }
.tile .label { position: absolute; left: .4rem; bottom: .4rem; background: rgba(0,0,0,.6); padding: .1rem .4rem; border-radius: .2rem; }
.tile .badges { position: absolute; right: .4rem; top: .4rem; font-size: .8rem; }
.tile .badges span { background: rgba(0,0,0,.6); padding: .1rem .3rem; margin-left: .2rem; border-radius: .2rem; }
.tile .sas:empty { display: none; }
.tile .sas::before { content: 'compare: '; color: #9cf; }
.tile .sas { position: absolute; left: .4rem; top: .4rem; font-size: .8rem; background: rgba(0,0,0,.6); padding: .1rem .3rem; }
#grid { grid-row: 2; grid-column: 1; }
#side { grid-row: 2 / 5; grid-column: 2; display: flex; flex-direction: column; border-left: 1px solid #333; min-height: 0; }
#chat-log { flex: 1; overflow-y: auto; margin: 0; padding: .5rem; list-style: none; overflow-wrap: anywhere; }
#chat-log .who { color: #9cf; margin-right: .3rem; }
#chat-log:empty::before { content: 'Chat: what you write here goes to everyone in the call.'; color: #777; }
#chat-form { display: flex; gap: .3rem; padding: .3rem; }
#chat-input { flex: 1; min-width: 0; }
#controls { grid-row: 4; grid-column: 1; display: flex; gap: .5rem; justify-content: center; padding: .5rem; }
#call-status { grid-row: 5; grid-column: 1 / 3; margin: 0; padding: .2rem .5rem; font-size: .85rem; color: #aaa; }
#knocks:empty { display: none; }
#knocks { grid-row: 3; grid-column: 1; padding: .3rem; }
/* A phone: the pictures first, then the controls, then the chat below them. */
@media (max-width: 700px) {
  #call { grid-template-columns: 1fr; grid-template-rows: auto minmax(12rem, 1fr) auto auto minmax(9rem, 35dvh) auto; }
  #call-head, #call-status { grid-column: 1; }
  #grid { grid-row: 2; }
  #knocks { grid-row: 3; }
  #controls { grid-row: 4; flex-wrap: wrap; }
  #side { grid-row: 5; grid-column: 1; border-left: none; border-top: 1px solid #333; }
  #call-status { grid-row: 6; }
}
"""##,
        "call.js": ##"""
// conf's call page: a browser guest joins a conf room as a full participant. It speaks
// docs/PROTOCOL.md like any client: the rendezvous's WebSocket for signaling, one
// RTCPeerConnection per other participant (the newcomer offers), Opus and VP8, and the `chat`
// and `conf-control` data channels. Everything that comes from the network (names, chat) is
// shown as text, never as markup. The pin comes in the URL's fragment, never in a request.
'use strict';

const MAX_NAME = 64;
const MAX_CHAT = 2000;

// The fragment: room=ID&pin=PIN[&fp=FINGERPRINT][&name=NAME][&join=1]. fp is for conf join (a
// browser checks the certificate itself); join=1 fills in the name and focuses the button, and
// never joins by itself.
function readFragment(hash) {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  return { room: params.get('room') || '', pin: params.get('pin') || '', name: (params.get('name') || '').slice(0, MAX_NAME),
           join: params.get('join') === '1' };
}

// The four words both ends of a link read aloud (conf's ShortAuthenticationString for a peer
// without a DTLS exporter, as a page is): SHA-256("conf-sas-fp-v2" | both SHA-256 certificate
// fingerprints, the lower first | the offerer's secret | the answerer's), first four bytes, each
// a word of the rendezvous's list. Each end commits to its secret in the description it sends
// (a=x-conf-sas-commit: SHA-256("conf-sas-commit-v1" | secret)) and reveals it over conf-control
// once the link is up, so that a rendezvous in the middle cannot choose the words.
const encoder = new TextEncoder();

function concat(...parts) {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) { out.set(part, at); at += part.length; }
  return out;
}

const toHex = (bytes) => Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
const fromHex = (hex) => (/^[0-9a-fA-F]{64}$/.test(hex) ? Uint8Array.from(hex.match(/../g), (pair) => parseInt(pair, 16)) : null);
const sha256 = async (bytes) => new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
const commitment = async (secret) => toHex(await sha256(concat(encoder.encode('conf-sas-commit-v1'), secret)));

// The description as sent, with our commitment among the session's lines.
function withCommitment(sdp, commit) {
  return sdp.replace(/\r\nt=[^\r\n]*\r\n/, (line) => `${line}a=x-conf-sas-commit:${commit}\r\n`);
}

function readCommitment(sdp) {
  const match = /^a=x-conf-sas-commit:([0-9a-fA-F]{64})\s*$/m.exec(sdp || '');
  return match ? match[1].toLowerCase() : null;
}

function fingerprintBytes(sdp) {
  const match = /^a=fingerprint:sha-256 ([0-9A-Fa-f:]+)\s*$/m.exec(sdp || '');
  return match ? Uint8Array.from(match[1].split(':'), (hex) => parseInt(hex, 16)) : null;
}

function precedes(a, b) {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] < b[i];
  return a.length < b.length;
}

async function sasWords(localSdp, remoteSdp, offererSecret, answererSecret, words) {
  const a = fingerprintBytes(localSdp), b = fingerprintBytes(remoteSdp);
  if (!a || !b || words.length !== 256) return null;
  const [low, high] = precedes(a, b) ? [a, b] : [b, a];
  const digest = await sha256(concat(encoder.encode('conf-sas-fp-v2'), low, high, offererSecret, answererSecret));
  return Array.from(digest.slice(0, 4), (byte) => words[byte]);
}

// Printable text only, bounded: what a peer calls itself or says.
function clean(text, limit) {
  return String(text).replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, '').slice(0, limit);
}

const $ = (id) => document.getElementById(id);
const links = new Map();   // peer id -> { name, role, pc, chat, control, tile, offered, state }
let ws = null, me = null, local = null, audioMuted = false, videoMuted = false, iceServers = [];
let roomClosed = null, hasLeft = false, lastRefusal = null, pinger = null;
const fragment = readFragment(typeof location === 'undefined' ? '' : location.hash);

// The seat this tab holds (room, pin, name, resume token, and whom we offered each link to), in
// sessionStorage: it lives as long as the tab, survives a reload, and is never synced or sent.
// A reload takes the seat back (`resume`); the page going says `away`, so that a closed tab's
// seat is given up within two seconds.
const SEAT_KEY = 'conf-seat';

function savedSeat(room) {
  try {
    const seat = JSON.parse(sessionStorage.getItem(SEAT_KEY) || 'null');
    return seat && seat.room === room && typeof seat.pin === 'string' ? seat : null;
  } catch { return null; }
}

function keepSeat(seat) { try { sessionStorage.setItem(SEAT_KEY, JSON.stringify(seat)); } catch { /* storage off: no resume */ } }
function forgetSeat() { try { sessionStorage.removeItem(SEAT_KEY); } catch { /* nothing kept */ } }
let seat = null;

// What went wrong, in a guest's words: the rendezvous's error codes (docs/PROTOCOL.md).
function guestWords(code, message) {
  switch (code) {
  case 'wrong-pin': return "This link's pin is not right: ask for a new link.";
  case 'no-such-room': return 'This call is over, or the link is not whole: ask for a new link.';
  case 'room-full': return 'The call is full (four people): try again when someone leaves.';
  case 'rate-limited': return 'Too many tries with a wrong pin: wait a minute, then open the link again.';
  case 'not-admitted': return 'Nobody let you in: ask someone in the call to let you in, then try again.';
  case 'server-full': case 'too-many-connections': case 'wrong-instance': return "The call's server is busy: try again in a minute.";
  default: return `The call could not go on (${clean(message || code || 'no reason given', 200)}).`;
  }
}

function report(event) {
  // What the page shows, for tests and logs: one JSON line on the console per change.
  console.log('conf-page ' + JSON.stringify(event));
}

function status(text) {
  $('lobby-status').textContent = text;
  $('call-status').textContent = text;
}

function send(message) {
  if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(message));
}

function signal(to, payload) { send({ type: 'signal', to, payload }); }

// MARK: Joining

function join(name, token) {
  status(token ? 'Coming back into the call…' : 'Connecting…');
  hasLeft = false;
  roomClosed = null;
  lastRefusal = null;
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  const socket = new WebSocket(`${scheme}//${location.host}/v1/ws?room=${encodeURIComponent(fragment.room)}`);
  ws = socket;
  socket.onopen = () => send(token ? { type: 'resume', token } : { type: 'join', room: fragment.room, pin: fragment.pin, name });
  socket.onmessage = (event) => {
    let message;
    try { message = JSON.parse(event.data); } catch { return; }
    if (message && typeof message.type === 'string') onServerMessage(message, socket, token).catch((error) => status(String(error)));
  };
  socket.onclose = () => { if (ws === socket) socketClosed(); };
  clearInterval(pinger);
  pinger = setInterval(() => send({ type: 'ping' }), 15000);
}

// The rendezvous connection ended: say why, in the guest's words.
function socketClosed() {
  clearInterval(pinger);
  if (hasLeft) return;
  if (!me) {
    status(lastRefusal ? guestWords(lastRefusal.code, lastRefusal.message)
                       : "Could not reach the call: the host's computer did not answer. Check the link, or ask whether the call is still on.");
    $('join').disabled = false;
    return;
  }
  const connected = [...links.values()].some((link) => link.pc?.connectionState === 'connected');
  if (roomClosed === 'host-left') {
    status(connected ? 'The host left: the call goes on with those still connected; nobody new can join.' : 'The host left: the call is over.');
  } else {
    status(connected ? "The call's server is gone: the call goes on with those still connected; nobody new can join."
                     : "The call's server is gone, and nobody else is connected: the call is over.");
  }
  report({ type: 'closed', reason: roomClosed || 'lost' });
}

async function onServerMessage(message, socket, token) {
  switch (message.type) {
  case 'joined': {
    // Back in the seat this tab kept (a reload): what it was before.
    const earlier = token && me === null ? savedSeat(fragment.room) : null;
    me = { id: message.you, role: message.role, name: message.name };
    iceServers = Array.isArray(message.ice_servers) ? message.ice_servers : [];
    seat = { room: fragment.room, pin: fragment.pin, name: fragment.name, offered: {}, token: typeof message.resume_token === 'string' ? message.resume_token : null };
    keepSeat(seat);
    $('lobby').hidden = true;
    $('left').hidden = true;
    $('call').hidden = false;
    $('room-title').textContent = clean(message.name || '', MAX_NAME) || `Room ${clean(fragment.room, 20)}`;
    $('role-note').textContent = me.role === 'publisher' ? '' : 'Listening only: you see and hear the others, and send nothing.';
    if (me.role === 'publisher' && !local) await openDevices();
    if (!document.querySelector('.tile.self')) addTile('me', `${fragment.name || 'guest'} (you)`, local);
    status('');
    report({ type: 'joined', you: me.id, role: me.role, peers: (message.peers || []).length, resumed: Boolean(earlier) });
    for (const peer of message.peers || []) {
      if (typeof peer.id !== 'string') continue;
      if (earlier) {
        // Back after a reload: our links died with the page. Each peer is told to set its link
        // up again (`restart`); whoever offered it before offers again.
        signal(peer.id, { type: 'restart' });
        startLink(peer.id, clean(peer.name, MAX_NAME), peer.role, earlier.offered?.[peer.id] === true);
      } else {
        startLink(peer.id, clean(peer.name, MAX_NAME), peer.role, true);
      }
    }
    break;
  }
  case 'peer-joined':
    if (typeof message.peer === 'string') startLink(message.peer, clean(message.name, MAX_NAME), message.role, false);
    break;
  case 'peer-left':
    endLink(message.peer);
    break;
  case 'signal':
    if (typeof message.from === 'string' && message.payload && typeof message.payload === 'object') await onPeerSignal(message.from, message.payload);
    break;
  case 'knocking':
    status('The room is locked: waiting for someone in it to let you in.');
    report({ type: 'knocking' });
    break;
  case 'knock':
    showKnock(message);
    break;
  case 'knock-ended':
    document.querySelector(`[data-knock="${CSS.escape(String(message.knock))}"]`)?.remove();
    break;
  case 'room-closed':
    roomClosed = message.reason === 'host-left' ? 'host-left' : 'server-shutdown';
    report({ type: 'room-closed', reason: roomClosed });
    break;
  case 'error':
    report({ type: 'error', code: clean(message.code, 40) });
    // A seat that could not be taken back: join afresh with the pin this tab kept.
    if (message.code === 'resume-refused' && token && !me) {
      seat = null;
      forgetSeat();
      socket.onclose = null;
      socket.close();
      join(fragment.name);
      return;
    }
    lastRefusal = { code: String(message.code), message: String(message.message || '') };
    status(guestWords(lastRefusal.code, lastRefusal.message));
    break;
  }
}

async function openDevices() {
  try {
    local = await navigator.mediaDevices.getUserMedia({ audio: true, video: { width: 640, height: 480 } });
  } catch (error) {
    try { local = await navigator.mediaDevices.getUserMedia({ audio: true }); } catch { local = null; }
    status(`No camera or microphone (${clean(error.message || error.name, 200)}): the others will not see or hear you.`);
  }
}

// MARK: Links

function startLink(id, name, role, weOffer) {
  endLink(id);
  const link = { name, role, pc: null, chat: null, control: null, tile: addTile(id, name, null), offered: weOffer, state: {} };
  links.set(id, link);
  if (seat) { seat.offered[id] = weOffer; keepSeat(seat); }
  if (weOffer) makeConnection(id, link, true);
  render();
}

function makeConnection(id, link, offering) {
  const pc = new RTCPeerConnection({ iceServers, bundlePolicy: 'max-bundle', rtcpMuxPolicy: 'require' });
  link.pc = pc;
  // This connection's secret for the words (a new one for each connection, restarts included).
  link.secret = { mine: crypto.getRandomValues(new Uint8Array(32)), theirs: null, theirCommitment: null, offering };
  // A listener's link carries nothing from it (as in conf): our tracks go one way, and what it
  // might send anyway (a modified page) is neither negotiated nor shown.
  const fromListener = link.role === 'listener';
  if (local) {
    for (const track of local.getTracks()) pc.addTrack(track, local);
    if (!sendsVideoTo(link)) sendVideo(pc, false);
  }
  // Receive what we do not send (we listen, or have no camera), from a publisher only.
  for (const kind of ['audio', 'video']) {
    if (!local || local.getTracks().every((t) => t.kind !== kind)) pc.addTransceiver(kind, { direction: 'recvonly' });
  }
  if (fromListener) listenerDirections(pc);
  pc.onicecandidate = ({ candidate }) => {
    if (link.pc !== pc) return;
    if (candidate && candidate.candidate) signal(id, { type: 'candidate', candidate: candidate.candidate.replace(/^a=/, ''), mid: candidate.sdpMid || '' });
    else if (!candidate) signal(id, { type: 'end-of-candidates' });
  };
  pc.ontrack = ({ streams, track }) => {
    if (fromListener) { report({ type: 'listener-ignored', peer: id, what: 'media' }); return; }
    const stream = streams[0] || new MediaStream([track]);
    const video = link.tile.querySelector('video');
    video.srcObject = stream;
    report({ type: 'track', peer: id, kind: track.kind });
    // The first picture decoded and shown.
    if (track.kind === 'video') video.addEventListener('loadeddata', () => report({ type: 'picture', peer: id, width: video.videoWidth }), { once: true });
  };
  pc.onconnectionstatechange = () => {
    report({ type: 'link', peer: id, state: pc.connectionState });
    if (pc.connectionState === 'connected') {
      status('');
      showWords(id, link, pc);
    }
    if (pc.connectionState === 'failed') linkLost(id, link, pc, true);
  };
  pc.ondatachannel = ({ channel }) => adoptChannel(id, link, channel);
  if (offering) {
    adoptChannel(id, link, pc.createDataChannel('chat'));
    adoptChannel(id, link, pc.createDataChannel('conf-control'));
    const secret = link.secret;
    pc.createOffer().then((offer) => pc.setLocalDescription(offer))
      .then(() => commitment(secret.mine))
      .then((commit) => signal(id, { type: 'offer', sdp: withCommitment(pc.localDescription.sdp, commit) }))
      .catch((error) => status(`Could not call ${link.name}: ${error}`));
  }
  return pc;
}

function adoptChannel(id, link, channel) {
  if (channel.label === 'chat') {
    link.chat = channel;
    channel.onmessage = ({ data }) => {
      if (typeof data !== 'string') return;
      if (link.role === 'listener') { report({ type: 'listener-ignored', peer: id, what: 'chat' }); return; }
      const text = clean(data, MAX_CHAT);
      addChat(link.name, text);
      report({ type: 'chat', peer: id, text });
    };
  } else if (channel.label === 'conf-control') {
    link.control = channel;
    const secret = link.secret;
    // conf ends a link it gave up on (nothing heard for 2.5 s) with an SCTP ABORT: this
    // channel closes under a connection we did not close. conf leaving does the same, and its
    // `peer-left` comes over the rendezvous a moment later: a second's wait lets it end the link.
    const pc = link.pc;
    channel.onclose = () => setTimeout(() => linkLost(id, link, pc, false), 1000);
    channel.onopen = () => {
      channel.send(stateMessage());
      channel.send(JSON.stringify({ type: 'sas-nonce', nonce: toHex(secret.mine) }));
    };
    // A channel the peer opened may be open already when it is handed to us.
    if (channel.readyState === 'open') channel.onopen();
    channel.onmessage = async ({ data }) => {
      let state;
      try { state = JSON.parse(data); } catch { return; }
      if (state?.type === 'sas-nonce') return revealed(id, link, secret, state.nonce);
      if (state?.type === 'bye') { report({ type: 'bye', peer: id }); return endLink(id); }
      if (!state || state.type !== 'state') return;
      link.state = { audioMuted: state.audio_muted === true, videoMuted: state.video_muted === true };
      // A peer that hides our picture (conf's `video hide`) is sent none until it shows it again.
      const wanted = state.wants_video !== false;
      if (wanted !== link.wantsVideo) {
        link.wantsVideo = wanted;
        if (link.pc) sendVideo(link.pc, sendsVideoTo(link));
      }
      updateBadges(link.tile, link.state);
      report({ type: 'state', peer: id, audio_muted: link.state.audioMuted, video_muted: link.state.videoMuted });
    };
  }
}

// The link ended under us (conf gave it up, or ICE failed): set up again, as conf does. The
// one who offered it offers anew, after a `restart`; the one who answered waits for that offer,
// and asks for it when its own ICE failed (conf may not have noticed).
function linkLost(id, link, pc, failed) {
  if (link.pc !== pc || !pc || pc.lost || pc.connectionState === 'closed') return;
  pc.lost = true;
  report({ type: 'link', peer: id, state: 'restarting' });
  if (link.offered) {
    signal(id, { type: 'restart' });
    pc.close();
    makeConnection(id, link, true);
  } else if (failed) {
    signal(id, { type: 'restart' });
  }
}

async function onPeerSignal(from, payload) {
  let link = links.get(from);
  if (!link) return;
  switch (payload.type) {
  case 'offer': {
    if (typeof payload.sdp !== 'string') return;
    // A second offer is a restart: conf's restarts are a new DTLS session, so a new connection.
    if (link.pc) link.pc.close();
    const pc = makeConnection(from, link, false);
    link.secret.theirCommitment = readCommitment(payload.sdp);
    await pc.setRemoteDescription({ type: 'offer', sdp: payload.sdp });
    if (link.role === 'listener') listenerDirections(pc);
    await pc.setLocalDescription(await pc.createAnswer());
    signal(from, { type: 'answer', sdp: withCommitment(pc.localDescription.sdp, await commitment(link.secret.mine)) });
    break;
  }
  case 'answer':
    if (!link.pc || typeof payload.sdp !== 'string') return;
    link.secret.theirCommitment = readCommitment(payload.sdp);
    await link.pc.setRemoteDescription({ type: 'answer', sdp: payload.sdp });
    break;
  case 'candidate':
    if (!link.pc || typeof payload.candidate !== 'string') return;
    try {
      if (payload.candidate === '') await link.pc.addIceCandidate();
      else await link.pc.addIceCandidate({ candidate: payload.candidate, sdpMid: payload.mid || null, sdpMLineIndex: payload.mid ? null : 0 });
    } catch { /* a candidate this browser cannot use */ }
    break;
  case 'end-of-candidates':
    if (link.pc) { try { await link.pc.addIceCandidate(); } catch { /* already done */ } }
    break;
  case 'restart':
    if (link.pc) link.pc.close();
    link.pc = null;
    if (link.offered) makeConnection(from, link, true);
    break;
  }
}

// A link to a listener: we send what we have on it, and receive nothing.
function listenerDirections(pc) {
  const kinds = new Set((local?.getTracks() || []).map((track) => track.kind));
  for (const transceiver of pc.getTransceivers()) {
    if (!transceiver.stopped) transceiver.direction = kinds.has(transceiver.receiver.track.kind) ? 'sendonly' : 'inactive';
  }
}

let wordList = null;

// The peer's secret, over conf-control: kept if it matches what it committed to.
async function revealed(id, link, secret, hex) {
  const theirs = fromHex(String(hex));
  if (!theirs || secret.theirs || !secret.theirCommitment) return;
  if (await commitment(theirs) !== secret.theirCommitment) {
    link.tile.querySelector('.sas').textContent = 'words unavailable: the secret does not match';
    report({ type: 'sas-mismatch', peer: id });
    return;
  }
  secret.theirs = theirs;
  if (link.pc?.connectionState === 'connected') showWords(id, link, link.pc);
}

async function showWords(id, link, pc) {
  const secret = link.secret;
  if (!secret?.theirs) return;  // shown when the peer's secret comes
  wordList = wordList || await fetch('sas-words.json').then((answer) => answer.json()).catch(() => []);
  const [offerer, answerer] = secret.offering ? [secret.mine, secret.theirs] : [secret.theirs, secret.mine];
  const words = await sasWords(pc.localDescription?.sdp, pc.remoteDescription?.sdp, offerer, answerer, wordList);
  if (!words || link.pc !== pc) return;
  link.tile.querySelector('.sas').textContent = words.join(' ');
  link.tile.querySelector('.sas').title = 'Read these words aloud: the other side must see the same ones';
  report({ type: 'sas', peer: id, words: words.join(' ') });
}

function endLink(id) {
  const link = links.get(id);
  if (!link) return;
  if (link.pc) link.pc.close();
  link.tile.remove();
  links.delete(id);
  render();
}

// MARK: What the page shows

function addTile(id, name, stream) {
  const tile = document.createElement('div');
  tile.className = id === 'me' ? 'tile self' : 'tile';
  tile.dataset.peer = id;
  const video = document.createElement('video');
  video.autoplay = true;
  video.playsInline = true;
  video.addEventListener('resize', render);  // a picture's shape became known or changed
  if (id === 'me') video.muted = true;
  if (stream) video.srcObject = stream;
  const label = document.createElement('span');
  label.className = 'label';
  label.textContent = name;
  const badges = document.createElement('span');
  badges.className = 'badges';
  const words = document.createElement('span');
  words.className = 'sas';
  tile.append(video, label, badges, words);
  $('grid').append(tile);
  render();
  return tile;
}

function updateBadges(tile, state) {
  const badges = tile.querySelector('.badges');
  badges.replaceChildren();
  for (const [on, text] of [[state.audioMuted, 'muted'], [state.videoMuted, 'camera off']]) {
    if (!on) continue;
    const badge = document.createElement('span');
    badge.textContent = text;
    badges.append(badge);
  }
}

// Where each picture goes, as conf's window places them (ConfMedia's TileLayout.arrange): every
// picture keeps its shape, the widest first (equal ones keep their order), cut into the rows
// that cover the most of the area, all scaled down together when they do not fit its height.
function arrange(aspects, width, height, gap = 4) {
  if (!aspects.length || width <= 2 * gap || height <= 2 * gap) return aspects.map(() => ({ x: 0, y: 0, width: 0, height: 0 }));
  const ratios = aspects.map((a) => (Number.isFinite(a) && a > 0.1 ? Math.min(a, 10) : 4 / 3));
  const order = ratios.map((_, i) => i).sort((a, b) => (ratios[a] !== ratios[b] ? ratios[b] - ratios[a] : a - b));
  const usableWidth = width - 2 * gap, usableHeight = height - 2 * gap;
  const sum = (values) => values.reduce((total, value) => total + value, 0);
  let best = null;
  for (const rows of partitions(order)) {
    const fullWidth = rows.map((row) => (usableWidth - gap * (row.length - 1)) / sum(row.map((i) => ratios[i])));
    const scale = Math.min(1, usableHeight / (sum(fullWidth) + gap * (rows.length - 1)));
    const heights = fullWidth.map((h) => h * scale);
    const area = sum(rows.map((row, k) => sum(row.map((i) => ratios[i] * heights[k] * heights[k]))));
    if (!best || area > best.area + 0.5) best = { area, rows, heights };
  }
  const rects = aspects.map(() => null);
  let top = gap + (usableHeight - (sum(best.heights) + gap * (best.rows.length - 1))) / 2;
  best.rows.forEach((row, k) => {
    const rowHeight = best.heights[k];
    let left = gap + (usableWidth - (sum(row.map((i) => ratios[i] * rowHeight)) + gap * (row.length - 1))) / 2;
    for (const i of row) {
      rects[i] = { x: Math.round(left), y: Math.round(top), width: Math.round(ratios[i] * rowHeight), height: Math.round(rowHeight) };
      left += ratios[i] * rowHeight + gap;
    }
    top += rowHeight + gap;
  });
  return rects;
}

// Every way to cut `items` into consecutive rows.
function partitions(items) {
  if (items.length <= 1) return [[items]];
  const out = [];
  for (let mask = 0; mask < 1 << Math.min(items.length - 1, 12); mask++) {
    const rows = [[items[0]]];
    for (let i = 1; i < items.length; i++) {
      if (mask & (1 << (i - 1))) rows.push([items[i]]); else rows[rows.length - 1].push(items[i]);
    }
    out.push(rows);
  }
  return out;
}

function render() {
  const grid = $('grid');
  // Our own picture is small in a corner, never one of the big ones.
  const tiles = [...grid.querySelectorAll('.tile:not(.self)')];
  $('alone').hidden = tiles.length > 0;
  const aspects = tiles.map((tile) => {
    const video = tile.querySelector('video');
    return video.videoWidth > 0 && video.videoHeight > 0 ? video.videoWidth / video.videoHeight : 4 / 3;
  });
  arrange(aspects, grid.clientWidth, grid.clientHeight).forEach((rect, i) => {
    Object.assign(tiles[i].style, { left: `${rect.x}px`, top: `${rect.y}px`, width: `${rect.width}px`, height: `${rect.height}px` });
  });
}

function addChat(who, text) {
  const item = document.createElement('li');
  const name = document.createElement('span');
  name.className = 'who';
  name.textContent = who;
  item.append(name, document.createTextNode(text));
  $('chat-log').append(item);
  item.scrollIntoView({ block: 'end' });
}

function showKnock(message) {
  const row = document.createElement('div');
  row.dataset.knock = String(message.knock);
  const text = document.createElement('span');
  text.textContent = `${clean(message.name, MAX_NAME)} asks to join (${message.role === 'listener' ? 'listening only' : 'publisher'}) `;
  const admit = document.createElement('button');
  admit.textContent = 'Let in';
  admit.onclick = () => { send({ type: 'admit', knock: message.knock }); row.remove(); };
  const deny = document.createElement('button');
  deny.textContent = 'Turn away';
  deny.onclick = () => { send({ type: 'deny', knock: message.knock }); row.remove(); };
  row.append(text, admit, deny);
  $('knocks').append(row);
  report({ type: 'knock', knock: message.knock });
}

// Talking: the loudest recent level each peer's audio receiver reports.
function watchTalking() {
  setInterval(() => {
    for (const [, link] of links) {
      const receiver = link.pc?.getReceivers().find((r) => r.track.kind === 'audio');
      const level = receiver?.getSynchronizationSources?.()[0]?.audioLevel ?? 0;
      link.tile.classList.toggle('talking', level > 0.05 && !link.state.audioMuted);
    }
  }, 250);
}

// MARK: Controls

function stateMessage() { return JSON.stringify({ type: 'state', audio_muted: audioMuted, video_muted: videoMuted, wants_video: true }); }

function broadcastState() {
  for (const [, link] of links) if (link.control?.readyState === 'open') link.control.send(stateMessage());
  updateBadges(document.querySelector('.tile[data-peer="me"]'), { audioMuted, videoMuted });
}

// Whether the link gets our picture: the camera is on and the peer has not hidden it.
function sendsVideoTo(link) { return !videoMuted && link.wantsVideo !== false; }

// Camera off sends no video at all (not black pictures): the sender's track is taken away.
function sendVideo(pc, on) {
  const track = local?.getVideoTracks()[0] || null;
  for (const transceiver of pc.getTransceivers()) {
    if (transceiver.receiver.track.kind === 'video') transceiver.sender.replaceTrack(on ? track : null).catch(() => {});
  }
}

// Leaving on purpose: the rendezvous and every peer are told (the peers over conf-control too,
// so that they hear of it even when the rendezvous is gone), the devices close, and the page
// says so, with a way back in.
function leaveCall() {
  hasLeft = true;
  send({ type: 'leave' });
  // The connections close once each `bye` has left (a close right after a send can drop it), or
  // after a second at most; the page shows that we left at once.
  const leaving = [...links.entries()];
  links.clear();
  for (const [, link] of leaving) {
    link.tile.remove();
    if (link.control?.readyState === 'open') link.control.send(JSON.stringify({ type: 'bye' }));
  }
  const closeWhenSaid = (tries) => {
    if (tries > 0 && leaving.some(([, link]) => link.control?.readyState === 'open' && link.control.bufferedAmount > 0)) {
      setTimeout(() => closeWhenSaid(tries - 1), 50);
      return;
    }
    // A moment more for SCTP to have the last chunk acknowledged before the close aborts it.
    setTimeout(() => { for (const [, link] of leaving) link.pc?.close(); }, 200);
  };
  closeWhenSaid(20);
  render();
  for (const track of local?.getTracks() || []) track.stop();
  local = null;
  document.querySelector('.tile.self')?.remove();
  if (ws) { ws.onclose = null; ws.close(); }
  clearInterval(pinger);
  me = null;
  seat = null;
  forgetSeat();
  $('call').hidden = true;
  $('left').hidden = false;
  $('left-room').textContent = `Room: ${$('room-title').textContent}`;
  status('');
  report({ type: 'left' });
}

function wireControls() {
  // Muting stops sending (the track sends silence or black) and tells the others.
  const toggle = (button, tracks, on, off, set) => () => {
    const muted = set();
    for (const track of tracks()) track.enabled = !muted;
    $(button).setAttribute('aria-pressed', String(muted));
    $(button).textContent = muted ? on : off;
    broadcastState();
  };
  $('mute').onclick = toggle('mute', () => local?.getAudioTracks() || [], 'Unmute', 'Mute', () => (audioMuted = !audioMuted));
  $('camera').onclick = toggle('camera', () => local?.getVideoTracks() || [], 'Camera on', 'Camera off', () => {
    videoMuted = !videoMuted;
    for (const [, link] of links) if (link.pc) sendVideo(link.pc, sendsVideoTo(link));
    return videoMuted;
  });
  $('leave').onclick = () => leaveCall();
  $('rejoin').onclick = () => {
    $('left').hidden = true;
    $('lobby').hidden = false;
    $('join').disabled = true;
    join(fragment.name);
  };
  $('chat-form').onsubmit = (event) => {
    event.preventDefault();
    const text = clean($('chat-input').value, MAX_CHAT).trim();
    if (!text) return;
    for (const [, link] of links) if (link.chat?.readyState === 'open') link.chat.send(text);
    addChat('you', text);
    $('chat-input').value = '';
  };
}

function start() {
  // The link opened again in this tab changes only the fragment: start afresh with its pin.
  window.addEventListener('hashchange', () => { if (readFragment(location.hash).pin) location.reload(); });
  // A reload or a tab that goes on the same page: the seat is kept for the tab (sessionStorage).
  const kept = savedSeat(fragment.room);
  if (!fragment.pin && kept) { fragment.pin = kept.pin; fragment.name = fragment.name || kept.name; }
  // The pin leaves the address bar (history, session restore, sync) once read; the room stays.
  if (readFragment(location.hash).pin) history.replaceState(null, '', `${location.pathname}#room=${encodeURIComponent(fragment.room)}`);
  if (!window.isSecureContext || !window.crypto?.subtle) {
    status('This page needs a secure connection, and this one is not (plain http to another computer): ask the host for a secure link, one that starts with https.');
    $('join').disabled = true;
    return;
  }
  if (!fragment.room || !fragment.pin) {
    status(fragment.room
      ? 'This page no longer holds the pin (it leaves the address once read): open the link you were given again.'
      : 'This link names no room and pin: ask for the whole link, with what follows its #.');
    $('join').disabled = true;
    return;
  }
  $('lobby-room').textContent = `Room ${clean(fragment.room, 20)}`;
  $('name').value = fragment.name;
  wireControls();
  watchTalking();
  window.addEventListener('resize', render);
  // Going (closed, reloaded, navigated away): the seat waits a second for this tab's return.
  window.addEventListener('pagehide', () => { if (me && !hasLeft) { hasLeft = true; send({ type: 'away' }); } });
  $('join-form').onsubmit = (event) => {
    event.preventDefault();
    fragment.name = clean($('name').value, MAX_NAME).trim() || 'guest';
    $('join').disabled = true;
    join(fragment.name);
  };
  const navigation = performance.getEntriesByType?.('navigation')?.[0]?.type;
  if (kept?.token && navigation === 'reload') {
    // The person reloaded their own call: back in at once, in the same seat.
    $('join').disabled = true;
    join(fragment.name, kept.token);
  } else if (fragment.join) {
    // join=1 gets the page ready, never further: camera and microphone open only on a person's click.
    $('name').value = fragment.name || 'guest';
    $('join').focus();
  }
  report({ type: 'lobby' });
}

if (typeof document !== 'undefined') start();
if (typeof module !== 'undefined') module.exports = { readFragment, clean, arrange, sasWords, fingerprintBytes, commitment, withCommitment, readCommitment };
"""##,
        "index.html": ##"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>conf call</title>
<link rel="stylesheet" href="call.css">
<script src="call.js" defer></script>
</head>
<body>
<main id="lobby">
  <h1>conf</h1>
  <p id="lobby-room"></p>
  <form id="join-form">
    <label>Your name <input id="name" maxlength="64" autocomplete="nickname" required></label>
    <button id="join" type="submit">Join the call</button>
  </form>
  <p id="lobby-status" role="status"></p>
</main>
<main id="left" hidden>
  <h1>You left the call</h1>
  <p id="left-room"></p>
  <p><button id="rejoin" type="button">Rejoin</button></p>
</main>
<main id="call" hidden>
  <header id="call-head"><h1 id="room-title"></h1><p id="role-note" role="note"></p></header>
  <section id="grid" aria-label="participants"><p id="alone">Waiting for others to join…</p></section>
  <section id="knocks" aria-label="waiting to join"></section>
  <section id="side">
    <ol id="chat-log" aria-label="chat"></ol>
    <form id="chat-form"><input id="chat-input" maxlength="2000" autocomplete="off" placeholder="Say something"><button type="submit">Send</button></form>
  </section>
  <nav id="controls">
    <button id="mute" type="button">Mute</button>
    <button id="camera" type="button">Camera off</button>
    <button id="leave" type="button">Leave</button>
  </nav>
  <p id="call-status" role="status"></p>
</main>
</body>
</html>
"""##,
    ]
}
