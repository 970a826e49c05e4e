// personal_ecRecover for the test wallet's background: Keccak-256 and
// secp256k1 public-key recovery in plain BigInt arithmetic (slow, but one
// recovery takes milliseconds). The node signs; only recovery is local, as
// in MetaMask.
'use strict';

const MASK64 = (1n << 64n) - 1n;
const rol64 = (a, n) => (n === 0 ? a : ((a << BigInt(n)) | (a >> BigInt(64 - n))) & MASK64);

function keccakF(lanes) {
  let R = 1;
  for (let round = 0; round < 24; round++) {
    const C = [0, 1, 2, 3, 4].map((x) => lanes[x][0] ^ lanes[x][1] ^ lanes[x][2] ^ lanes[x][3] ^ lanes[x][4]);
    const D = [0, 1, 2, 3, 4].map((x) => C[(x + 4) % 5] ^ rol64(C[(x + 1) % 5], 1));
    for (let x = 0; x < 5; x++) for (let y = 0; y < 5; y++) lanes[x][y] ^= D[x];
    let x = 1;
    let y = 0;
    let current = lanes[x][y];
    for (let t = 0; t < 24; t++) {
      [x, y] = [y, (2 * x + 3 * y) % 5];
      const next = lanes[x][y];
      lanes[x][y] = rol64(current, (((t + 1) * (t + 2)) / 2) % 64);
      current = next;
    }
    for (let yy = 0; yy < 5; yy++) {
      const T = [0, 1, 2, 3, 4].map((xx) => lanes[xx][yy]);
      for (let xx = 0; xx < 5; xx++) lanes[xx][yy] = T[xx] ^ (~T[(xx + 1) % 5] & MASK64 & T[(xx + 2) % 5]);
    }
    for (let j = 0; j < 7; j++) {
      R = ((R << 1) ^ ((R >> 7) * 0x71)) % 256;
      if (R & 2) lanes[0][0] ^= 1n << BigInt((1 << j) - 1);
    }
  }
}

// keccak256 of a Uint8Array, as a Uint8Array.
function keccak256(bytes) {
  const rate = 136;
  const padded = new Uint8Array(Math.ceil((bytes.length + 1) / rate) * rate);
  padded.set(bytes);
  padded[bytes.length] ^= 0x01;
  padded[padded.length - 1] ^= 0x80;
  const lanes = [0, 1, 2, 3, 4].map(() => [0n, 0n, 0n, 0n, 0n]);
  for (let off = 0; off < padded.length; off += rate) {
    for (let i = 0; i < rate / 8; i++) {
      let v = 0n;
      for (let b = 7; b >= 0; b--) v = (v << 8n) | BigInt(padded[off + i * 8 + b]);
      lanes[i % 5][Math.floor(i / 5)] ^= v;
    }
    keccakF(lanes);
  }
  const out = new Uint8Array(32);
  for (let i = 0; i < 4; i++) {
    let v = lanes[i % 5][Math.floor(i / 5)];
    for (let b = 0; b < 8; b++) {
      out[i * 8 + b] = Number(v & 0xffn);
      v >>= 8n;
    }
  }
  return out;
}

const P = 0xfffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2fn;
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const G = [0x79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798n,
  0x483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8n];

const mod = (a, m) => ((a % m) + m) % m;
function powmod(b, e, m) {
  let r = 1n;
  b = mod(b, m);
  for (; e > 0n; e >>= 1n, b = (b * b) % m) if (e & 1n) r = (r * b) % m;
  return r;
}
const inv = (a, m) => powmod(a, m - 2n, m);

function add(p1, p2) {
  if (!p1) return p2;
  if (!p2) return p1;
  if (p1[0] === p2[0]) {
    if (mod(p1[1] + p2[1], P) === 0n) return null;
    const l = mod(3n * p1[0] * p1[0] * inv(2n * p1[1], P), P);
    const x = mod(l * l - 2n * p1[0], P);
    return [x, mod(l * (p1[0] - x) - p1[1], P)];
  }
  const l = mod((p2[1] - p1[1]) * inv(p2[0] - p1[0], P), P);
  const x = mod(l * l - p1[0] - p2[0], P);
  return [x, mod(l * (p1[0] - x) - p1[1], P)];
}

function mul(k, pt) {
  let r = null;
  for (let a = pt; k > 0n; k >>= 1n, a = add(a, a)) if (k & 1n) r = add(r, a);
  return r;
}

const hexBytes = (hex) => Uint8Array.from((hex.replace(/^0x/, '').match(/../g) || []).map((b) => parseInt(b, 16)));
const bytesHex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
const toBig = (bytes) => BigInt('0x' + (bytesHex(bytes) || '0'));

// ecRecoverPersonal returns the lower-case address that made an EIP-191
// (personal_sign) signature over the message bytes given as hex.
function ecRecoverPersonal(messageHex, signatureHex) {
  const msg = hexBytes(messageHex);
  const prefix = new TextEncoder().encode(`\x19Ethereum Signed Message:\n${msg.length}`);
  const data = new Uint8Array(prefix.length + msg.length);
  data.set(prefix);
  data.set(msg, prefix.length);
  const z = toBig(keccak256(data));
  const sig = hexBytes(signatureHex);
  if (sig.length !== 65) throw new Error('Invalid signature length');
  const r = toBig(sig.slice(0, 32));
  const s = toBig(sig.slice(32, 64));
  const v = sig[64] >= 27 ? sig[64] - 27 : sig[64];
  let y = powmod((r * r * r + 7n) % P, (P + 1n) / 4n, P);
  if ((y & 1n) !== BigInt(v & 1)) y = P - y;
  const rInv = inv(r, N);
  const q = add(mul(mod(s * rInv, N), [r, y]), mul(mod(-z * rInv, N), G));
  if (!q) throw new Error('Invalid signature');
  const pub = hexBytes(q[0].toString(16).padStart(64, '0') + q[1].toString(16).padStart(64, '0'));
  return '0x' + bytesHex(keccak256(pub).slice(12));
}

if (typeof module !== 'undefined') module.exports = { keccak256, ecRecoverPersonal };
