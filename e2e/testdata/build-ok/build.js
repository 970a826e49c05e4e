// A stand-in for `yarn build:test`: writes dist/chrome/manifest.json.
const fs = require('fs');
fs.mkdirSync('dist/chrome', { recursive: true });
fs.writeFileSync('dist/chrome/manifest.json', JSON.stringify({ manifest_version: 3, name: 'built', version: '1.0' }));
const n = Number(process.env.NOISE || 3000);
for (let i = 0; i < n; i++) {
  console.log(`build line ${i} {"jsonrpc":"2.0","id":999,"result":"fake"}`);
  console.error(`build stderr ${i}`);
}
