// A watch build for the e2e tests: it "builds" src/ into dist/chrome at
// start and on every change under src/, the way a wallet's own watcher
// would. A script that does not compile is a failed build: a SyntaxError
// line, and dist/chrome is left as it was. Output follows gulp's
// "Finished '<task>' after <n> ms", which the build plugin's default
// readyPattern knows.
'use strict';
const fs = require('fs');
const path = require('path');
const vm = require('vm');

const root = __dirname;
const src = path.join(root, 'src');
const out = path.join(root, 'dist', 'chrome');

function list(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? list(p) : [p];
  });
}

function build() {
  const t0 = Date.now();
  const files = list(src);
  for (const f of files) {
    if (!f.endsWith('.js')) continue;
    try {
      new vm.Script(fs.readFileSync(f, 'utf8'), { filename: f });
    } catch (err) {
      console.error(`SyntaxError: ${err.message} (${path.relative(root, f)})`);
      return;
    }
  }
  for (const f of files) {
    const dst = path.join(out, path.relative(src, f));
    fs.mkdirSync(path.dirname(dst), { recursive: true });
    fs.copyFileSync(f, dst);
  }
  console.log(`Finished 'build' after ${Date.now() - t0} ms`);
}

build();
let timer;
fs.watch(src, { recursive: true }, () => {
  clearTimeout(timer);
  timer = setTimeout(build, 20);
});
