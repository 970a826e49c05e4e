// observe(opts, known): the walk of a step record's observation (collect,
// see collect.js), or '{"same":true}' when the page has not changed since
// the walk that returned the version known. Either way with the page's URL
// and load state added, and a walk with the page's version, read before
// the walk, and whether the version can follow the page (opaque: it
// cannot; a version then proves nothing). The walk is synchronous: the
// page it saw is the one of that version.
//
// The version: see version.js.
const v = versionString();
const t = pageVersion();
const blind = opaqueNow(t);
const at = '"href":' + JSON.stringify(location.href) + ',"readyState":' + JSON.stringify(document.readyState);
if (known && known === v && !blind) return '{"same":true,' + at + '}';
const out = globalThis.__mmcpFns.collect(opts);
return '{"version":' + JSON.stringify(v) + ',"opaque":' + blind + ',' + at + ',' + out.slice(1);
