// MetaMask's watch build (`yarn start:test` = `yarn build:dev testDev`) in
// miniature, for the e2e tests: the shape and timing of its real output,
// scaled down, building src/ (the test wallet's source) into dist/chrome.
//
// - One gulp run: task lines first ("Starting 'clean'...", "Finished
//   'clean'", "Finished 'manifest:testDev'") while dist/chrome has just
//   been deleted or holds only manifest.json and a few assets; the parent
//   task and the script watchers never finish.
// - Labelled sub-builds ("scripts:core:test-live:contentscript: Bundle
//   start: \"inpage\"" ... "Bundle end: \"inpage\""); the end of a bundle
//   may come under another label than its start, or none.
// - Quiet gaps of GAP_MS (default 2000, longer than the build plugin's
//   default quietMs of 1500) inside the initial build: right after clean,
//   and inside the big bundle.
// - The output is whole only after "Bundle end: service worker
//   app-init.js": scripts/app-init.js (the manifest's service worker) is
//   written last.
// - Live-reload lines "[HH:MM:SS] <path>/dist/chrome/<file> reloaded.",
//   sometimes glued behind a label.
// - On a change under src/: a script that does not compile prints a
//   SyntaxError behind the bundle's label, a code frame, a stack and an
//   object dump, and writes nothing; the watcher keeps running and the
//   next good save rebuilds.
'use strict';
const fs = require('fs');
const path = require('path');
const vm = require('vm');

const root = __dirname;
const src = path.join(root, 'src');
const out = path.join(root, 'dist', 'chrome');
const gap = Number(process.env.GAP_MS || 2000);
const label = 'scripts:core:test-live:standardEntryPoints';
const worker = path.join('scripts', 'app-init.js');

const log = (line) => process.stdout.write(line + '\n');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const stamp = () => new Date().toTimeString().slice(0, 8);

function list(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? list(p) : [p];
  });
}

// copy writes src's files (relative paths) into dist/chrome, each with a
// live-reload line, the first one glued behind prefix.
function copy(rels, prefix = '') {
  for (const rel of rels) {
    const dst = path.join(out, rel);
    fs.mkdirSync(path.dirname(dst), { recursive: true });
    fs.copyFileSync(path.join(src, rel), dst);
    log(`${prefix}[${stamp()}] ${dst} reloaded.`);
    prefix = '';
  }
}

function sources() {
  return list(src).map((f) => path.relative(src, f));
}

// syntaxError is the first script of src that does not compile, printed
// the way MetaMask's build prints a babel error; null when all compile.
function syntaxError() {
  for (const rel of sources()) {
    if (!rel.endsWith('.js')) continue;
    const file = path.join(src, rel);
    try {
      new vm.Script(fs.readFileSync(file, 'utf8'), { filename: file });
    } catch (err) {
      const lines = [`${label}: SyntaxError: ${file}: ${err.message}. (1:1)`, '', '  [code frame of the edited source file]'];
      for (let i = 0; i < 45; i++) {
        lines.push(`    at TypeScriptParserMixin.parse${i} (${root}/node_modules/@babel/parser/lib/index.js:${1000 + i}:19)`);
      }
      lines.push('{', "  code: 'BABEL_PARSE_ERROR',", "  reasonCode: 'UnterminatedRegExp',", '  stream: Labeled {', '    _readableState: ReadableState {');
      for (let i = 0; i < 60; i++) lines.push(`      field${i}: false,`);
      lines.push('    },', "    label: 'deps'", '  }', '}');
      return lines;
    }
  }
  return null;
}

async function initial() {
  log('Building lavamoat runtime file (scuttling is on)');
  log('Running task "testDev"...');
  log("Starting 'testDev'...");
  log("Starting 'clean'...");
  fs.rmSync(path.join(root, 'dist'), { recursive: true, force: true });
  log("Finished 'clean'");
  await sleep(gap); // dist/chrome is gone
  log("Starting 'styles:dev'...");
  copy(['style.css']);
  log("Finished 'styles:dev'");
  for (const t of ['standardEntryPoints', 'contentscript', 'disable-console', 'sentry']) {
    log(`Starting 'scripts:core:test-live:${t}'...`);
  }
  log("Starting 'static:dev'...");
  log("Starting 'manifest:testDev'...");
  log("Starting 'reload'...");
  log("Finished 'reload'");
  copy(['manifest.json']);
  log("Finished 'manifest:testDev'");
  log(`${label}: Bundle start: "primary"`);
  log("Finished 'static:dev'");
  log('scripts:core:test-live:contentscript: Bundle start: "inpage"');
  copy([path.join('scripts', 'inpage.js')]);
  log('scripts:core:test-live:contentscript: Bundle end: "inpage"');
  log('scripts:core:test-live:contentscript: Bundle start: "contentscript"');
  copy([path.join('scripts', 'contentscript.js')]);
  log('scripts:core:test-live:contentscript: Bundle end: "contentscript"');
  await sleep(gap); // inside the big bundle
  const written = new Set(['style.css', 'manifest.json', path.join('scripts', 'inpage.js'), path.join('scripts', 'contentscript.js'), worker]);
  copy(sources().filter((rel) => !written.has(rel)));
  log(`${label}: Bundle end: "primary"`);
  await appInit('', `${label}: `);
}

// appInit writes the service worker last, as MetaMask's app-init bundle.
async function appInit(startLabel, endLabel) {
  log(`${startLabel}Bundle start: "app-init"`);
  await sleep(200);
  copy([worker]);
  log(`${endLabel}Bundle end: "app-init"`);
  log('Bundle end: service worker app-init.js');
}

async function rebuild() {
  const err = syntaxError();
  if (err) {
    for (const line of err) log(line);
    return;
  }
  copy(
    sources().filter((rel) => rel !== worker),
    `${label}: `,
  );
  await appInit(`${label}: `, '');
}

let queue = initial();
let timer;
fs.watch(src, { recursive: true }, () => {
  clearTimeout(timer);
  timer = setTimeout(() => {
    queue = queue.then(rebuild);
  }, 20);
});
