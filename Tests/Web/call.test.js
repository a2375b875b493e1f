// Unit tests of the call page's logic (Sources/ConfWeb/page/call.js): the link's fragment, what
// is kept of a peer's text, the grid's layout, and the short authentication string, whose known
// answer is the one ConfCryptoTests checks for conf's own computation.
//   node --test Tests/Web/
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const path = require('node:path');
const fs = require('node:fs');

globalThis.crypto ??= require('node:crypto').webcrypto;
const page = require(path.join(__dirname, '../../Sources/ConfWeb/page/call.js'));

// The word list as the rendezvous serves it: from ConfWire's SASWords.swift.
function wordList() {
  const swift = fs.readFileSync(path.join(__dirname, '../../Sources/ConfWire/SASWords.swift'), 'utf8');
  const body = swift.slice(swift.indexOf('"""') + 3, swift.lastIndexOf('"""'));
  return body.replace(/\\\n/g, ' ').split(/\s+/).filter(Boolean);
}

const sdpWith = (bytes) => `v=0\r\na=fingerprint:sha-256 ${Array.from(bytes, (b) => b.toString(16).padStart(2, '0').toUpperCase()).join(':')}\r\n`;

test('the fragment gives room, pin, name and join; nothing else is read', () => {
  assert.deepStrictEqual(page.readFragment('#room=1234-5678&pin=012345&name=Ann%20B&join=1'),
    { room: '1234-5678', pin: '012345', name: 'Ann B', join: true });
  assert.deepStrictEqual(page.readFragment(''), { room: '', pin: '', name: '', join: false });
  assert.strictEqual(page.readFragment('#name=' + 'x'.repeat(500)).name.length, 64);
});

test('a peer\'s text loses control characters and bidirectional overrides, and is bounded', () => {
  assert.strictEqual(page.clean('a\u0007b\u202ec\u0000d', 100), 'abcd');
  assert.strictEqual(page.clean('<b>kept as text</b>', 100), '<b>kept as text</b>');
  assert.strictEqual(page.clean('abcdef', 3), 'abc');
});

test('the grid: one tile alone, two side by side, three and four two columns wide', () => {
  assert.deepStrictEqual([0, 1, 2, 3, 4, 5].map(page.gridClass), ['n1', 'n1', 'n2', 'n3', 'n4', 'n4']);
});

test('the words are conf\'s for the same fingerprints and secrets, whichever end computes them', async () => {
  const words = wordList();
  assert.strictEqual(words.length, 256);
  const low = Uint8Array.from({ length: 32 }, (_, i) => i), high = new Uint8Array(32).fill(0xff);
  const first = new Uint8Array(32).fill(1), second = new Uint8Array(32).fill(2);
  const ours = await page.sasWords(sdpWith(low), sdpWith(high), first, second, words);
  assert.deepStrictEqual(ours, ['onion', 'apple', 'otter', 'ivory']);
  assert.deepStrictEqual(await page.sasWords(sdpWith(high), sdpWith(low), first, second, words), ours);
  assert.notDeepStrictEqual(await page.sasWords(sdpWith(low), sdpWith(high), second, first, words), ours);
  assert.strictEqual(await page.sasWords('v=0\r\n', sdpWith(high), first, second, words), null);
});

test('the commitment is conf\'s, and travels among the session\'s lines', async () => {
  const first = new Uint8Array(32).fill(1);
  const commit = await page.commitment(first);
  assert.strictEqual(commit, '0ba53fd5583d9573b6e538fc29719a5cc6cac4e80e6ecc0961a8a75eaff86030');
  const sdp = page.withCommitment('v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\n', commit);
  assert.match(sdp, /\r\nt=0 0\r\na=x-conf-sas-commit:0ba53f[0-9a-f]+\r\nm=audio/);
  assert.strictEqual(page.readCommitment(sdp), commit);
  assert.strictEqual(page.readCommitment('a=x-conf-sas-commit:zz\r\n'), null);
});
