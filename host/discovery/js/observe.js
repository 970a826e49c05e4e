// observe(opts, known): the walk of a step record's observation (collect,
// see collect.js), or '{"same":true}' when the page has not changed since
// the walk that returned the version known. Otherwise the walk's JSON with
// the page's version, read before the walk, and its URL and load state
// added.
//
// The version: see version.js.
const v = versionString();
const t = pageVersion();
if (known && known === v) {
  // scanned only when the walk could be skipped
  if (!opaqueNow(t)) return '{"same":true}';
}
const out = globalThis.__mmcpFns.collect(opts);
return '{"version":' + JSON.stringify(v) + ',"href":' + JSON.stringify(location.href) +
  ',"readyState":' + JSON.stringify(document.readyState) + ',' + out.slice(1);
